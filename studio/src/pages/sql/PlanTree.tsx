// EXPLAIN's plan as a tree: each node with its relation, rows and cost (and
// with ANALYZE, its own time: the node's total less its children's), the
// slowest node highlighted, so the cost of a query is seen where it is paid.
type PlanNode = Record<string, unknown> & { 'Node Type': string; Plans?: PlanNode[] };

const total = (n: PlanNode) => Number(n['Actual Total Time'] ?? 0) * Number(n['Actual Loops'] ?? 1);
/** The node's own time (ANALYZE), or its own cost (plan only). */
function own(n: PlanNode, analyzed: boolean): number {
  if (!analyzed) return Number(n['Total Cost'] ?? 0) - (n.Plans ?? []).reduce((s, c) => s + Number(c['Total Cost'] ?? 0), 0);
  return total(n) - (n.Plans ?? []).reduce((s, c) => s + total(c), 0);
}
function slowest(n: PlanNode, analyzed: boolean): PlanNode {
  return (n.Plans ?? []).map((c) => slowest(c, analyzed)).reduce((best, c) => (own(c, analyzed) > own(best, analyzed) ? c : best), n);
}

function Node({ node, analyzed, hot }: { node: PlanNode; analyzed: boolean; hot: PlanNode }) {
  const isHot = node === hot;
  const relation = typeof node['Relation Name'] === 'string' ? ` on ${String(node['Relation Name'])}` : '';
  return (
    <li className={isHot ? 'plan-node hot' : 'plan-node'}>
      <span className="plan-title">{node['Node Type']}{relation}</span>
      {isHot && <span className="badge badge-warn">slowest</span>}
      <span className="muted small">
        {analyzed ? ` ${own(node, true).toFixed(3)} ms own, ${Number(node['Actual Rows'] ?? 0).toLocaleString()} rows × ${String(node['Actual Loops'] ?? 1)} loops` : ` cost ${Number(node['Total Cost'] ?? 0).toFixed(2)}, ${Number(node['Plan Rows'] ?? 0).toLocaleString()} rows estimated`}
      </span>
      {node.Plans && node.Plans.length > 0 && <ul>{node.Plans.map((c, i) => <Node key={i} node={c} analyzed={analyzed} hot={hot} />)}</ul>}
    </li>
  );
}

export function PlanTree({ plan }: { plan: unknown }) {
  const top = (plan as Array<{ Plan: PlanNode; 'Execution Time'?: number; 'Planning Time'?: number }>)[0];
  if (!top) return <p>No plan.</p>;
  const analyzed = top['Execution Time'] !== undefined;
  return (
    <section className="plan" aria-label="Query plan">
      {analyzed && <p className="muted">Planning {top['Planning Time']?.toFixed(3)} ms, execution {top['Execution Time']?.toFixed(3)} ms (the statement ran in a transaction that was rolled back).</p>}
      <ul className="plan-tree"><Node node={top.Plan} analyzed={analyzed} hot={slowest(top.Plan, analyzed)} /></ul>
    </section>
  );
}
