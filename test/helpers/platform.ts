// A real platform (HTTP servers, pools, worker) on a fresh database, in-process,
// on free ports. Logs are captured so tests can assert what was (not) logged.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/log.ts';
import { startPlatform, type Platform, type StartOptions } from '../../server/start.ts';
import { freshDatabase } from './db.ts';

export type TestPlatform = Platform & { logs: () => string; dropDatabase: () => Promise<void> };

export async function startTestPlatform(env: Record<string, string> = {}, opts: Omit<StartOptions, 'log'> & { databaseUrl?: string } = {}): Promise<TestPlatform> {
  const db = opts.databaseUrl ? undefined : await freshDatabase();
  const config = loadConfig({
    DATABASE_URL: opts.databaseUrl ?? db!.url,
    PORT: '0',
    PLATFORM_PORT: '0',
    HOST: '127.0.0.1',
    // One secret per test run (test/run.ts): every platform start sets the cluster-wide authenticator
    // login from it, so a standalone worker checking that login must not race another file's start.
    JWT_SECRET: process.env.TEST_JWT_SECRET ?? randomBytes(32).toString('hex'),
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-test-data-')),
    MIGRATIONS_DIR: path.join(os.tmpdir(), 'pgbase-no-user-migrations'),
    SHUTDOWN_TIMEOUT_MS: '3000',
    DB_CONNECT_TIMEOUT_MS: '5000', // a loaded 2-core CI machine can take over a second to open a connection
    ...env,
  });
  let captured = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      captured += chunk.toString();
      done();
    },
  });
  const log = createLogger(env.LOG_LEVEL ?? 'debug', sink);
  const platform = await startPlatform(config, { ...opts, log });
  return Object.assign(platform, {
    logs: () => captured,
    dropDatabase: async () => {
      await db?.drop();
    },
  });
}

export async function stopTestPlatform(p: TestPlatform | undefined): Promise<void> {
  if (!p) return;
  await p.stop();
  await p.dropDatabase();
}
