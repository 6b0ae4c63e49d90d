// Searching a knowledge base as an agent would: a query, the method (full
// text, vector, hybrid with its weight), reranking on or off; each hit with
// its scores, the source and page it came from, and a click opens the page
// with the passage outlined. Hits are text from documents: shown as text.
import { useState, type FormEvent } from 'react';
import type { components } from '../../api/ai/index.ts';
import { ai, must } from '../../api/client.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageViewer } from './PageViewer.tsx';

type Hit = components['schemas']['SearchResult'] & { meta: { page?: number; bbox?: [number, number, number, number] } };

export function SearchPlayground({ kbId }: { kbId: string }) {
  const [query, setQuery] = useState('');
  const [method, setMethod] = useState('hybrid');
  const [weight, setWeight] = useState(0.5);
  const [rerank, setRerank] = useState(false);
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [open, setOpen] = useState<Hit | null>(null);
  const [error, setError] = useState<Error>();
  const search = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const answer = await must(ai.POST('/api/knowledge-bases/{id}/search', { params: { path: { id: kbId } }, body: {
        query, method, ...(method === 'hybrid' ? { vector_weight: weight } : {}), reranker: rerank ? {} : null,
      } }));
      setHits(answer.results.filter((r): r is Hit => !('_type' in r && r._type === 'retrieval_diagnostics')) as Hit[]);
      setOpen(null);
      setError(undefined);
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <section aria-labelledby="search-title" className="search-playground">
      <h2 id="search-title">Search</h2>
      <form className="field-row" onSubmit={(e) => void search(e)} role="search">
        <label>Query<input required value={query} onChange={(e) => setQuery(e.target.value)} /></label>
        <label>Method
          <select value={method} onChange={(e) => setMethod(e.target.value)}>
            <option value="full_text">Full text (BM25)</option><option value="vector_search">Vector similarity</option><option value="hybrid">Hybrid</option>
          </select>
        </label>
        {method === 'hybrid' && <label>Vector weight {weight.toFixed(2)}<input type="range" min={0} max={1} step={0.05} value={weight} onChange={(e) => setWeight(Number(e.target.value))} /></label>}
        <label className="inline-group"><input type="checkbox" checked={rerank} onChange={(e) => setRerank(e.target.checked)} />Rerank</label>
        <button type="submit" className="primary">Search</button>
      </form>
      <ErrorNote error={error} />
      {hits && (hits.length === 0 ? <p className="empty">No hits.</p> : (
        <ol className="plain-list hits" aria-label="Hits">
          {hits.map((h) => (
            <li key={h.id} className="card">
              <div className="card-head">
                <strong>{h.source_name}</strong>
                <span className="small">score {h.score.toFixed(3)}{h.retrieval_score != null ? ` · retrieval ${h.retrieval_score.toFixed(3)}` : ''}{h.reranker_score != null ? ` · reranker ${h.reranker_score.toFixed(3)}` : ''}</span>
                {h.meta.page !== undefined && <button type="button" onClick={() => setOpen(h)}>Page {h.meta.page}</button>}
              </div>
              <p className="hit-text">{h.text}</p>
            </li>
          ))}
        </ol>
      ))}
      {open && open.meta.page !== undefined && (
        <div className="hit-page">
          <h3>{open.source_name}, page {open.meta.page}</h3>
          <PageViewer sourceId={open.source_id} page={open.meta.page} highlight={open.meta.bbox ?? null} />
        </div>
      )}
    </section>
  );
}
