// A run's span tree as a Gantt chart: one row per span (run, steps, blocks,
// model calls, tool calls, delegations, approvals), indented by depth, its
// bar placed on the run's time axis, with duration, model, tokens and cost;
// a failed span in red with its error. A span still open runs to now.
import { useLayoutEffect } from 'react';
import type { Span } from './runSource.ts';

type Row = { span: Span; depth: number; from: number; to: number };

function rowsOf(root: Span): { rows: Row[]; start: number; end: number } {
  const rows: Row[] = [];
  const now = Date.now();
  const walk = (span: Span, depth: number) => {
    const from = span.start ? Date.parse(span.start) : NaN;
    const to = Number.isFinite(from) ? (span.duration_ms === null ? now : from + span.duration_ms) : NaN;
    rows.push({ span, depth, from, to });
    for (const child of span.children ?? []) walk(child, depth + 1);
  };
  walk(root, 0);
  const timed = rows.filter((r) => Number.isFinite(r.from));
  const start = Math.min(...timed.map((r) => r.from));
  const end = Math.max(start + 1, ...timed.map((r) => r.to));
  return { rows, start, end };
}

const failed = (s: Span) => s.ok === false || !!s.error || s.status === 'failed';
const money = (usd: number | undefined) => (usd ? `$${usd.toFixed(usd < 0.01 ? 6 : 4)}` : '');

export function Timeline({ root }: { root: Span }) {
  const { rows, start, end } = rowsOf(root);
  // The first frame after the first timeline is in the page (bench:studio's figure).
  useLayoutEffect(() => {
    if (performance.getEntriesByName('studio-timeline-painted').length > 0) return;
    const frame = requestAnimationFrame(() => performance.mark('studio-timeline-painted'));
    return () => cancelAnimationFrame(frame);
  }, []);
  const span = end - start;
  return (
    <div className="timeline table-scroll">
      <table className="list-table timeline-table">
        <caption className="sr-only">Timeline: each span with its duration, model, tokens and cost</caption>
        <thead><tr><th scope="col">Span</th><th scope="col">Kind</th><th scope="col">Duration</th><th scope="col">Model</th><th scope="col">Tokens in / out</th><th scope="col">Cost</th><th scope="col" className="timeline-axis">Time</th></tr></thead>
        <tbody>
          {rows.map((r, i) => {
            const bad = failed(r.span);
            const left = Number.isFinite(r.from) ? ((r.from - start) / span) * 100 : 0;
            const width = Number.isFinite(r.from) ? Math.max(0.4, ((r.to - r.from) / span) * 100) : 0;
            return (
              <tr key={i} className={bad ? 'span-failed' : undefined} data-kind={r.span.kind}>
                <th scope="row" className="span-name" data-depth={Math.min(r.depth, 8)}>{r.span.name}{bad && r.span.error ? <span className="error-text small"> · {r.span.error}</span> : null}</th>
                <td>{r.span.kind.replace('_', ' ')}</td>
                <td className="num">{r.span.duration_ms === null ? 'running' : `${r.span.duration_ms} ms`}</td>
                <td className="mono small">{r.span.model ?? ''}</td>
                <td className="num">{r.span.tokens_in !== undefined ? `${r.span.tokens_in} / ${r.span.tokens_out ?? 0}` : ''}</td>
                <td className="num">{money(r.span.cost_usd)}</td>
                <td className="timeline-axis"><div className="gantt-lane"><div className={`gantt-bar kind-${r.span.kind}${bad ? ' bar-failed' : ''}`} style={{ left: `${left}%`, width: `${width}%` }} /></div></td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
