// Connection pools. Two logins: the admin URL (migrations, worker, internal
// bookkeeping) and the authenticator (every API request, role switched per
// transaction). Both fail fast when the database is away instead of hanging.
import pg from 'pg';
import type { Logger } from 'pino';

export type PoolOptions = {
  connectionString: string;
  max: number;
  connectTimeoutMs: number;
  name: string;
  log: Logger;
};

// Return timestamps, bigints and numerics as Postgres prints them: JSON
// responses are shaped in SQL, and JavaScript numbers would lose precision.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);

export function createPool({ connectionString, max, connectTimeoutMs, name, log }: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    // Notice a dead server on an idle socket quickly (restart, failover).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: `pgbase:${name}`,
  });
  // An idle client losing its connection emits 'error' on the pool; without a
  // listener that would crash the process when Postgres restarts.
  const lost = (err: Error) => log.warn({ pool: name, error: err.message, code: (err as { code?: string }).code }, 'database connection lost');
  pool.on('error', lost);
  // A checked-out client whose server goes away emits 'error' itself; the query
  // in flight rejects and the caller maps it to 503.
  pool.on('connect', (client) => client.on('error', lost));
  return pool;
}

/** Replaces user and password of a connection URL. */
export function withCredentials(connectionString: string, user: string, password: string): string {
  const u = new URL(connectionString);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  return u.toString();
}

/** A cheap liveness probe with its own deadline, for /health. */
export async function ping(pool: pg.Pool, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const probe = pool.query('select 1');
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('ping timeout')), timeoutMs);
    });
    await Promise.race([probe, deadline]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
