// `npm start` with no DATABASE_URL, end to end as a newcomer runs it: first
// start with initdb, keys, a Postgres crash, SIGTERM, a quick restart, and a
// hard kill of the server that leaves an orphan postmaster for the next start.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { freePort } from '../helpers/cluster.ts';
import { tamper } from '../helpers/tokens.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pgbase-embedded-'));
// As root, the cluster goes where the 'postgres' user can reach it: here, not /var/lib/pgbase.
const rootHome = mkdtempSync(path.join(os.tmpdir(), 'pgbase-root-home-'));
const ports = { PORT: 0, PLATFORM_PORT: 0, EMBEDDED_DB_PORT: 0 };
const env = () => ({
  ...process.env, DATA_DIR: dataDir, EMBEDDED_DB_ROOT_HOME: rootHome, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
  LOG_LEVEL: 'info', DATABASE_URL: '', JWT_SECRET: '', GRAPHILE_ENV: '', NODE_ENV: '',
});

/** The cluster's folder: DATA_DIR/pg, or (as root) the one recorded in DATA_DIR. */
function clusterDir(): string {
  const placement = path.join(dataDir, 'embedded-db.json');
  return existsSync(placement) ? (JSON.parse(readFileSync(placement, 'utf8')) as { cluster: string }).cluster : path.join(dataDir, 'pg');
}

/** Processes whose command line names our cluster directory. */
function postgresProcesses(): number[] {
  const needle = clusterDir();
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmd.includes('postgres') && cmd.includes(needle)) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** The processes below `pid` (children, their children, ...): pid, parent, process group and command line, from /proc. */
function descendants(pid: number): Array<{ pid: number; pgid: number; cmd: string }> {
  const all = readdirSync('/proc').filter((e) => /^\d+$/.test(e)).flatMap((entry) => {
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, , ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 1).split(' ');
      return [{ pid: Number(entry), ppid: Number(ppid), pgid: Number(pgid), cmd: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim() }];
    } catch {
      return [];
    }
  });
  const below = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) if (below.has(p.ppid) && !below.has(p.pid)) grew = below.add(p.pid) !== undefined;
  }
  return all.filter((p) => p.pid !== pid && below.has(p.pid));
}

