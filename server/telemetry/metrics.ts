// Prometheus metrics (prom-client), one registry per process: counters and
// histograms are moved where things happen (requests, jobs, model calls,
// realtime, extraction, runs); pools, the job queue and runs in progress are
// read when /metrics is scraped.
import client from 'prom-client';
import type pg from 'pg';

export const registry = new client.Registry();
// The process's own (memory, CPU, event loop lag, GC): pgbase_process_* and pgbase_nodejs_*.
client.collectDefaultMetrics({ register: registry, prefix: 'pgbase_' });

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const metrics = {
  requests: new client.Counter({ name: 'pgbase_http_requests_total', help: 'HTTP requests answered, by surface, route template, method and status', labelNames: ['surface', 'route', 'method', 'status'], registers: [registry] }),
  requestSeconds: new client.Histogram({ name: 'pgbase_http_request_duration_seconds', help: 'HTTP request latency, by surface, route template, method and status', labelNames: ['surface', 'route', 'method', 'status'], buckets: SECONDS, registers: [registry] }),
  jobSeconds: new client.Histogram({ name: 'pgbase_job_duration_seconds', help: 'graphile-worker job run time, by task and outcome', labelNames: ['task', 'outcome'], buckets: SECONDS, registers: [registry] }),
  modelCalls: new client.Counter({ name: 'pgbase_model_calls_total', help: 'Model calls, by provider, model, kind (chat, embedding) and outcome', labelNames: ['provider', 'model', 'kind', 'outcome'], registers: [registry] }),
  modelTokens: new client.Counter({ name: 'pgbase_model_tokens_total', help: 'Model tokens, by provider, model and direction (input, output)', labelNames: ['provider', 'model', 'direction'], registers: [registry] }),
  modelCost: new client.Counter({ name: 'pgbase_model_cost_usd_total', help: 'Model cost in US dollars as the usage ledger records it, by provider and model', labelNames: ['provider', 'model'], registers: [registry] }),
  modelSeconds: new client.Histogram({ name: 'pgbase_model_call_duration_seconds', help: 'Model call latency, by provider and model', labelNames: ['provider', 'model'], buckets: SECONDS, registers: [registry] }),
  realtimeConnections: new client.Gauge({ name: 'pgbase_realtime_connections', help: 'Open realtime WebSocket connections', registers: [registry] }),
  realtimeChannels: new client.Gauge({ name: 'pgbase_realtime_channels', help: 'Realtime channels joined on open connections', registers: [registry] }),
  mcpSessions: new client.Gauge({ name: 'pgbase_mcp_sessions', help: 'MCP sessions this process holds (each bounded: MCP_SESSIONS_PER_CALLER, MCP_SESSIONS_MAX)', registers: [registry] }),
  realtimeMessages: new client.Counter({ name: 'pgbase_realtime_messages_total', help: 'Realtime messages, by direction (in from clients, out to clients)', labelNames: ['direction'], registers: [registry] }),
  extractions: new client.Counter({ name: 'pgbase_source_extractions_total', help: 'Source extractions finished, by outcome', labelNames: ['outcome'], registers: [registry] }),
  extractedPages: new client.Counter({ name: 'pgbase_source_extracted_pages_total', help: 'Pages extracted from sources', registers: [registry] }),
  indexings: new client.Counter({ name: 'pgbase_source_indexings_total', help: 'Source indexings finished, by outcome', labelNames: ['outcome'], registers: [registry] }),
  runsFinished: new client.Counter({ name: 'pgbase_runs_finished_total', help: 'Agent, orchestration and workflow runs this process carried to their end, by kind and how they ended', labelNames: ['kind', 'status'], registers: [registry] }),
  // Read at scrape time (refreshDatabaseGauges, watchPool):
  poolConnections: new client.Gauge({ name: 'pgbase_db_pool_connections', help: 'Database pool connections, by pool and state (in_use, idle)', labelNames: ['pool', 'state'], registers: [registry] }),
  poolWaiting: new client.Gauge({ name: 'pgbase_db_pool_waiting', help: 'Queries waiting for a database pool connection, by pool', labelNames: ['pool'], registers: [registry] }),
  jobsQueued: new client.Gauge({ name: 'pgbase_jobs_queued', help: 'Jobs waiting to run (due now or later, not locked), by task', labelNames: ['task'], registers: [registry] }),
  jobsOldestSeconds: new client.Gauge({ name: 'pgbase_jobs_oldest_due_age_seconds', help: 'How long the oldest due, unlocked job has waited, by task', labelNames: ['task'], registers: [registry] }),
  runsActive: new client.Gauge({ name: 'pgbase_runs', help: 'Runs not yet ended, by kind and status (from the database: every replica\'s)', labelNames: ['kind', 'status'], registers: [registry] }),
};

