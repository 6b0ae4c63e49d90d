// `npm run studio-operator -- --email ops@example.com [--password <p>]`:
// creates a Studio operator, or sets a new password for one (ending their
// sessions), for scripts and for a lost password. Without --password (or
// STUDIO_OPERATOR_PASSWORD) a random one is made and printed once. Talks to
// the running server's database, or starts the embedded one for the duration.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { embeddedUrl } from '../../db/database.ts';
import { migrate } from '../../db/migrate.ts';
import { loadConfig } from '../config.ts';
import { loadLocalSecrets, needsLocalSecrets } from '../keys.ts';
import { createLogger } from '../log.ts';
import { openConfiguredDatabase } from '../start.ts';
import { runCli } from './run.ts';

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

await runCli(async () => {
  const { values } = parseArgs({ options: { email: { type: 'string' }, password: { type: 'string' } } });
  if (!values.email) throw new Error('usage: npm run studio-operator -- --email <operator e-mail> [--password <at least 8 characters>]');
  const config = loadConfig();
  const log = createLogger('warn');
  const password = values.password ?? process.env.STUDIO_OPERATOR_PASSWORD ?? randomBytes(15).toString('base64url');
  let url = config.DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  if (!url) {
    const local = needsLocalSecrets(config) ? await loadLocalSecrets(config.dataDir) : undefined;
    const running = embeddedUrl(config.EMBEDDED_DB_PORT, local!.db_password);
    if (await reachable(running)) url = running;
    else {
      const { target } = await openConfiguredDatabase(config, log);
      url = target.adminUrl;
      stop = async () => void (await target.embedded?.stop());
    }
  }
  try {
    await migrate(url, { userDir: config.migrationsDir });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ email: string; created: boolean }>(
        'select email, created from studio.set_password($1, $2)', [values.email, password]);
      await client.query(`select studio.record(null, 'cli', $1, $2, '{}', null)`, [rows[0]!.created ? 'create_operator' : 'reset_password', rows[0]!.email]);
      process.stdout.write(`${rows[0]!.created ? 'Created' : 'Reset the password of'} operator ${rows[0]!.email}${values.password || process.env.STUDIO_OPERATOR_PASSWORD ? '' : `; password: ${password}`}\n`);
    } finally {
      await client.end();
    }
  } finally {
    await stop?.();
  }
});
