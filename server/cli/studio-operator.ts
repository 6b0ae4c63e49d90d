// `npm run studio-operator -- --email ops@example.com [--password <p>]`:
// creates a Studio operator, or sets a new password for one (ending their
// sessions), for scripts and for a lost password. Without --password (or
// STUDIO_OPERATOR_PASSWORD) a random one is made and printed once. Talks to
// the running server's database, or starts the embedded one for the duration.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { onProjectDatabase } from './database.ts';
import { runCli } from './run.ts';

await runCli(async () => {
  const { values } = parseArgs({ options: { email: { type: 'string' }, password: { type: 'string' } } });
  if (!values.email) throw new Error('usage: npm run studio-operator -- --email <operator e-mail> [--password <at least 8 characters>]');
  const config = loadConfig();
  const password = values.password ?? process.env.STUDIO_OPERATOR_PASSWORD ?? randomBytes(15).toString('base64url');
  await onProjectDatabase(config, async (client) => {
    const { rows } = await client.query<{ email: string; created: boolean }>(
      'select email, created from studio.set_password($1, $2)', [values.email, password]);
    await client.query(`select studio.record(null, 'cli', $1, $2, '{}', null)`, [rows[0]!.created ? 'create_operator' : 'reset_password', rows[0]!.email]);
    process.stdout.write(`${rows[0]!.created ? 'Created' : 'Reset the password of'} operator ${rows[0]!.email}${values.password || process.env.STUDIO_OPERATOR_PASSWORD ? '' : `; password: ${password}`}\n`);
  });
});
