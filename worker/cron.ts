// The cron ticker (sql/0121 the jobs, sql/0122 their runs): every process running a worker ticks at each
// job's due time (at most a second apart), claims the due runs in one
// statement, and runs them through SQL (cron.run_many, each as its job's
// role). The claim moves a job on as it takes it, so any number of processes
// share the ticks and none runs a job twice. Once a minute it fails the runs
// whose process ended and removes old history (cron.tidy_runs).
import type pg from 'pg';
import type { Logger } from 'pino';

const MAX_WAIT_MS = 1000;
const TIDY_EVERY_MS = 60_000;

export type CronTicker = { stop: () => Promise<void> };

type Claimed = { runid: string | null; jobid: string | null; due_at: Date | null; quick: boolean | null; direct: boolean | null; next_due: Date | null };

export function startCronTicker(opts: { pool: pg.Pool; log: Logger; parallel: number; statementTimeout: string }): CronTicker {
  const log = opts.log.child({ component: 'cron' });
  const running = new Set<Promise<void>>();
  const waiting: Array<string[] | { direct: string }> = [];
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastTidy = 0;
  let warnedAt = 0;
  let ticking: Promise<void> = Promise.resolve();

  /**
   * Runs claimed runs in one transaction under the jobs' statement limit
   * (cron.run_many: each command in its own subtransaction). A group that
   * fails as a whole (its time limit, the connection) is rolled back and its
   * runs are run again one by one, so one slow job costs the others nothing.
   */
  const runGroup = async (runids: string[]): Promise<void> => {
    const client = await opts.pool.connect();
    let broken: Error | undefined;
    try {
      // One round trip: ids are the database's own bigints, the limit a checked duration (server/config).
      await client.query(`begin; set local statement_timeout = '${opts.statementTimeout}'; select cron.run_many('{${runids.join(',')}}'::bigint[]); commit`);
    } catch (err) {
      await client.query('rollback').catch((e: Error) => (broken = e));
      client.release(broken);
      if (runids.length > 1) {
        for (const runid of runids) await runGroup([runid]);
        return;
      }
      // One run cancelled by the statement limit, or its connection lost: recorded as failed.
      await opts.pool.query('select cron.finish_run($1, $2, $3)', [runids[0], 'failed', `ERROR:  ${(err as Error).message}`])
        .catch((e: Error) => log.warn({ runid: runids[0], error: e.message }, 'a cron run\'s failure was not recorded; the next tidy marks it'));
      return;
    }
    client.release();
  };

  /**
   * A command a function cannot run (one VACUUM or ANALYZE: cron.is_direct),
   * run on this session as the job's role, outside a transaction block, and
   * recorded with its command tag as pg_cron records it.
   */
  const runDirect = async (runid: string): Promise<void> => {
    const client = await opts.pool.connect();
    let broken: Error | undefined;
    try {
      const { rows: [run] } = await client.query<{ username: string; command: string }>('select * from cron.begin_direct_run($1)', [runid]);
      if (!run) return;
      let outcome = 'succeeded';
      let message: string;
      try {
        await client.query(`set role "${run.username.replaceAll('"', '""')}"`);
        await client.query(`set statement_timeout = '${opts.statementTimeout}'`);
        message = (await client.query(run.command)).command ?? '';
      } catch (err) {
        outcome = 'failed';
        message = `ERROR:  ${(err as Error).message}`;
      }
      await client.query('reset statement_timeout; reset role').catch((e: Error) => (broken = e));
      await opts.pool.query('select cron.finish_run($1, $2, $3)', [runid, outcome, message]);
    } finally {
      client.release(broken);
    }
  };

  // At most `parallel` groups at once; the rest wait their turn in claim order.
  const pump = (): void => {
    while (!stopped && running.size < opts.parallel && waiting.length > 0) {
      const group = waiting.shift()!;
      const p = (Array.isArray(group) ? runGroup(group) : runDirect(group.direct))
        .catch((err: Error) => log.warn({ error: err.message }, 'cron runs could not be started; the next tidy marks them'))
        .finally(() => {
          running.delete(p);
          pump();
        });
      running.add(p);
    }
  };

  const tick = async (): Promise<void> => {
    let wait = MAX_WAIT_MS;
    try {
      const { rows } = await opts.pool.query<Claimed>('select runid, jobid, due_at, quick, direct, next_due from cron.claim_due_runs()');
      // Quick jobs (their last run well under 50 ms) share `parallel` groups; the others run alone.
      const quick: string[] = [];
      for (const r of rows) {
        if (r.runid !== null) {
          if (r.direct) waiting.push({ direct: r.runid });
          else if (r.quick) quick.push(r.runid);
          else waiting.push([r.runid]);
        } else if (r.next_due !== null) {
          wait = Math.min(MAX_WAIT_MS, Math.max(0, r.next_due.getTime() - Date.now() + 2));
        }
      }
      const groups = Math.min(opts.parallel, quick.length);
      for (let g = 0; g < groups; g++) waiting.push(quick.filter((_, i) => i % groups === g));
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
      const unstarted = waiting.splice(0).flatMap((w) => (Array.isArray(w) ? w : [w.direct]));
      await Promise.allSettled([...running, ...unstarted.map((runid) => opts.pool.query('select cron.finish_run($1, $2, $3)', [runid, 'failed', 'the process stopped before running the job']))]);
    },
  };
}
