// The evaluation endpoint as a small table: queries, each with the source it
// should find; the methods compared by nDCG@10, recall and MRR.
import { useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';

type Row = { query: string; source: string };
type Metrics = Record<string, Record<string, number>>;

export function Evaluation({ kbId, sources }: { kbId: string; sources: Array<{ id: string; name: string }> }) {
  const [rows, setRows] = useState<Row[]>([{ query: '', source: '' }]);
  const [metrics, setMetrics] = useState<Metrics | null>(null);
  const [error, setError] = useState<Error>();
  const set = (i: number, patch: Partial<Row>) => setRows((all) => all.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const run = async () => {
    try {
      const queries = rows.filter((r) => r.query.trim() && r.source).map((r) => ({ query: r.query, relevant_source_ids: [r.source] }));
      const out = (await must(ai.POST('/api/knowledge-bases/{id}/evaluate', { params: { path: { id: kbId } }, body: { queries } }))) as { methods?: Metrics };
      setMetrics(out.methods ?? null);
      setError(undefined);
    } catch (err) {
      setError(err as Error);
    }
  };
  const names = metrics ? [...new Set(Object.values(metrics).flatMap((m) => Object.keys(m)))] : [];
  return (
    <section aria-labelledby="evaluate-title">
      <h2 id="evaluate-title">Evaluate</h2>
      <table className="list-table">
        <caption className="sr-only">Queries and the source each should find</caption>
        <thead><tr><th scope="col">Query</th><th scope="col">Should find</th></tr></thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <td><input aria-label={`Query ${i + 1}`} value={r.query} onChange={(e) => set(i, { query: e.target.value })} /></td>
              <td><select aria-label={`Source for query ${i + 1}`} value={r.source} onChange={(e) => set(i, { source: e.target.value })}>
                <option value="">Choose</option>{sources.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
              </select></td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="inline-group">
        <button type="button" onClick={() => setRows((all) => [...all, { query: '', source: '' }])}>Add a query</button>
        <button type="button" onClick={() => void run()}>Evaluate</button>
      </div>
      <ErrorNote error={error} />
      {metrics && (
        <table className="list-table">
          <caption>Metrics by method</caption>
          <thead><tr><th scope="col">Method</th>{names.map((n) => <th key={n} scope="col">{n}</th>)}</tr></thead>
          <tbody>{Object.entries(metrics).map(([m, v]) => <tr key={m}><th scope="row">{m}</th>{names.map((n) => <td key={n} className="num">{typeof v[n] === 'number' ? v[n].toFixed(3) : ''}</td>)}</tr>)}</tbody>
        </table>
      )}
    </section>
  );
}
