// `npm run keys`: the project's addresses and keys as one JSON object on stdout.
// Needs no running server: keys are derived from the secret in DATA_DIR (or JWT_SECRET).
import { embeddedUrl } from '../../db/database.ts';
import { loadConfig } from '../config.ts';
import { loadLocalSecrets, needsLocalSecrets, resolveKeys } from '../keys.ts';
import { runCli } from './run.ts';

await runCli(async () => {
  const config = loadConfig();
  const local = needsLocalSecrets(config) ? await loadLocalSecrets(config.dataDir) : undefined;
  const keys = await resolveKeys(config, local);
  const out = {
    url: config.apiUrl,
    platform_url: config.platformUrl,
    anon_key: keys.anonKey,
    service_role_key: keys.serviceRoleKey,
    db_url: config.DATABASE_URL ?? embeddedUrl(config.EMBEDDED_DB_PORT, local!.db_password),
    jwt_secret: keys.jwtSecret,
  };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
});
