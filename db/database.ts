// Where the database is: DATABASE_URL when set, else the embedded cluster in
// DATA_DIR. Also the wait for a database that is still starting (compose).
import pg from 'pg';
import type { Logger } from 'pino';
import { EmbeddedPostgres } from './embedded.ts';

export { embeddedUrl } from './embedded.ts';

export type DatabaseTarget = { adminUrl: string; embedded: EmbeddedPostgres | undefined };

export async function openDatabase(opts: {
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPort: number;
  embeddedRootHome?: string;
  embeddedPassword: () => string;
  log: Logger;
}): Promise<DatabaseTarget> {
  if (opts.databaseUrl) {
    await waitForDatabase(opts.databaseUrl, 60_000, opts.log);
    await checkServerVersion(opts.databaseUrl);
    return { adminUrl: opts.databaseUrl, embedded: undefined };
  }
  const embedded = new EmbeddedPostgres({ dataDir: opts.dataDir, port: opts.embeddedPort, password: opts.embeddedPassword(), rootPlacement: opts.embeddedRootHome, log: opts.log.child({ component: 'embedded-postgres' }) });
  await embedded.start();
  return { adminUrl: embedded.url, embedded };
}

/** The oldest PostgreSQL the migrations and tests are run on (CI runs 15 and the embedded 17). */
export const MIN_SERVER_VERSION = 150000;

/** Refuses a server older than we support, naming what it is and what to do. */
export async function checkServerVersion(url: string, min = MIN_SERVER_VERSION): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ num: string; version: string }>(`select current_setting('server_version_num') as num, current_setting('server_version') as version`);
    if (Number(rows[0]!.num) < min) {
      throw new Error(`DATABASE_URL points at PostgreSQL ${rows[0]!.version}; pgbase needs PostgreSQL 15 or later (15, 16 and 17 are supported): upgrade it, or unset DATABASE_URL to use the embedded PostgreSQL 17`);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function waitForDatabase(url: string, timeoutMs: number, log: Logger): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let warned = false;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (err) {
      const e = err as { code?: string; message: string };
      // Wrong password, unknown database or role: waiting will not help.
      if (e.code === '28P01' || e.code === '28000') throw new Error(`Cannot connect to DATABASE_URL: ${e.message}; check the user and password in DATABASE_URL`, { cause: err });
      if (e.code === '3D000') throw new Error(`Cannot connect to DATABASE_URL: ${e.message}; create that database (createdb) or name an existing one in DATABASE_URL`, { cause: err });
      if (Date.now() > deadline) {
        throw new Error(`The database at DATABASE_URL did not answer within ${timeoutMs / 1000} s: ${e.message}; check that it runs and is reachable from here, or unset DATABASE_URL to use the embedded PostgreSQL`, { cause: err });
      }
      if (!warned) log.warn({ error: e.message, code: e.code }, 'waiting for the database to accept connections');
      warned = true;
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
