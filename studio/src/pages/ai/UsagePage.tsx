// What the AI surface spent: tokens and cost per day by model (charts, the
// numbers in tables under them), by feature, agent and workflow, the credits
// left, over the last 7, 30 or 90 days.
import { useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { AiNav } from './AiNav.tsx';
import { BarChart } from './BarChart.tsx';

type Row = { calls: number; tokens_in: number; tokens_out: number; cost_usd: number };
type Report = {
  totals: Row; credits_usd: number | string | null;
  by_day: Array<Row & { day: string; model: string; provider: string }>; by_model: Array<Row & { model: string; provider: string }>;
  by_feature: Array<Row & { feature: string }>; by_agent: Array<Row & { agent_id: string; name: string | null }>; by_workflow: Array<Row & { workflow_id: string; name: string | null }>;
};
const usd = (v: number | string | null | undefined) => `$${Number(v ?? 0).toFixed(6)}`;
const days = (n: number) => Array.from({ length: n }, (_, i) => new Date(Date.now() - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));

function Table({ caption, name, rows }: { caption: string; name: string; rows: Array<Row & { label: string }> }) {
  return (
    <table className="list-table">
      <caption>{caption}</caption>
      <thead><tr><th scope="col">{name}</th><th scope="col">Calls</th><th scope="col">Tokens in</th><th scope="col">Tokens out</th><th scope="col">Cost</th></tr></thead>
      <tbody>{rows.length === 0 ? <tr><td colSpan={5} className="muted">Nothing yet.</td></tr> : rows.map((r) => (
        <tr key={r.label}><th scope="row">{r.label}</th><td className="num">{r.calls}</td><td className="num">{r.tokens_in}</td><td className="num">{r.tokens_out}</td><td className="num">{usd(r.cost_usd)}</td></tr>
      ))}</tbody>
    </table>
  );
}

export default function UsagePage() {
  const [span, setSpan] = useState(7);
  const report = useAsync(async () => (await must(ai.GET('/api/usage', { params: { query: { from: new Date(Date.now() - span * 86_400_000).toISOString(), limit: 1 } } }))) as unknown as Report, [span]);
  const r = report.value;
  const labels = days(span);
  const models = [...new Set(r?.by_day.map((d) => d.model) ?? [])];
  const per = (model: string, field: 'tokens_in' | 'cost_usd') => labels.map((day) => r?.by_day.filter((d) => d.day === day && d.model === model).reduce((sum, d) => sum + Number(field === 'tokens_in' ? d.tokens_in + d.tokens_out : d.cost_usd), 0) ?? 0);
  return (
    <div className="split">
      <AiNav />
      <div className="split-main">
        <PageHeader title="Usage">
          <label className="inline-group">Over the last
            <select value={span} onChange={(e) => setSpan(Number(e.target.value))}><option value={7}>7 days</option><option value={30}>30 days</option><option value={90}>90 days</option></select>
          </label>
        </PageHeader>
        <ErrorNote error={report.error} />
        {r && (
          <>
            <p role="status" data-testid="usage-totals">{r.totals.calls} model calls, {r.totals.tokens_in} tokens in and {r.totals.tokens_out} out, {usd(r.totals.cost_usd)}; credits {usd(r.credits_usd)}</p>
            <div className="charts">
              <BarChart title="Tokens per day" labels={labels} series={models.map((m) => ({ name: m, values: per(m, 'tokens_in') }))} format={(v) => `${Math.round(v)} tokens`} />
              <BarChart title="Cost per day" labels={labels} series={models.map((m) => ({ name: m, values: per(m, 'cost_usd') }))} format={usd} />
            </div>
            <Table caption="By model" name="Model" rows={r.by_model.map((m) => ({ ...m, label: `${m.provider}/${m.model}` }))} />
            <Table caption="By feature" name="Feature" rows={r.by_feature.map((f) => ({ ...f, label: f.feature }))} />
            <Table caption="By agent" name="Agent" rows={r.by_agent.map((a) => ({ ...a, label: a.name ?? a.agent_id }))} />
            <Table caption="By workflow" name="Workflow" rows={r.by_workflow.map((w) => ({ ...w, label: w.name ?? w.workflow_id }))} />
          </>
        )}
      </div>
    </div>
  );
}
