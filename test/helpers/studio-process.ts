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
  /** Kills the process at once (SIGKILL), as a crash would. */
  crash: () => Promise<void>;
  /** Starts it again on the same ports, database and data directory. */
  restart: () => Promise<void>;
  stop: () => Promise<void>;
};

type LogLine = { msg?: string; url?: string; platform_url?: string; anon_key?: string; setup_url?: string; studio_url?: string };

/** One pgbase process: resolves when it says it is up, with what it said. */
async function spawnPgbase(env: Record<string, string>) {
  const child = spawn(process.execPath, ['server/main.ts'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  return { child, started, exited, output: () => output };
}

export async function startStudioServer(env: Record<string, string> = {}): Promise<StudioServer> {
  const db = await freshDatabase();
  const jwtSecret = process.env.TEST_JWT_SECRET ?? 'a-test-secret-of-at-least-32-characters!';
  const fixed = {
    DATABASE_URL: db.url, HOST: '127.0.0.1', JWT_SECRET: jwtSecret, LOG_LEVEL: 'info',
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-studio-data-')), MIGRATIONS_DIR: path.join(os.tmpdir(), 'pgbase-no-user-migrations'),
    SHUTDOWN_TIMEOUT_MS: '3000', DB_CONNECT_TIMEOUT_MS: '5000', ...env,
  };
  let running = await spawnPgbase({ PORT: '0', PLATFORM_PORT: '0', ...fixed });
  const { started } = running;
  let earlier = '';
  const alive = () => running.child.exitCode === null && running.child.signalCode === null;
  return {
    apiUrl: started.up.url!, studioUrl: started.up.platform_url!, anonKey: started.up.anon_key!, setupUrl: started.studio.setup_url ?? null,
    databaseUrl: db.url, jwtSecret, output: () => earlier + running.output(),
    crash: async () => {
      running.child.kill('SIGKILL');
      await running.exited;
    },
    restart: async () => {
      earlier += running.output();
      running = await spawnPgbase({ PORT: new URL(started.up.url!).port, PLATFORM_PORT: new URL(started.up.platform_url!).port, ...fixed });
    },
    stop: async () => {
      if (alive()) running.child.kill('SIGTERM');
      await running.exited;
      await db.drop();
    },
  };
}
