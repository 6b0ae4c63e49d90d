// A platform in a process of its own (test/helpers/worker-process.ts), or
// `npm run worker`, on the database of a platform in this process, for tests
// that kill it with SIGKILL: its URL once it is ready, its output for
// failure messages.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { authenticatorPassword } from '../../server/keys.ts';
import type { TestPlatform } from './platform.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

export type PlatformProcess = { child: ChildProcess; url: string; output: () => string; kill: () => Promise<void>; stop: () => Promise<void> };

export async function startPlatformProcess(beside: TestPlatform, env: Record<string, string>): Promise<PlatformProcess> {
  const child = spawn(process.execPath, ['test/helpers/worker-process.ts'], {
    cwd: root,
    env: { ...process.env, ...env, DATABASE_URL: beside.adminUrl, JWT_SECRET: beside.config.JWT_SECRET!, DATA_DIR: beside.config.dataDir, MIGRATIONS_DIR: beside.config.migrationsDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const ready = /^ready (\S+)$/m.exec(output);
      if (ready) resolve(ready[1]!);
    });
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => reject(new Error(`the platform process exited (${code}):\n${output.slice(-3000)}`)));
  });
  return {
    child, url, output: () => output,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    /** A graceful stop (SIGTERM), as a deploy stops a server. */
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export type WorkerCli = { child: ChildProcess; output: () => string; stop: () => Promise<number | null>; kill: () => Promise<void> };

/**
 * `npm run worker` on the database of a platform in this process, as an
 * operator runs it: resolves once it is up, rejects with its output if it
 * exits first. Its request login is given as
 * DB_AUTHENTICATOR_URL, so it does not check the cluster-wide authenticator
 * password, which a test file with a JWT_SECRET of its own may be resetting.
 */
export async function startWorkerCli(beside: TestPlatform, env: Record<string, string>): Promise<WorkerCli> {
  const authenticator = new URL(beside.adminUrl);
  authenticator.username = 'authenticator';
  authenticator.password = authenticatorPassword(beside.keys.jwtSecret);
  const child = spawn('npm', ['run', 'worker'], {
    cwd: root,
    // `env` last: a test may give another JWT_SECRET, or unset DB_AUTHENTICATOR_URL with '' (the worker then checks the login).
    env: { ...process.env, LOG_LEVEL: 'info', DATABASE_URL: beside.adminUrl, DB_AUTHENTICATOR_URL: authenticator.href, JWT_SECRET: beside.config.JWT_SECRET!, DATA_DIR: beside.config.dataDir, MIGRATIONS_DIR: beside.config.migrationsDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own group: a SIGKILL reaches the worker beneath npm too
  });
  let output = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    const read = (d: Buffer) => {
      output += d.toString();
      if (output.includes('"msg":"pgbase worker is up (no ports)"')) resolve();
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`npm run worker exited (${code}):\n${output.slice(-3000)}`)));
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child, output: () => output,
    // npm passes a SIGTERM on to the worker (a second one would make it exit at once).
    stop: async () => {
      if (running()) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch { /* already gone */ }
      await exited;
    },
  };
}

/** What a resume that does not come may be waiting on: live nodes, the resume jobs, the platform's warnings. */
export async function resumeDiagnostics(p: TestPlatform, run?: { table: 'agent_runs' | 'orchestration_runs' | 'workflow_executions'; id: string }): Promise<string> {
  const record = run ? (await p.adminPool.query(`select * from ai.${run.table} where id = $1`, [run.id])).rows[0] : undefined;
  const nodes = (await p.adminPool.query(`select id, round(extract(epoch from now() - seen_at)::numeric, 1) as age_s from realtime.nodes`)).rows;
  const jobs = (await p.adminPool.query(`select task_identifier, key, attempts, last_error, locked_by, run_at > now() as later from graphile_worker.jobs`)).rows;
  const warnings = p.logs().split('\n').filter((l) => /"level":(40|50|60)/.test(l)).slice(-10);
  return JSON.stringify({ record: record && { status: record.status, runner: record.runner, resumes: record.resumes, caller_role: record.caller?.role, error: record.error }, nodes, jobs, warnings });
}
