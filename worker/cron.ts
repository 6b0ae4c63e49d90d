// The cron ticker (sql/0120): every process running a worker ticks at each
// job's due time (at most a second apart), claims the due runs in one
// statement, and runs each through SQL (cron.run, as the job's role). The
// claim moves a job on as it takes it, so any number of processes share the
// ticks and none runs a job twice. Once a minute it fails the runs whose
// process ended and removes old history (cron.tidy_runs).
import type pg from 'pg';
import type { Logger } from 'pino';
import { asJob } from '../db/statement-limits.ts';

const MAX_WAIT_MS = 1000;
const TIDY_EVERY_MS = 60_000;

export type CronTicker = { stop: () => Promise<void> };

type Claimed = { runid: string | null; jobid: string | null; due_at: Date | null; next_due: Date | null };

export function startCronTicker(opts: { pool: pg.Pool; log: Logger; parallel: number; onRun?: (run: { jobid: string; dueAt: Date; started: Date }) => void }): CronTicker {
  const log = opts.log.child({ component: 'cron' });
  const running = new Set<Promise<void>>();
  const waiting: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastTidy = 0;
  let warnedAt = 0;
  let ticking: Promise<void> = Promise.resolve();

  const runOne = async (runid: string): Promise<void> => {
    try {
      await asJob(() => opts.pool.query('select cron.run($1)', [runid]));
    } catch (err) {
      // Cancelled by the jobs' statement limit, or the connection lost: the run is recorded as failed.
      const message = `ERROR:  ${(err as Error).message}`;
      await opts.pool.query('select cron.fail_run($1, $2)', [runid, message])
        .catch((e: Error) => log.warn({ runid, error: e.message }, 'a cron run\'s failure was not recorded; the next tidy marks it'));
    }
  };

  // At most `parallel` runs at once; the rest wait their turn in claim order.
  const pump = (): void => {
    while (!stopped && running.size < opts.parallel && waiting.length > 0) {
      const runid = waiting.shift()!;
      const p = runOne(runid).finally(() => {
        running.delete(p);
        pump();
      });
      running.add(p);
    }
  };

  const tick = async (): Promise<void> => {
    let wait = MAX_WAIT_MS;
    try {
      const { rows } = await opts.pool.query<Claimed>('select runid, jobid, due_at, next_due from cron.claim_due_runs()');
      const started = new Date();
      for (const r of rows) {
        if (r.runid !== null) {
          waiting.push(r.runid);
          opts.onRun?.({ jobid: r.jobid!, dueAt: r.due_at!, started });
        } else if (r.next_due !== null) {
          wait = Math.min(MAX_WAIT_MS, Math.max(0, r.next_due.getTime() - Date.now() + 2));
        }
      }
      pump();
      if (Date.now() - lastTidy > TIDY_EVERY_MS) {
        lastTidy = Date.now();
        const { rows: [t] } = await opts.pool.query<{ ended: number }>('select cron.tidy_runs() as ended');
        if (t!.ended > 0) log.warn({ runs: t!.ended }, 'cron runs whose process ended were marked failed');
      }
    } catch (err) {
      // The database away (a restart): say so once a minute, keep ticking.
      if (Date.now() - warnedAt > 60_000) {
        warnedAt = Date.now();
        log.warn({ error: (err as Error).message }, 'cron tick failed; trying again');
      }
    }
    if (!stopped) timer = setTimeout(() => (ticking = tick()), wait);
  };

  timer = setTimeout(() => (ticking = tick()), 0);
  log.info('cron ticker started');
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      // Claimed but not begun: failed now, not left to the next tidy.
      const unstarted = waiting.splice(0);
      await Promise.allSettled([...running, ...unstarted.map((runid) => opts.pool.query('select cron.fail_run($1, $2)', [runid, 'the process stopped before running the job']))]);
    },
  };
}
