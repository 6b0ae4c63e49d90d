// A worker process for crash tests, run as its own process: the platform
// built without ports (as `npm run worker` builds it) plus one task,
// test_hold, that holds its job until the process is killed. Prints
// "ready" once its worker runs.
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/log.ts';
import { startPlatform } from '../../server/start.ts';

const config = loadConfig({ ...process.env, WORKER: 'in-process' });
await startPlatform(config, { log: createLogger(config.LOG_LEVEL), serve: false, extraTasks: { test_hold: () => new Promise<void>(() => undefined) } });
process.stdout.write('ready\n');
