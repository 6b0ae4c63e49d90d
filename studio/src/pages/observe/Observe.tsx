// The server's figures for an operator without Prometheus, refreshed every
// two seconds (or paused): requests per interval by surface (a chart of the last
// minute), errors and latency percentiles per surface, the job queue, runs
// not yet ended by status, realtime connections and model calls.
import { useEffect, useState } from 'react';
import type { components } from '../../api/client.ts';
import { api, must, ref } from '../../api/client.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { BarChart } from '../ai/BarChart.tsx';

type Observation = components['schemas']['Observation'];
const KEEP = 30;

export default function Observe() {
  const [samples, setSamples] = useState<Observation[]>([]);
  const [error, setError] = useState<Error>();
  const [paused, setPaused] = useState(false);
  useEffect(() => {
    if (paused) return;
    let live = true;
    const read = () => void must(api.GET('/api/platform/observe/{ref}', { params: { path: { ref: ref() } } })).then(
      (o) => { if (live) { setSamples((all) => [...all.slice(-(KEEP - 1)), o]); setError(undefined); } },
      (e: Error) => live && setError(e),
    );
    read();
    const t = setInterval(read, 2000);
    return () => { live = false; clearInterval(t); };
  }, [paused]);
  const now = samples.at(-1);
  const surfaces = [...new Set(samples.flatMap((s) => s.surfaces.map((x) => x.surface)))];
  // Requests in each interval: the counters' growth from one sample to the next.
  const intervals = samples.slice(1).map((s, i) => ({ at: s.at, by: new Map(s.surfaces.map((x) => [x.surface, x.requests - (samples[i]!.surfaces.find((y) => y.surface === x.surface)?.requests ?? 0)])) }));
  return (
    <div className="single">
      <PageHeader title="Observe">
        <span className="small muted" role="status">{now ? `As of ${new Date(now.at).toLocaleTimeString()}${paused ? ' (paused)' : ''}` : 'Reading…'}</span>
        <button type="button" aria-pressed={paused} onClick={() => setPaused((p) => !p)}>{paused ? 'Resume' : 'Pause'}</button>
      </PageHeader>
      <ErrorNote error={error} />
      {now && (
        <>
          <BarChart title="Requests per 2 s, by surface" labels={intervals.map((i) => i.at)} short={(l) => l.slice(14, 19)}
            series={surfaces.map((s) => ({ name: s, values: intervals.map((i) => i.by.get(s) ?? 0) }))} format={(v) => `${v} requests`} />
          <table className="list-table">
            <caption>Requests since the server started</caption>
            <thead><tr><th scope="col">Surface</th><th scope="col">Requests</th><th scope="col">4xx</th><th scope="col">5xx</th><th scope="col">p50</th><th scope="col">p95</th><th scope="col">p99</th></tr></thead>
            <tbody>{now.surfaces.map((s) => (
              <tr key={s.surface} className={s.server_errors > 0 ? 'span-failed' : undefined}>
                <th scope="row">{s.surface}</th><td className="num">{s.requests}</td><td className="num">{s.client_errors}</td><td className="num">{s.server_errors}</td>
                {[s.p50_ms, s.p95_ms, s.p99_ms].map((v, i) => <td key={i} className="num">{v === null ? '' : `≤ ${v} ms`}</td>)}
              </tr>
            ))}</tbody>
          </table>
          <div className="charts">
            <table className="list-table">
              <caption>Job queue</caption>
              <thead><tr><th scope="col">Task</th><th scope="col">Queued</th><th scope="col">Oldest due</th></tr></thead>
              <tbody>{now.jobs.length === 0 ? <tr><td colSpan={3} className="muted">Empty.</td></tr> : now.jobs.map((j) => <tr key={j.task}><th scope="row">{j.task}</th><td className="num">{j.queued}</td><td className="num">{Math.round(j.oldest_due_s)} s</td></tr>)}</tbody>
            </table>
            <table className="list-table">
              <caption>Runs not yet ended</caption>
              <thead><tr><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Runs</th></tr></thead>
              <tbody>{now.runs.length === 0 ? <tr><td colSpan={3} className="muted">None.</td></tr> : now.runs.map((r) => <tr key={`${r.kind}:${r.status}`}><th scope="row">{r.kind}</th><td>{r.status}</td><td className="num">{r.count}</td></tr>)}</tbody>
            </table>
          </div>
          <p>Realtime: {now.realtime.connections} connections, {now.realtime.channels} channels. Model calls: {now.models.reduce((n, m) => n + m.calls, 0)}{now.models.some((m) => m.outcome !== 'ok') ? `, ${now.models.filter((m) => m.outcome !== 'ok').reduce((n, m) => n + m.calls, 0)} failed` : ''}.</p>
        </>
      )}
    </div>
  );
}
