// `npm run keys`: the project's addresses and keys as one JSON object on stdout:
// the legacy anon and service-role JWTs (derived from the secret in DATA_DIR,
// or JWT_SECRET), and the publishable and secret API keys (read from the
// database, which is started for the command when the server is not running).
import { embeddedUrl } from '../../db/database.ts';
import { loadConfig } from '../config.ts';
import { loadLocalSecrets, needsLocalSecrets, resolveKeys } from '../keys.ts';
import { onProjectDatabase } from './database.ts';
import { runCli } from './run.ts';

await runCli(async () => {
  const config = loadConfig();
  const local = needsLocalSecrets(config) ? await loadLocalSecrets(config.dataDir) : undefined;
  const keys = await resolveKeys(config, local);
  const apiKeys = await onProjectDatabase(config, async (client) => {
    await client.query('select auth.initialize_api_keys($1)', [keys.aiMasterKey]);
    return (await client.query<{ name: string; type: string; api_key: string }>('select name, type, api_key from auth.api_key_list($1)', [keys.aiMasterKey])).rows;
  });
  const out = {
    url: config.apiUrl,
    platform_url: config.platformUrl,
    anon_key: keys.anonKey,
    service_role_key: keys.serviceRoleKey,
    db_url: config.DATABASE_URL ?? embeddedUrl(config.EMBEDDED_DB_PORT, local!.db_password),
    jwt_secret: keys.jwtSecret,
    publishable_key: apiKeys.find((k) => k.type === 'publishable')?.api_key ?? null,
    secret_key: apiKeys.find((k) => k.type === 'secret')?.api_key ?? null,
    api_keys: apiKeys,
  };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
});
