// pgbase started as `npm start` starts it (node server/main.ts, the Studio
// served by the control plane), on a fresh database and free ports, for the
// Studio's browser tests: its project URL, control plane URL, anon key and
// one-time setup link read from its startup log.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase } from './db.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

export type StudioServer = {
  /** The project API (supabase-js's URL). */
  apiUrl: string;
  /** The control plane, where the Studio is. */
  studioUrl: string;
  anonKey: string;
  setupUrl: string | null;
  databaseUrl: string;
  jwtSecret: string;
  output: () => string;
  stop: () => Promise<void>;
};

type LogLine = { msg?: string; url?: string; platform_url?: string; anon_key?: string; setup_url?: string; studio_url?: string };

export async function startStudioServer(env: Record<string, string> = {}): Promise<StudioServer> {
  const db = await freshDatabase();
  const jwtSecret = process.env.TEST_JWT_SECRET ?? 'a-test-secret-of-at-least-32-characters!';
  const child = spawn(process.execPath, ['server/main.ts'], {
    cwd: root,
    env: {
      ...process.env, DATABASE_URL: db.url, PORT: '0', PLATFORM_PORT: '0', HOST: '127.0.0.1', JWT_SECRET: jwtSecret, LOG_LEVEL: 'info',
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-studio-data-')), MIGRATIONS_DIR: path.join(os.tmpdir(), 'pgbase-no-user-migrations'),
      SHUTDOWN_TIMEOUT_MS: '3000', DB_CONNECT_TIMEOUT_MS: '5000', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const started = await new Promise<{ up: LogLine; studio: LogLine }>((resolve, reject) => {
    let up: LogLine | undefined;
    let buffered = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        let entry: LogLine;
        try {
          entry = JSON.parse(line) as LogLine;
        } catch {
          continue;
        }
        if (entry.msg?.startsWith('pgbase is up')) up = entry;
        if (up && entry.studio_url) resolve({ up, studio: entry });
      }
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => reject(new Error(`pgbase exited (${code}) before it was up:\n${output.slice(-3000)}`)));
  });
  return {
    apiUrl: started.up.url!, studioUrl: started.up.platform_url!, anonKey: started.up.anon_key!, setupUrl: started.studio.setup_url ?? null,
    databaseUrl: db.url, jwtSecret, output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await db.drop();
    },
  };
}
