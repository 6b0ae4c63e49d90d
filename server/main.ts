// `npm start`: one process serving everything. SIGINT/SIGTERM drain and stop
// cleanly; a second signal forces the exit.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { studioBuilt } from '../studio/build.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './log.ts';
import { startPlatform, type Platform } from './start.ts';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  throw err;
}

const log = createLogger(config.LOG_LEVEL);
let platform: Platform | undefined;
let signals = 0;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    signals++;
    if (signals > 1) {
      log.warn({ signal }, 'second signal: forcing exit');
      platform?.embedded?.kill();
      process.exit(1);
    }
    log.info({ signal }, 'signal received');
    if (!platform) return; // still booting: startPlatform will see `signals` and stop
    platform.stop().then(
      () => process.exit(0),
      (err: Error) => {
        log.error({ error: err.message }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

// The Studio is built by `npm install`; a checkout whose Studio sources changed
// since (a pull, an edit) is rebuilt here, in a child process so that Vite's
// memory is never the server's.
if (config.STUDIO && !studioBuilt()) {
  log.info('building the Studio (its sources changed since the last build)');
  const build = spawnSync(process.execPath, [fileURLToPath(new URL('../studio/build.ts', import.meta.url))], { stdio: 'inherit' });
  if (build.status !== 0) log.warn({ status: build.status }, 'the Studio could not be built; the control plane serves its API only');
}

try {
  platform = await startPlatform(config, { log });
  if (signals > 0) {
    await platform.stop();
    process.exit(0);
  }
} catch (err) {
  log.fatal({ error: (err as Error).message }, `startup failed: ${(err as Error).message}`);
  process.exit(1);
}