/**
 * Label values that come from outside (a route a client reached, a model a
 * user named) may make at most this many series per metric family
 * (METRICS_MAX_SERIES); later ones fold into an `other` value, so no client
 * can grow /metrics without end. A value seen once keeps its series.
 */
const seriesBudget = { max: 2000, seen: new Map<string, Set<string>>() };

export function setMaxSeries(max: number): void {
  seriesBudget.max = max;
}

/** Whether `key` (a label set of `family`) has, or may take, a series of its own. */
export function withinSeriesBudget(family: string, key: string): boolean {
  let seen = seriesBudget.seen.get(family);
  if (!seen) seriesBudget.seen.set(family, (seen = new Set()));
  if (seen.has(key)) return true;
  if (seen.size >= seriesBudget.max) return false;
  seen.add(key);
  return true;
}

const pools = new Map<string, pg.Pool>();
const mcp = new Set<() => number>();
const sockets = new Set<() => { connections: number; channels: number }>();

/** A realtime service whose open sockets and joined channels /metrics counts, until its platform stops. */
export function watchRealtime(count: () => { connections: number; channels: number }): () => void {
  sockets.add(count);
  return () => void sockets.delete(count);
}

/** An MCP server whose sessions /metrics counts, until its platform stops. */
export function watchMcpSessions(count: () => number): () => void {
  mcp.add(count);
  return () => void mcp.delete(count);
}

/** A pool whose connections /metrics reports, until its platform stops. */
export function watchPool(name: string, pool: pg.Pool): () => void {
  pools.set(name, pool);
  return () => void (pools.get(name) === pool && pools.delete(name));
}

/** Reads what lives in the database (queue, runs) and the pools, just before a scrape renders. */
export async function refreshDatabaseGauges(adminPool: pg.Pool): Promise<void> {
  metrics.poolConnections.reset();
  metrics.poolWaiting.reset();
  for (const [name, pool] of pools) {
    metrics.poolConnections.set({ pool: name, state: 'in_use' }, pool.totalCount - pool.idleCount);
    metrics.poolConnections.set({ pool: name, state: 'idle' }, pool.idleCount);
    metrics.poolWaiting.set({ pool: name }, pool.waitingCount);
  }
  let connections = 0;
  let channels = 0;
  for (const count of sockets) {
    const c = count();
    connections += c.connections;
    channels += c.channels;
  }
  metrics.realtimeConnections.set(connections);
  metrics.realtimeChannels.set(channels);
  metrics.mcpSessions.set([...mcp].reduce((n, count) => n + count(), 0));
  const { rows } = await adminPool.query<{ snapshot: { jobs: Array<{ task: string; queued: number; oldest_due_s: number | null }>; runs: Array<{ kind: string; status: string; n: number }> } }>('select platform.metrics_snapshot() as snapshot');
  const { jobs, runs } = rows[0]!.snapshot;
  metrics.jobsQueued.reset();
  metrics.jobsOldestSeconds.reset();
  for (const j of jobs) {
    metrics.jobsQueued.set({ task: j.task }, j.queued);
    metrics.jobsOldestSeconds.set({ task: j.task }, j.oldest_due_s ?? 0);
  }
  metrics.runsActive.reset();
  for (const r of runs) metrics.runsActive.set({ kind: r.kind, status: r.status }, r.n);
}
