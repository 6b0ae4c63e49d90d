// A process with a worker, for crash tests, run as its own process: the
// platform on free ports with its in-process worker, plus one task,
// test_hold, that holds its job until the process is killed. Prints
// "ready <its URL>" once its worker runs. SIGTERM stops it gracefully. (It serves rather than running as `npm run worker`
// does: a standalone worker checks the cluster-wide authenticator login,
// which a test file with a JWT_SECRET of its own may be resetting meanwhile.)
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/log.ts';
import { startPlatform } from '../../server/start.ts';

// WORKER=off makes it a server alone, for tests where a standalone worker (`npm run worker`) resumes its runs.
const config = loadConfig({ ...process.env, WORKER: process.env.WORKER === 'off' ? 'off' : 'in-process', PORT: '0', PLATFORM_PORT: '0', HOST: '127.0.0.1' });
const platform = await startPlatform(config, { log: createLogger(config.LOG_LEVEL), extraTasks: { test_hold: () => new Promise<void>(() => undefined) } });
// SIGTERM stops it as `npm start` does (a deploy); SIGKILL is a crash.
process.once('SIGTERM', () => void platform.stop().then(() => process.exit(0)));
process.stdout.write(`ready ${platform.url}\n`);
