// The TUS lock on Postgres advisory locks, so replicas behind a load balancer
// without sticky sessions never write one upload at once. A lock is a session
// advisory lock on its own connection (held for one TUS request, released at
// its end). A request that finds the upload locked asks the holder to let go,
// as @tus/server's in-memory locker does within one process: it NOTIFYs
// `storage_resumable_release` with the upload id; every replica LISTENs and
// cancels its own request on that upload, which then unlocks.
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import { ERRORS } from '@tus/utils';
import pg from 'pg';
import type { Logger } from 'pino';
import { storageBody, storageErrors } from './errors.ts';

const CHANNEL = 'storage_resumable_release';
/** Locks of uploads live in their own advisory-lock key space (the first of the two int4 keys). */
const KEY_SPACE = 0x7475_7301; // "tus" 1

/** The database is away: a TUS error in the storage body shape, which the client retries. */
const UNAVAILABLE = { status_code: 503, body: JSON.stringify(storageBody(storageErrors.databaseUnavailable())) };

export type PgLocker = Locker & { close: () => Promise<void> };

export function pgLocker(opts: { connectionString: string; maxHeld: number; acquireTimeoutMs?: number; log: Logger }): PgLocker {
  const { log } = opts;
  const acquireTimeoutMs = opts.acquireTimeoutMs ?? 30_000;
  const connections = new pg.Pool({
    connectionString: opts.connectionString, max: opts.maxHeld, idleTimeoutMillis: 10_000, connectionTimeoutMillis: acquireTimeoutMs, application_name: 'pgbase:resumable-locks',
  });
  const lost = (err: Error) => log.warn({ error: err.message }, 'resumable lock connection lost');
  // Idle and checked-out connections alike: a lost one must never become an uncaught error.
  connections.on('error', lost);
  connections.on('connect', (client) => client.on('error', lost));
  /** This replica's held locks: upload id -> how to ask its request to let go. */
  const held = new Map<string, RequestRelease>();
  let closed = false;

  // One listener per replica; reconnects after a database restart.
  let listener: pg.Client | undefined;
  const listen = async (): Promise<void> => {
    if (closed) return;
    const client = new pg.Client({ connectionString: opts.connectionString, application_name: 'pgbase:resumable-locks-listen' });
    client.on('notification', (n) => void held.get(n.payload ?? '')?.());
    client.on('error', (err) => {
      log.warn({ error: err.message }, 'resumable lock listener lost; reconnecting');
      if (listener === client) listener = undefined;
      setTimeout(() => void listen().catch(() => undefined), 1000).unref();
    });
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
      listener = client;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (!closed) setTimeout(() => void listen().catch(() => undefined), 1000).unref();
      throw err;
    }
  };
  void listen().catch((err: Error) => log.warn({ error: err.message }, 'resumable lock listener not connected yet'));

  const newLock = (id: string): Lock => {
    let client: pg.PoolClient | undefined;
    return {
      lock: async (stopSignal: AbortSignal, requestRelease: RequestRelease) => {
        const deadline = Date.now() + acquireTimeoutMs;
        const c = await connections.connect().catch(() => {
          throw UNAVAILABLE;
        });
        try {
          for (let asked = false; ; ) {
            const { rows } = await c.query<{ ok: boolean }>('select pg_try_advisory_lock($1, hashtext($2)) as ok', [KEY_SPACE, id]);
            if (rows[0]!.ok) break;
            if (stopSignal.aborted || Date.now() > deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
            if (!asked) {
              await c.query('select pg_notify($1, $2)', [CHANNEL, id]);
              asked = true;
            }
            await new Promise((r) => setTimeout(r, 25));
          }
        } catch (err) {
          c.release();
          throw err === ERRORS.ERR_LOCK_TIMEOUT ? err : UNAVAILABLE;
        }
        client = c;
        held.set(id, requestRelease);
      },
      unlock: async () => {
        const c = client;
        client = undefined;
        if (held.get(id)) held.delete(id);
        if (!c) return;
        try {
          await c.query('select pg_advisory_unlock($1, hashtext($2))', [KEY_SPACE, id]);
          c.release();
        } catch (err) {
          // A broken connection took its session locks with it: drop it.
          c.release(err as Error);
        }
      },
    };
  };

  return {
    newLock,
    close: async () => {
      closed = true;
      await listener?.end().catch(() => undefined);
      await connections.end().catch(() => undefined);
    },
  };
}
