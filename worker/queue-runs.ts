// Workflows started by queue messages (sql/0124): every process running a
// worker asks SQL about once a second to start a run for each visible
// message of a deployed workflow's queue trigger. The read hides each
// message from the other processes (SKIP LOCKED and its visibility
// timeout), so a message starts one run at a time.
import type pg from 'pg';
import type { Logger } from 'pino';

const EVERY_MS = 1000;

export function startQueueRuns(opts: { pool: pg.Pool; log: Logger }): { stop: () => Promise<void> } {
  const log = opts.log.child({ component: 'queue-runs' });
  let stopped = false;
  let warnedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let taking: Promise<void> = Promise.resolve();
  const take = async (): Promise<void> => {
    try {
      await opts.pool.query('select ai.take_queue_runs()');
    } catch (err) {
      if (Date.now() - warnedAt > 60_000) {
        warnedAt = Date.now();
        log.warn({ error: (err as Error).message }, 'starting runs from queue messages failed; trying again');
      }
    }
    if (!stopped) timer = setTimeout(() => (taking = take()), EVERY_MS);
  };
  timer = setTimeout(() => (taking = take()), 0);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await taking;
    },
  };
}
