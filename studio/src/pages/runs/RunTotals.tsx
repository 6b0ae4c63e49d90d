// A run's status and totals: duration, tokens, cost, its error, and the
// trace id (selectable, to paste into a tracing backend).
import type { RunRecord } from './runSource.ts';
import { runBadge } from './runStatus.ts';

export function RunTotals({ record }: { record: RunRecord }) {
  const ms = record.started_at ? (record.finished_at ? Date.parse(record.finished_at) : Date.now()) - Date.parse(record.started_at) : null;
  return (
    <dl className="facts run-totals">
      <div><dt>Status</dt><dd><span className={`badge ${runBadge(record.status)}`} data-testid="run-status">{record.status}</span></dd></div>
      <div><dt>Duration</dt><dd>{ms === null ? 'not started' : `${ms} ms`}</dd></div>
      <div><dt>Tokens</dt><dd>{record.tokens_in} in / {record.tokens_out} out</dd></div>
      <div><dt>Cost</dt><dd data-testid="run-cost">${record.cost_usd.toFixed(6)}</dd></div>
      <div><dt>Trace id</dt><dd>{record.trace_id ? <input readOnly className="mono" value={record.trace_id} aria-label="Trace id" onFocus={(e) => e.target.select()} /> : 'not traced'}</dd></div>
      {record.error && <div><dt>Error</dt><dd className="error-text">{record.error}</dd></div>}
    </dl>
  );
}
