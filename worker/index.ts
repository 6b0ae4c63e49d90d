// graphile-worker: the slow and external work. Runs inside the server process
// by default (WORKER=in-process) or alone with `npm run worker`, any number of
// them, all against the same database.
import { EventEmitter } from 'node:events';
import { Logger as GraphileLogger, parseCronItems, run, runMigrations, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { AiJobs } from '../server/ai/index.ts';
import type { Config } from '../server/config.ts';
import { PLATFORM_CRON, platformTasks } from './tasks/index.ts';
import { asJob } from '../db/statement-limits.ts';
import { startCronTicker } from './cron.ts';
import { startNetSenders } from './net.ts';
import { startQueueRuns } from './queue-runs.ts';
import { metrics } from '../server/telemetry/metrics.ts';
import { contextFrom, inSpan, SpanKind } from '../server/telemetry/spans.ts';

export type WorkerHandle = { runner: Runner; ready: () => boolean; stop: () => Promise<void> };

function graphileLogger(log: Logger): GraphileLogger {
  return new GraphileLogger((scope) => (level, message, meta) => {
    const fields = { worker: scope, ...(meta ?? {}) };
    if (level === 'error') log.error(fields, message);
    else if (level === 'warning') log.warn(fields, message);
    else if (level === 'info') log.info(fields, message);
    else log.debug(fields, message);
  });
}

/**
 * Every task runs under the jobs' statement limit (JOB_STATEMENT_TIMEOUT),
 * not the API roles', in a CONSUMER span of its own (a payload's
 * `traceparent`, when it carries one, makes it part of that trace), and is
 * timed for /metrics.
 */
function asJobs(tasks: TaskList): TaskList {
  return Object.fromEntries(Object.entries(tasks).map(([name, task]) => [name, async (payload: unknown, helpers: Parameters<NonNullable<TaskList[string]>>[1]) => {
    const started = performance.now();
    let outcome = 'failed';
    try {
      const given = (payload as { traceparent?: unknown } | null)?.traceparent;
      await inSpan(`job ${name}`, {
        kind: SpanKind.CONSUMER,
        parent: contextFrom(typeof given === 'string' ? given : undefined),
        attributes: { 'messaging.system': 'graphile_worker', 'messaging.operation.type': 'process', 'pgbase.job.task': name, 'pgbase.job.id': helpers.job.id, 'pgbase.job.attempt': helpers.job.attempts },
      }, async () => asJob(async () => task!(payload, helpers)));
      outcome = 'succeeded';
    } finally {
      metrics.jobSeconds.observe({ task: name, outcome }, (performance.now() - started) / 1000);
    }
  }]));
}

/**
 * `nodeId`: this process's realtime.nodes id. Each worker's id is recorded
 * against it, so when the process dies (its heartbeat reaped) another worker
 * process releases that worker's job locks (sql/0066) and the jobs run again.
 */
export async function startWorker(opts: { config: Config; pool: pg.Pool; concurrency: number; log: Logger; ai: AiJobs; nodeId: string; extraTasks?: TaskList }): Promise<WorkerHandle> {
  const log = opts.log.child({ component: 'worker' });
  let stopped = false;
  const events = new EventEmitter() as WorkerEvents;
  // Jobs are locked by the pool's id or a worker's (graphile-worker uses both): both are recorded.
  const record = (lockerId: string) => void opts.pool.query('insert into platform.worker_nodes (worker_id, node_id) values ($1, $2) on conflict do nothing', [lockerId, opts.nodeId])
    .catch((err: Error) => log.warn({ error: err.message }, 'worker id not recorded: its jobs wait for graphile-worker\'s own timeout if this process dies'));
  events.on('pool:create', ({ workerPool }) => record(workerPool.id));
  events.on('worker:create', ({ worker }) => record(worker.workerId));
  const runner = await run({
    events,
    pgPool: opts.pool,
    concurrency: opts.concurrency,
    taskList: asJobs({ ...platformTasks(opts.config, log, opts.ai), ...opts.extraTasks }),
    noHandleSignals: true, // the process's own shutdown drains the worker in order
    pollInterval: 2000,
    parsedCronItems: parseCronItems(PLATFORM_CRON), // declared by surfaces, not read from a crontab file
    logger: graphileLogger(log),
  });
  let failed = false;
  // The runner's promise settles only when it stops: an error there means no
  // jobs run any more, so /health must say so.
  runner.promise.catch((err: Error) => {
    failed = true;
    log.error({ error: err.message }, 'worker stopped with an error');
  });
  // Jobs whose process died are released for another worker (sql/0066).
  const reclaim = setInterval(() => {
    void opts.pool.query<{ n: number }>('select platform.reclaim_dead_workers() as n')
      .then(({ rows }) => rows[0]!.n > 0 && log.warn({ workers: rows[0]!.n }, 'released the jobs of workers whose process died'))
      .catch((err: Error) => log.warn({ error: err.message }, 'reclaiming dead workers\' jobs failed'));
  }, opts.config.WORKER_RECLAIM_INTERVAL_MS);
  reclaim.unref();
  // Cron jobs (sql/0121) tick wherever a worker runs: processes share the ticks.
  const cron = startCronTicker({ pool: opts.pool, log, parallel: opts.concurrency, statementTimeout: opts.config.JOB_STATEMENT_TIMEOUT });
  // So do the senders of HTTP requests queued by SQL (sql/0123).
  const net = startNetSenders({ pool: opts.pool, log, allowPrivateNetworks: opts.config.HTTP_ALLOW_PRIVATE_NETWORKS, parallel: 32 });
  // And the workflows' queue triggers (sql/0124).
  const queueRuns = startQueueRuns({ pool: opts.pool, log });
  log.info({ concurrency: opts.concurrency }, 'worker started');
  return {
    runner,
    ready: () => !stopped && !failed,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(reclaim);
      await Promise.all([cron.stop(), net.stop(), queueRuns.stop(), runner.stop()]);
    },
  };
}

/** graphile-worker's own schema, so SQL can queue jobs even where no worker runs in this process. */
export async function installWorkerSchema(pool: pg.Pool, log: Logger): Promise<void> {
  await runMigrations({ pgPool: pool, logger: graphileLogger(log.child({ component: 'worker' })) });
}
