// `npm run migrate`: applies the platform's and the user's migrations and exits.
// Uses DATABASE_URL, or starts the embedded database for the duration.
import { migrate } from '../../db/migrate.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { openConfiguredDatabase } from '../start.ts';
import { runCli } from './run.ts';

await runCli(async () => {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  const { target } = await openConfiguredDatabase(config, log);
  try {
    const result = await migrate(target.adminUrl, {
      userDir: config.migrationsDir,
      onApplied: (m) => log.info({ migration: `${m.source}/${m.name}`, ms: m.ms }, 'migration applied'),
    });
    log.info({ applied: result.applied.length, alreadyApplied: result.skipped }, 'migrations up to date');
  } finally {
    await target.embedded?.stop();
  }
});
