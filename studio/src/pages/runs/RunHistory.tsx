// A run history: filters (status, since a date, at least a cost), a chart of
// runs and failures per day and one of cost per day, and the runs as a
// table, each linked to its run page.
import { useState } from 'react';
import { Link } from 'react-router';
import { BarChart } from '../ai/BarChart.tsx';
import { ENDED_BADLY as FAILED } from './runStatus.ts';

export type HistoryRun = { id: string; status: string; at: string; tokens_in: number; tokens_out: number; cost_usd: number; error: string | null; href: string };

const dayOf = (iso: string) => iso.slice(0, 10);

export function RunHistory({ runs }: { runs: HistoryRun[] }) {
  const [status, setStatus] = useState('');
  const [since, setSince] = useState('');
  const [minCost, setMinCost] = useState('');
  const shown = runs.filter((r) => (!status || r.status === status) && (!since || dayOf(r.at) >= since) && (!minCost || r.cost_usd >= Number(minCost)));
  const days = [...new Set(shown.map((r) => dayOf(r.at)))].sort();
  const per = (pick: (r: HistoryRun) => number) => days.map((d) => shown.filter((r) => dayOf(r.at) === d).reduce((n, r) => n + pick(r), 0));
  return (
    <div className="stack">
      <form className="field-row filter-form" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        <label>Status<select value={status} onChange={(e) => setStatus(e.target.value)}><option value="">any</option>{[...new Set(runs.map((r) => r.status))].map((s) => <option key={s}>{s}</option>)}</select></label>
        <label>Since<input type="date" value={since} onChange={(e) => setSince(e.target.value)} /></label>
        <label>Cost at least ($)<input type="number" min={0} step="0.0001" value={minCost} onChange={(e) => setMinCost(e.target.value)} /></label>
      </form>
      <p role="status">{shown.length} of {runs.length} runs, {shown.filter((r) => FAILED.has(r.status)).length} failed, ${shown.reduce((n, r) => n + r.cost_usd, 0).toFixed(6)}</p>
      <div className="charts">
        <BarChart title="Runs per day" labels={days} series={[
          { name: 'ended well', values: per((r) => (FAILED.has(r.status) ? 0 : 1)) },
          { name: 'failed or cancelled', values: per((r) => (FAILED.has(r.status) ? 1 : 0)) },
        ]} format={(v) => `${v} runs`} />
        <BarChart title="Cost per day" labels={days} series={[{ name: 'cost', values: per((r) => r.cost_usd) }]} format={(v) => `$${v.toFixed(6)}`} />
      </div>
      <table className="list-table">
        <caption className="sr-only">Runs</caption>
        <thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">Error</th></tr></thead>
        <tbody>{shown.map((r) => (
          <tr key={r.id} className={FAILED.has(r.status) ? 'span-failed' : undefined}>
            <td><Link to={r.href} className="mono small">{r.id.slice(0, 8)}</Link></td><td>{r.status}</td><td>{new Date(r.at).toLocaleString()}</td>
            <td className="num">{r.tokens_in} / {r.tokens_out}</td><td className="num">${r.cost_usd.toFixed(6)}</td><td className="error-text small">{r.error ?? ''}</td>
          </tr>
        ))}</tbody>
      </table>
    </div>
  );
}
