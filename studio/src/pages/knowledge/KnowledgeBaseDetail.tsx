// One knowledge base: how indexing stands (refreshed while it runs), its
// sources with their state, a source added, the full-text (BM25) index
// built, the search playground, and an evaluation of queries against the
// sources they should find.
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Evaluation } from './Evaluation.tsx';
import { KnowledgeNav } from './KnowledgeNav.tsx';
import { SearchPlayground } from './SearchPlayground.tsx';

export default function KnowledgeBaseDetail() {
  const { id = '' } = useParams();
  const kb = useAsync(() => must(ai.GET('/api/knowledge-bases/{id}', { params: { path: { id } } })), [id]);
  const sources = useAsync(() => must(ai.GET('/api/sources')), []);
  const k = kb.value;
  const busy = !!k && (k.status.pending + k.status.indexing > 0 || /build|queued|running/.test(k.bm25_status));
  useEffect(() => {
    if (!busy) return;
    const t = setInterval(kb.reload, 1000);
    return () => clearInterval(t);
  }, [busy, kb.reload]);
  const [choice, setChoice] = useState('');
  const notify = useToast();
  const act = (what: () => Promise<unknown>, done: string) => void what().then(() => { notify(done); kb.reload(); }, (e: Error) => notify(e.message, 'error'));
  if (!k) return <div className="split"><KnowledgeNav /><div className="split-main">{kb.error ? <ErrorNote error={kb.error} /> : <Loading what="the knowledge base" />}</div></div>;
  const inIt = new Set(k.sources.map((s) => s.source_id));
  const total = k.status.sources || 1;
  return (
    <div className="split">
      <KnowledgeNav />
      <div className="split-main">
        <div className="page-header">
          <h1><Link to="/knowledge/bases">Knowledge bases</Link> / {k.name}</h1>
          <div className="page-actions">
            <span className="small">Full-text index: <strong data-testid="bm25-status">{k.bm25_status}</strong></span>
            <button type="button" onClick={() => act(() => must(ai.POST('/api/knowledge-bases/{id}/build-bm25', { params: { path: { id } } })), 'Building the full-text index')}>Build full-text index</button>
          </div>
        </div>
        <p role="status">
          {k.strategy}: {k.status.indexed} of {k.status.sources} sources indexed{k.status.indexing ? `, ${k.status.indexing} indexing` : ''}{k.status.pending ? `, ${k.status.pending} waiting` : ''}{k.status.failed ? `, ${k.status.failed} failed` : ''}; {k.status.items} items
        </p>
        {busy && <progress max={total} value={k.status.indexed + k.status.failed} aria-label="Indexing progress" />}
        <table className="list-table">
          <caption className="sr-only">Sources of this knowledge base</caption>
          <thead><tr><th scope="col">Source</th><th scope="col">Indexing</th><th scope="col">Indexed at</th><th scope="col">Error</th></tr></thead>
          <tbody>
            {k.sources.map((s) => (
              <tr key={s.id}><td><Link to={`/knowledge/sources/${s.source_id}`}>{s.source_name}</Link></td><td>{s.index_status}</td><td>{s.indexed_at ? new Date(s.indexed_at).toLocaleString() : ''}</td><td className="error-text">{s.error_message ?? ''}</td></tr>
            ))}
          </tbody>
        </table>
        <form className="field-row" onSubmit={(e) => { e.preventDefault(); if (choice) act(() => must(ai.POST('/api/knowledge-bases/{id}/sources', { params: { path: { id } }, body: { source_id: choice } })), 'Indexing the source'); setChoice(''); }}>
          <label>Add a source
            <select value={choice} onChange={(e) => setChoice(e.target.value)}>
              <option value="">Choose an extracted source</option>
              {sources.value?.filter((s) => s.extraction_status === 'extracted' && !inIt.has(s.id)).map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
            </select>
          </label>
          <button type="submit" disabled={!choice}>Add</button>
        </form>
        <SearchPlayground kbId={id} />
        <Evaluation kbId={id} sources={k.sources.map((s) => ({ id: s.source_id, name: s.source_name }))} />
      </div>
    </div>
  );
}
