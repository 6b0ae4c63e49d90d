// `npm run worker`: a worker process alone, for scaling jobs out. Connects to
// DATABASE_URL, or to the embedded database of a server running from the same
// DATA_DIR. Applies pending migrations first (safe beside running servers).
import { embeddedUrl, waitForDatabase } from '../../db/database.ts';
import { migrate } from '../../db/migrate.ts';
import { createPool } from '../../db/pool.ts';
import { startWorker } from '../../worker/index.ts';
import { loadConfig } from '../config.ts';
import { loadLocalSecrets } from '../keys.ts';
import { createLogger } from '../log.ts';
import { runCli } from './run.ts';

await runCli(async () => {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  const url = config.DATABASE_URL ?? embeddedUrl(config.EMBEDDED_DB_PORT, (await loadLocalSecrets(config.dataDir)).db_password);
  await waitForDatabase(url, 60_000, log);
  await migrate(url, { userDir: config.migrationsDir });
  const pool = createPool({ connectionString: url, max: config.WORKER_CONCURRENCY + 2, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS, name: 'worker', log });
  const worker = await startWorker({ config, pool, concurrency: config.WORKER_CONCURRENCY, log });
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      log.info({ signal }, 'stopping worker');
      void worker.stop().then(() => pool.end()).then(() => process.exit(0));
    });
  }
});
