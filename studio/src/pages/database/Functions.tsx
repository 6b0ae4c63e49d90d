// Functions with their source, by schema; the platform's marked as such.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { CodeBlock } from '../../components/CodeBlock.tsx';

export function Functions() {
  const [schema, setSchema] = useState('public');
  const schemas = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/schemas', { params: { path: { ref: ref() } } })), []);
  const list = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/functions', { params: { path: { ref: ref() }, query: { schema } } })), [schema]);
  return (
    <>
      <PageHeader title="Functions">
        <label>Schema
          <select value={schema} onChange={(e) => setSchema(e.target.value)}>
            {(schemas.value ?? []).map((s) => <option key={s.name} value={s.name}>{s.name}</option>)}
          </select>
        </label>
      </PageHeader>
      <ErrorNote error={list.error} />
      {list.loading && !list.value ? <Loading what="functions" /> : list.value?.length === 0 ? <p>No functions in {schema}.</p> : (
        <ul className="card-list">
          {list.value?.map((f) => (
            <li key={f.id} className="card">
              <details>
                <summary><span className="mono">{f.schema}.{f.name}({f.argument_types})</span> <span className="muted small">returns {f.return_type} · {f.language} · {f.behavior}{f.security_definer ? ' · security definer' : ''}</span></summary>
                <CodeBlock className="sql-preview" label={`Source of ${f.schema}.${f.name}`}>{f.complete_statement ?? f.definition ?? '(built in)'}</CodeBlock>
              </details>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
