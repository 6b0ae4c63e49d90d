// `npm run worker`: a worker process alone, for scaling jobs out. Connects to
// DATABASE_URL, or to the embedded database of a server running from the same
// DATA_DIR. It is the platform built without ports (startPlatform's
// serve: false), so it runs every job a server's in-process worker runs, the
// AI surface's (extraction, indexing, async workflow runs, ...) included, and
// applies pending migrations first (safe beside running servers). It needs
// the servers' JWT_SECRET and AI_MASTER_KEY, or their DATA_DIR.
import { embeddedUrl, waitForDatabase } from '../../db/database.ts';
import { loadConfig } from '../config.ts';
import { loadLocalSecrets } from '../keys.ts';
import { createLogger } from '../log.ts';
import { startPlatform } from '../start.ts';
import { runCli } from './run.ts';

await runCli(async () => {
  const given = loadConfig();
  const log = createLogger(given.LOG_LEVEL);
  const url = given.DATABASE_URL ?? embeddedUrl(given.EMBEDDED_DB_PORT, (await loadLocalSecrets(given.dataDir)).db_password);
  await waitForDatabase(url, 60_000, log);
  const config = loadConfig({ ...process.env, DATABASE_URL: url, WORKER: 'in-process' });
  const platform = await startPlatform(config, { log, serve: false });
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      log.info({ signal }, 'stopping worker');
      void platform.stop().then(() => process.exit(0));
    });
  }
});
