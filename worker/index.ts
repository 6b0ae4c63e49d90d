// graphile-worker: the slow and external work. Runs inside the server process
// by default (WORKER=in-process) or alone with `npm run worker`, any number of
// them, all against the same database.
import { Logger as GraphileLogger, parseCronItems, run, runMigrations, type Runner, type TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { AiJobs } from '../server/ai/index.ts';
import type { Config } from '../server/config.ts';
import { PLATFORM_CRON, platformTasks } from './tasks/index.ts';
import { asJob } from '../db/statement-limits.ts';

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

/** Every task runs under the jobs' statement limit (JOB_STATEMENT_TIMEOUT), not the API roles'. */
function asJobs(tasks: TaskList): TaskList {
  return Object.fromEntries(Object.entries(tasks).map(([name, task]) => [name, (payload: unknown, helpers: Parameters<NonNullable<TaskList[string]>>[1]) => asJob(() => task!(payload, helpers))]));
}

export async function startWorker(opts: { config: Config; pool: pg.Pool; concurrency: number; log: Logger; ai: AiJobs; extraTasks?: TaskList }): Promise<WorkerHandle> {
  const log = opts.log.child({ component: 'worker' });
  let stopped = false;
  const runner = await run({
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
  log.info({ concurrency: opts.concurrency }, 'worker started');
  return {
    runner,
    ready: () => !stopped && !failed,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await runner.stop();
    },
  };
}

/** graphile-worker's own schema, so SQL can queue jobs even where no worker runs in this process. */
export async function installWorkerSchema(pool: pg.Pool, log: Logger): Promise<void> {
  await runMigrations({ pgPool: pool, logger: graphileLogger(log.child({ component: 'worker' })) });
}
