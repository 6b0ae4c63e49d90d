// API docs for the project's own tables and functions (/api-docs/<schema>/<name>):
// for each, the supabase-js and curl calls, made from the live schema with
// this project's URL and anon key. The anon key is public by design; row
// level security decides what it reaches.
import { useState } from 'react';
import { NavLink, useParams } from 'react-router';
import { api, must, ref } from '../../api/client.ts';
import { useProject } from '../../app/session.tsx';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { functionSnippets, tableSnippets } from './snippets.ts';
import { CodeBlock } from '../../components/CodeBlock.tsx';

export default function ApiDocs() {
  const { schema: chosenSchema, name } = useParams();
  const project = useProject();
  const [lang, setLang] = useState<'js' | 'curl'>('js');
  const data = useAsync(async () => {
    const schemas = (await must(api.GET('/api/platform/pg-meta/{ref}/schemas', { params: { path: { ref: ref() } } }))).filter((s) => s.exposed).map((s) => s.name);
    const [tables, functions] = await Promise.all([
      must(api.GET('/api/platform/pg-meta/{ref}/tables', { params: { path: { ref: ref() }, query: { schema: schemas.join(','), include_columns: 'true' } } })),
      must(api.GET('/api/platform/pg-meta/{ref}/functions', { params: { path: { ref: ref() }, query: { schema: schemas.join(',') } } })),
    ]);
    return { tables, functions: functions.filter((f) => f.kind === 'function') };
  }, []);
  const table = data.value?.tables.find((t) => t.schema === chosenSchema && t.name === name);
  const fn = data.value?.functions.find((f) => f.schema === chosenSchema && f.name === name);
  const snippets = table ? tableSnippets(project.api_url, project.anon_key, table.schema, table.name, (table.columns ?? []).map((c) => c.name))
    : fn ? functionSnippets(project.api_url, project.anon_key, fn.schema, fn.name, fn.argument_types.split(',').map((a) => a.trim().split(' ')[0] ?? '').filter(Boolean)) : [];
  return (
    <div className="split">
      <nav className="subnav" aria-label="Tables and functions">
        <h2 className="folder">Tables</h2>
        <ul className="plain-list">{data.value?.tables.map((t) => <li key={t.id}><NavLink className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')} to={`/api-docs/${encodeURIComponent(t.schema)}/${encodeURIComponent(t.name)}`}>{t.name}</NavLink></li>)}</ul>
        <h2 className="folder">Functions</h2>
        <ul className="plain-list">{data.value?.functions.map((f) => <li key={f.id}><NavLink className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')} to={`/api-docs/${encodeURIComponent(f.schema)}/${encodeURIComponent(f.name)}`}>{f.name}()</NavLink></li>)}</ul>
      </nav>
      <div className="split-main">
        <div className="page-header">
          <h1>{table ? `Table ${table.name}` : fn ? `Function ${fn.name}` : 'API docs'}</h1>
          <div role="radiogroup" aria-label="Language" className="segmented">
            <label><input type="radio" name="lang" checked={lang === 'js'} onChange={() => setLang('js')} /> supabase-js</label>
            <label><input type="radio" name="lang" checked={lang === 'curl'} onChange={() => setLang('curl')} /> curl</label>
          </div>
        </div>
        <ErrorNote error={data.error} />
        {data.loading && !data.value ? <Loading what="the schema" /> : !table && !fn ? (
          <>
            <p>Your project&apos;s URL and anon key, for <code>createClient</code>:</p>
            <CodeBlock label="Creating the client">{`import { createClient } from '@supabase/supabase-js'\n\nconst supabase = createClient(\n  ${JSON.stringify(project.api_url)},\n  ${JSON.stringify(project.anon_key)}\n)`}</CodeBlock>
            <p>Choose a table or function for its calls. What the anon key (or a user&apos;s token) reaches is decided by row level security.</p>
          </>
        ) : (
          <>
            {table && table.exposed && !table.rls_enabled && <p className="warning" role="note">Row level security is off on this table: these calls with the anon key read and change every row.</p>}
            {table && <p className="muted">Columns: {(table.columns ?? []).map((c) => `${c.name} (${c.type})`).join(', ')}</p>}
            {snippets.map((s) => (
              <section key={s.title}>
                <h2>{s.title}</h2>
                <CodeBlock label={`${s.title}, ${lang === 'js' ? 'supabase-js' : 'curl'}`}>{lang === 'js' ? s.js : s.curl}</CodeBlock>
              </section>
            ))}
          </>
        )}
      </div>
    </div>
  );
}
