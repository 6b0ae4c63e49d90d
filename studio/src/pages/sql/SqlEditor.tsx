// The SQL editor (/sql, /sql/<snippet id>): run the whole text or the
// selection (Ctrl+Enter), EXPLAIN it as a plan tree, cancel a run, save it
// as a snippet (names and folders, per operator, kept in the database), and
// find what ran in the history. Results show in a grid (10,000 rows at
// most; the server says when it cut more); an error marks its position.
import type { SQLNamespace } from '@codemirror/lang-sql';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { ApiFailure, api, must, ref, type components } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { CodeEditor, type CodeEditorHandle } from './CodeEditor.tsx';
import { PlanTree } from './PlanTree.tsx';
import { SaveSnippet } from './SaveSnippet.tsx';
import { ResultsGrid } from './ResultsGrid.tsx';
import { SnippetPanel } from './SnippetPanel.tsx';

type Answer = components['schemas']['QueryAnswer'];
const rows = (n: number) => `${n.toLocaleString()} row${n === 1 ? '' : 's'}`;

export default function SqlEditor() {
  const { snippet: snippetId } = useParams();
  const navigate = useNavigate();
  const notify = useToast();
  const editor = useRef<CodeEditorHandle>(null);
  const [text, setText] = useState('select 1;');
  const [running, setRunning] = useState<string>();
  const [answer, setAnswer] = useState<Answer>();
  const [error, setError] = useState<ApiFailure>();
  const [saving, setSaving] = useState(false);
  const snippets = useAsync(() => must(api.GET('/api/platform/studio/snippets')), []);
  const history = useAsync(() => must(api.GET('/api/platform/studio/history')), []);
  const catalogue = useAsync(async () => {
    const [tables, functions] = await Promise.all([
      must(api.GET('/api/platform/pg-meta/{ref}/tables', { params: { path: { ref: ref() }, query: { include_columns: 'true' } } })),
      must(api.GET('/api/platform/pg-meta/{ref}/functions', { params: { path: { ref: ref() } } })),
    ]);
    const schema: Record<string, Record<string, string[]>> = {};
    for (const t of tables) (schema[t.schema] ??= {})[t.name] = (t.columns ?? []).map((c) => c.name);
    return { schema: schema as SQLNamespace, functions: [...new Set(functions.map((f) => `${f.schema}.${f.name}`))] };
  }, []);
  const current = snippets.value?.find((s) => s.id === snippetId);

  useEffect(() => {
    if (current) editor.current?.setText(current.sql);
  }, [current?.id]); // eslint-disable-line react-hooks/exhaustive-deps

  const run = async (explain?: 'plan' | 'analyze') => {
    if (running) return;
    const { text: query, from } = editor.current!.runText();
    if (!query.trim()) return;
    const runId = crypto.randomUUID();
    setRunning(runId);
    setError(undefined);
    try {
      const result = await must(api.POST('/api/platform/pg-meta/{ref}/query', { params: { path: { ref: ref() } }, body: { query, run_id: runId, ...(explain ? { explain } : {}) } }));
      // With ResultsGrid's 'studio-results-painted': the rendering's time, for `npm run bench:studio`.
      performance.mark('studio-query-answered');
      setAnswer(result);
      // What a statement other than a query changed may be new names to complete.
      if (!explain && result.command && !['SELECT', 'EXPLAIN', 'SHOW'].includes(result.command)) catalogue.reload();
    } catch (e) {
      const failure = e instanceof ApiFailure ? e : new ApiFailure(0, { message: (e as Error).message });
      setError(failure);
      setAnswer(undefined);
      if (failure.position) {
        const at = from + failure.position - 1;
        const word = /^[\w."]+/.exec(query.slice(failure.position - 1))?.[0].length ?? 1;
        editor.current!.markError(at, at + word);
      }
    } finally {
      setRunning(undefined);
      history.reload();
    }
  };
  const cancel = async () => {
    if (running) await must(api.POST('/api/platform/pg-meta/{ref}/query/{run_id}/cancel', { params: { path: { ref: ref(), run_id: running } } }));
  };

  return (
    <div className="split">
      <SnippetPanel snippets={snippets.value ?? []} history={history.value ?? []} onOpenText={(sql) => { navigate('/sql'); editor.current?.setText(sql); }} />
      <div className="split-main sql-page">
        <div className="page-header">
          <h1>{current ? current.name : 'SQL editor'}</h1>
          {current && <span className="muted">{current.folder || 'No folder'}</span>}
        </div>
        <div className="toolbar" role="toolbar" aria-label="Query actions">
          <button type="button" className="primary" disabled={!!running} onClick={() => void run()} aria-keyshortcuts="Control+Enter Meta+Enter">Run</button>
          <button type="button" disabled={!!running} onClick={() => void run('plan')}>Explain</button>
          <button type="button" disabled={!!running} onClick={() => void run('analyze')}>Explain analyze</button>
          <button type="button" disabled={!running} onClick={() => void cancel()}>Cancel</button>
          <button type="button" onClick={() => setSaving(true)}>{current ? 'Save' : 'Save as snippet'}</button>
          {running && <span role="status" className="muted">Running…</span>}
        </div>
        {catalogue.value ? (
          <CodeEditor ref={editor} initial={current?.sql ?? text} schema={catalogue.value.schema} functions={catalogue.value.functions} onRun={() => void run()} onChange={setText} />
        ) : <p className="muted" role="status">Reading the database for completion…</p>}
        <section className="results-area" aria-label="Result">
          {error && (
            <div className="error-note" role="alert">
              <strong>{error.code === 'query_failed' ? 'The query failed' : 'Error'}:</strong> {error.message}
              {error.position ? <span className="muted"> (at character {error.position})</span> : null}
            </div>
          )}
          {answer?.plan !== undefined ? <PlanTree plan={answer.plan} /> : answer && (
            <>
              <p className="muted" role="status">
                {answer.columns.length > 0 ? rows(answer.row_count ?? 0) : `${answer.command ?? 'Done'}${answer.row_count !== null ? `: ${rows(answer.row_count)}` : ''}`}, {answer.duration_ms} ms
              </p>
              {answer.truncated && <p className="warning" role="note">Only the first {answer.rows.length.toLocaleString()} of {(answer.row_count ?? 0).toLocaleString()} rows are shown: add a limit, or export from the table editor.</p>}
              {answer.columns.length > 0 && <ResultsGrid columns={answer.columns} rows={answer.rows} />}
            </>
          )}
        </section>
      </div>
      {saving && <SaveSnippet current={current} text={text} onClose={() => setSaving(false)} onSaved={(id) => { snippets.reload(); notify('Snippet saved'); navigate(`/sql/${id}`); }} />}
    </div>
  );
}
