// Realtime housekeeping: channel messages past their retention and relayed
// bodies nobody needs any more (realtime.prune in sql/0016_realtime.sql).
// Runnable on demand: graphile_worker.add_job('realtime_prune').
import type { CronItem, TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../server/config.ts';

export const REALTIME_CRON: CronItem[] = [{ task: 'realtime_prune', match: '41 * * * *', identifier: 'realtime_prune' }];

export function realtimeTasks(config: Config, log: Logger): TaskList {
  const jobLog = log.child({ component: 'realtime' });
  return {
    realtime_prune: async (_payload, helpers) => {
      const { rows } = await helpers.query<{ removed: number }>('select realtime.prune(make_interval(secs => $1)) as removed', [config.REALTIME_MESSAGE_RETENTION_SECONDS]);
      jobLog.info({ removed: rows[0]?.removed ?? 0 }, 'old realtime messages pruned');
    },
  };
}
