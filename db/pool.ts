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
  /** Settings every session of the pool starts with (startup options: no query, never in pg_stat_activity's query text). Values must hold no spaces. */
  settings?: Record<string, string>;
};

// Return timestamps, bigints and numerics as Postgres prints them: JSON
// responses are shaped in SQL, and JavaScript numbers would lose precision.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);

export function createPool({ connectionString, max, connectTimeoutMs, name, log, settings }: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    // Notice a dead server on an idle socket quickly (restart, failover).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: `pgbase:${name}`,
    ...(settings ? { options: Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`).join(' ') } : {}),
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

// A URL to a Unix socket may name no host (postgres://u@/db?host=/run/postgresql,
// postgresql:///db?host=…): WHATWG URL refuses the first and keeps no
// credentials on the second, so a stand-in host carries them while they are set.
const HOSTLESS = /^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?)(?=[/?#]|$)/i;
const STAND_IN = 'pgbase-socket-host.invalid';

/** Replaces user and password of a connection URL (a socket's, with no host, included). */
export function withCredentials(connectionString: string, user: string, password: string): string {
  const hostless = HOSTLESS.exec(connectionString)?.[1];
  const u = new URL(hostless ? hostless + STAND_IN + connectionString.slice(hostless.length) : connectionString);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  // node-pg reads user and password from the query before the URL's own: they would log in instead.
  if (u.searchParams.has('user') || u.searchParams.has('password')) {
    u.searchParams.delete('user');
    u.searchParams.delete('password');
  }
  const out = u.toString();
  return hostless ? out.replace(`@${STAND_IN}`, '@') : out;
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
