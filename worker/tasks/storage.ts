// Storage housekeeping jobs, scheduled by STORAGE_CRON below and runnable on
// demand: graphile_worker.add_job('storage_expire_resumable') or
// add_job('storage_sweep_orphans', '{"graceSeconds": 3600}').
import type { CronItem, TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../server/config.ts';
import { openStorageStores, type StorageStores } from '../../server/storage/stores.ts';
import { expireResumableUploads, sweepOrphanedBytes } from '../../server/storage/sweepers.ts';

export const STORAGE_CRON: CronItem[] = [
  { task: 'storage_expire_resumable', match: '*/10 * * * *', identifier: 'storage_expire_resumable' },
  { task: 'storage_sweep_orphans', match: '23 * * * *', identifier: 'storage_sweep_orphans' },
];

export function storageTasks(config: Config, log: Logger): TaskList {
  let stores: Promise<StorageStores> | undefined;
  const open = () => (stores ??= openStorageStores(config));
  const jobLog = log.child({ component: 'storage' });
  return {
    storage_expire_resumable: async (_payload, helpers) => {
      await expireResumableUploads(await open(), (sql, values) => helpers.query(sql, values as unknown[]), jobLog);
    },
    storage_sweep_orphans: async (payload, helpers) => {
      const asked = Number((payload as { graceSeconds?: unknown } | null)?.graceSeconds);
      // An hour by default: far longer than any upload between storing bytes and committing the row.
      const grace = Number.isFinite(asked) && asked >= 0 ? asked : 3600;
      const result = await sweepOrphanedBytes(await open(), (sql, values) => helpers.query(sql, values as unknown[]), jobLog, grace);
      jobLog.info(result, 'orphaned storage bytes swept');
    },
  };
}
