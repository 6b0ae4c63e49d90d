// GET /api/platform/observe/{ref}: what /metrics says, summed up for an
// operator without Prometheus (the Studio's Observe page polls it): requests
// and errors per surface with latency percentiles (from the histogram's
// buckets, so a percentile is the bucket bound it falls under), the job
// queue, runs not yet ended by status, realtime connections and model calls.
// The same registry /metrics renders, read in-process: no service key
// reaches the browser.
import express, { type Router } from 'express';
import type pg from 'pg';
import { route } from '../errors.ts';
import { refreshDatabaseGauges, registry } from '../telemetry/metrics.ts';

type Sample = { labels: Record<string, string | number | undefined>; value: number; metricName?: string };
type Metric = { name: string; values: Sample[] };

/** The smallest bucket bound under which a share `q` of the observations fall (null: none observed). */
function percentile(buckets: Array<{ le: number; count: number }>, total: number, q: number): number | null {
  if (total === 0) return null;
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  for (const b of sorted) if (b.count >= q * total) return b.le;
  return sorted.at(-1)?.le ?? null;
}

export function summarise(metrics: Metric[], at = new Date()) {
  const find = (name: string) => metrics.find((m) => m.name === name)?.values ?? [];
  const surfaces = new Map<string, { requests: number; client_errors: number; server_errors: number }>();
  for (const s of find('pgbase_http_requests_total')) {
    const surface = String(s.labels.surface ?? 'other');
    const status = Number(s.labels.status ?? 0);
    const row = surfaces.get(surface) ?? { requests: 0, client_errors: 0, server_errors: 0 };
    row.requests += s.value;
    if (status >= 500) row.server_errors += s.value;
    else if (status >= 400) row.client_errors += s.value;
    surfaces.set(surface, row);
  }
  // Buckets summed over routes, methods and statuses: one latency curve per surface.
  const latency = new Map<string, { buckets: Map<number, number>; count: number }>();
  for (const s of find('pgbase_http_request_duration_seconds')) {
    const surface = String(s.labels.surface ?? 'other');
    const l = latency.get(surface) ?? { buckets: new Map(), count: 0 };
    if (s.metricName?.endsWith('_bucket')) {
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      l.buckets.set(le, (l.buckets.get(le) ?? 0) + s.value);
    } else if (s.metricName?.endsWith('_count')) l.count += s.value;
    latency.set(surface, l);
  }
  const ms = (v: number | null) => (v === null ? null : Number.isFinite(v) ? Math.round(v * 1000) : null);
  return {
    at: at.toISOString(),
    surfaces: [...surfaces].map(([surface, r]) => {
      const l = latency.get(surface);
      const buckets = l ? [...l.buckets].map(([le, count]) => ({ le, count })) : [];
      const total = l?.count ?? 0;
      return { surface, ...r, p50_ms: ms(percentile(buckets, total, 0.5)), p95_ms: ms(percentile(buckets, total, 0.95)), p99_ms: ms(percentile(buckets, total, 0.99)) };
    }).sort((a, b) => b.requests - a.requests),
    jobs: find('pgbase_jobs_queued').map((s) => ({ task: String(s.labels.task), queued: s.value,
      oldest_due_s: find('pgbase_jobs_oldest_due_age_seconds').find((o) => o.labels.task === s.labels.task)?.value ?? 0 })),
    runs: find('pgbase_runs').map((s) => ({ kind: String(s.labels.kind), status: String(s.labels.status), count: s.value })),
    realtime: { connections: find('pgbase_realtime_connections')[0]?.value ?? 0, channels: find('pgbase_realtime_channels')[0]?.value ?? 0 },
    models: find('pgbase_model_calls_total').map((s) => ({ provider: String(s.labels.provider), model: String(s.labels.model), kind: String(s.labels.kind), outcome: String(s.labels.outcome), calls: s.value })),
  };
}

export function observeRoutes(opts: { pool: pg.Pool }): Router {
  const r = express.Router({ mergeParams: true });
  r.get('/', route(async (_req, res) => {
    // The database's part (queue, runs) is best effort, as for /metrics.
    await refreshDatabaseGauges(opts.pool).catch(() => undefined);
    res.set('cache-control', 'no-store').json(summarise((await registry.getMetricsAsJSON()) as unknown as Metric[]));
  }));
  return r;
}
