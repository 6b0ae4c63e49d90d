// `npm start`: one process serving everything. SIGINT/SIGTERM drain and stop
// cleanly; a second signal forces the exit.
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
