// Storage housekeeping the worker runs on a schedule: unfinished resumable
// uploads past their deadline, and bytes no row refers to (what a crash
// between storing bytes and committing their row leaves behind). The database
// decides what is garbage (storage.expire_resumable_uploads,
// storage.orphaned_versions); these only delete what it names.
import type { Logger } from 'pino';
import { discardUpload } from './resumable.ts';
import type { StorageStores } from './stores.ts';

type Query = (sql: string, values?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;

const BATCH = 500;

export async function expireResumableUploads(stores: StorageStores, query: Query, log: Logger): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await query('select id::text from storage.expire_resumable_uploads($1) id', [BATCH]);
    for (const row of rows) await discardUpload(stores.resumable, stores.backend, String(row.id));
    total += rows.length;
    if (rows.length > 0) log.info({ expired: total }, 'expired resumable uploads deleted');
    if (rows.length < BATCH) return total;
  }
}

/**
 * Removes stored bytes older than graceSeconds that no object and no
 * unfinished upload refers to. The grace period covers uploads in flight,
 * whose bytes are stored before their row commits.
 */
export async function sweepOrphanedBytes(stores: StorageStores, query: Query, log: Logger, graceSeconds: number): Promise<{ scanned: number; removed: number }> {
  const cutoff = Date.now() - graceSeconds * 1000;
  let scanned = 0;
  let removed = 0;
  let batch: string[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const { rows } = await query('select k from storage.orphaned_versions($1) k', [batch]);
    const orphans = rows.map((r) => String(r.k));
    await stores.backend.remove(orphans);
    removed += orphans.length;
    batch = [];
    log.info({ scanned, removed }, 'sweeping orphaned storage bytes');
  };
  for await (const item of stores.backend.list()) {
    scanned++;
    if (item.modified.getTime() > cutoff) continue;
    batch.push(item.key);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return { scanned, removed };
}
