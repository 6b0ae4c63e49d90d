// The project's database for a command run beside the server: DATABASE_URL,
// else the embedded PostgreSQL the server runs (or, when it is not running,
// started for the command's duration), migrated first.
import pg from 'pg';
import { embeddedUrl } from '../../db/database.ts';
import { migrate } from '../../db/migrate.ts';
import type { Config } from '../config.ts';
import { loadLocalSecrets, needsLocalSecrets } from '../keys.ts';
import { createLogger } from '../log.ts';
import { openConfiguredDatabase } from '../start.ts';

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs `work` on a connection to the project's database; the embedded one, if started here, stops after. */
export async function onProjectDatabase<T>(config: Config, work: (client: pg.Client) => Promise<T>): Promise<T> {
  let url = config.DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  if (!url) {
    const local = needsLocalSecrets(config) ? await loadLocalSecrets(config.dataDir) : undefined;
    const running = embeddedUrl(config.EMBEDDED_DB_PORT, local!.db_password);
    if (await reachable(running)) url = running;
    else {
      const { target } = await openConfiguredDatabase(config, createLogger('warn'));
      url = target.adminUrl;
      stop = async () => void (await target.embedded?.stop());
    }
  }
  try {
    await migrate(url, { userDir: config.migrationsDir });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  } finally {
    await stop?.();
  }
}