function launch(command: string, args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(command, args, { cwd: root, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function healthStatus(): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${ports.PORT}/health`, { signal: AbortSignal.timeout(3000) })).status;
  } catch {
    return 0;
  }
}

async function waitForHealth(status: number, timeoutMs: number, server: { child: ChildProcess; output: () => string }): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (server.child.exitCode !== null) throw new Error(`the server exited (${server.child.exitCode}):\n${server.output().slice(-3000)}`);
    if ((await healthStatus()) === status) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`/health did not answer ${status} within ${timeoutMs} ms. Server output:\n${server.output().slice(-3000)}`);
}

describe('npm start on the embedded database', () => {
  let current: ReturnType<typeof launch> | undefined;
  after(async () => {
    if (current?.child.exitCode === null) {
      current.child.kill('SIGTERM');
      await current.exited;
    }
    for (const pid of postgresProcesses()) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(rootHome, { recursive: true, force: true });
  });

  it('starts, serves, survives a Postgres crash, stops cleanly and restarts quickly', async () => {
    ports.PORT = await freePort();
    ports.PLATFORM_PORT = await freePort();
    ports.EMBEDDED_DB_PORT = await freePort();

    // First start: initdb, migrations, worker, HTTP.
    current = launch('npm', ['start']);
    const firstStart = await waitForHealth(200, 60_000, current);
    assert.ok(firstStart < 60_000, `first start took ${firstStart} ms`);
    assert.match(current.output(), /"msg":"pgbase is up at http:\/\/localhost:\d+"/);
    assert.equal((await fetch(`http://127.0.0.1:${ports.PLATFORM_PORT}/health`)).status, 200, 'the control plane is up too');
    assert.doesNotMatch(current.output(), /GRAPHILE_ENV/, 'no Grafast banner: GRAPHILE_ENV follows our configuration');
    assert.equal(statSync(dataDir).mode & 0o077, 0, 'DATA_DIR stays private to the user running the server');
    // Every process npm start runs stays in npm's process group (stopping the group stops the work), except
    // Postgres, which leads its own so a terminal's Ctrl-C reaches the server first (issue 29's contract).
    const npmGroup = Number(readFileSync(`/proc/${current.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
    const tree = descendants(current.child.pid!);
    // Postgres: the postmaster (its command line names our cluster) and every process below it.
    const pgPids = new Set(postgresProcesses().flatMap((pid) => [pid, ...descendants(pid).map((p) => p.pid)]));
    assert.ok(tree.some((p) => p.cmd.includes('server/main.ts')), JSON.stringify(tree));
    assert.deepEqual(tree.filter((p) => !pgPids.has(p.pid) && p.pgid !== npmGroup), [], 'only Postgres leaves the group');
    assert.ok(tree.filter((p) => pgPids.has(p.pid)).every((p) => p.pgid !== npmGroup), 'Postgres leads a group of its own');
    if (process.getuid?.() === 0) {
      assert.ok(clusterDir().startsWith(rootHome), 'as root, the cluster lives under EMBEDDED_DB_ROOT_HOME');
      assert.ok(!existsSync(path.join(dataDir, 'pg')), 'and not in DATA_DIR');
    }

    // npm run keys: one JSON object whose keys and database URL work.
    const keysRun = spawnSync('npm', ['run', '--silent', 'keys'], { cwd: root, env: env(), encoding: 'utf8' });
    assert.equal(keysRun.status, 0, keysRun.stderr);
    const keys = JSON.parse(keysRun.stdout) as Record<string, string>;
    assert.deepEqual(Object.keys(keys), ['url', 'platform_url', 'anon_key', 'service_role_key', 'db_url', 'jwt_secret', 'publishable_key', 'secret_key', 'api_keys']);
    assert.match(keys.publishable_key!, /^sb_publishable_[\w-]{43}$/);
    assert.match(keys.secret_key!, /^sb_secret_[\w-]{43}$/);
    assert.equal(keys.url, `http://localhost:${ports.PORT}`);
    assert.ok(current.output().includes(keys.anon_key!), 'the startup log prints the anon key');
    assert.ok(!current.output().includes(keys.service_role_key!), 'the startup log does not print the service-role key');
    for (const key of [keys.anon_key!, keys.service_role_key!, keys.publishable_key!, keys.secret_key!]) {
      const gated: Response = await fetch(`${keys.url}/rest/v1/anything`, { headers: { apikey: key, authorization: `Bearer ${key}` } });
      assert.equal(gated.status, 404, 'a valid key passes the gate (to a table that does not exist)');
      assert.equal(((await gated.json()) as { code: string }).code, 'PGRST205');
    }
    const refused = await fetch(`${keys.url}/rest/v1/anything`, { headers: { apikey: tamper(keys.anon_key!) } });
    assert.equal(refused.status, 401);
    const db = new pg.Client({ connectionString: keys.db_url });
    await db.connect();
    const { rows } = await db.query(`select count(*)::int as n from platform.migrations`);
    await db.end();
    assert.ok(rows[0].n >= 4, 'db_url reaches the migrated database');

    // Postgres crashes: health turns 503, the server restarts it and recovers.
    const postmaster = Number(readFileSync(path.join(clusterDir(), 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    await waitForHealth(503, 10_000, current);
    await waitForHealth(200, 30_000, current);
    assert.match(current.output(), /the embedded database exited unexpectedly: restarting it/);

    // SIGTERM through npm: drains, stops Postgres, leaves nothing behind.
    current.child.kill('SIGTERM');
    const code = await current.exited;
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(postgresProcesses(), [], `no postgres left behind (npm exited ${code})`);
    assert.ok(!existsSync(path.join(clusterDir(), 'postmaster.pid')), 'Postgres shut down cleanly');
    assert.match(current.output(), /"msg":"shutdown complete"/);

    // Later start: the cluster is kept, so it is quick.
    current = launch('npm', ['start']);
    const restart = await waitForHealth(200, 10_000, current);
    assert.ok(restart < 10_000, `restart took ${restart} ms`);
    assert.doesNotMatch(current.output(), /initialising the embedded database cluster/);
    current.child.kill('SIGTERM');
    await current.exited;
    assert.deepEqual(postgresProcesses(), []);
  });

  it('recovers the data directory from a server killed with SIGKILL', async () => {
    current = launch(process.execPath, ['server/main.ts']);
    await waitForHealth(200, 30_000, current);
    current.child.kill('SIGKILL');
    await current.exited;
    assert.ok(postgresProcesses().length > 0, 'the orphaned postmaster is still running');

    current = launch(process.execPath, ['server/main.ts']);
    await waitForHealth(200, 30_000, current);
    assert.match(current.output(), /a Postgres left running by an earlier run holds the data directory: stopping it/);
    current.child.kill('SIGTERM');
    assert.equal(await current.exited, 0);
    assert.deepEqual(postgresProcesses(), []);
  });

  it('a busy EMBEDDED_DB_PORT stops the start with one line naming the variable', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const saved = ports.EMBEDDED_DB_PORT;
    ports.EMBEDDED_DB_PORT = (holder.address() as net.AddressInfo).port;
    try {
      current = launch(process.execPath, ['server/main.ts']);
      assert.equal(await current.exited, 1);
      const lines = current.output().trim().split('\n').filter((l) => /"level":(50|60)/.test(l));
      assert.equal(lines.length, 1, current.output());
      assert.match(lines[0]!, new RegExp(`EMBEDDED_DB_PORT ${ports.EMBEDDED_DB_PORT} is already in use.*set EMBEDDED_DB_PORT to a free port`));
      assert.doesNotMatch(current.output(), /restarting|LOG:|FATAL:/, 'no restart attempt, no Postgres log');
    } finally {
      ports.EMBEDDED_DB_PORT = saved;
      holder.close();
    }
  });

  it('npm run migrate starts the embedded database, applies user migrations, and stops it', async () => {
    const userDir = mkdtempSync(path.join(os.tmpdir(), 'pgbase-user-mig-'));
    writeFileSync(path.join(userDir, '001_profiles.sql'), 'create table public.profiles (id uuid primary key default uuid_generate_v4(), name text);');
    const run = spawnSync('npm', ['run', 'migrate'], { cwd: root, env: { ...env(), MIGRATIONS_DIR: userDir }, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /"migration":"user\/001_profiles.sql".*"msg":"migration applied"/);
    assert.deepEqual(postgresProcesses(), [], 'the embedded database was stopped again');
  });
});
