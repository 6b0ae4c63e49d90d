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
    return { adminUrl: opts.databaseUrl, embedded: undefined };
  }
  const embedded = new EmbeddedPostgres({ dataDir: opts.dataDir, port: opts.embeddedPort, password: opts.embeddedPassword(), rootPlacement: opts.embeddedRootHome, log: opts.log.child({ component: 'embedded-postgres' }) });
  await embedded.start();
  return { adminUrl: embedded.url, embedded };
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
      if (e.code === '28P01' || e.code === '28000' || e.code === '3D000') throw new Error(`Cannot connect to DATABASE_URL: ${e.message}`, { cause: err });
      if (Date.now() > deadline) throw new Error(`The database at DATABASE_URL did not answer within ${timeoutMs / 1000} s: ${e.message}`, { cause: err });
      if (!warned) log.warn({ error: e.message, code: e.code }, 'waiting for the database to accept connections');
      warned = true;
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
