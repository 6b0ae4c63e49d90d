// A throwaway PostgreSQL cluster, for the test run and for tests that need to
// kill and restart their own database: the embedded PostgreSQL users get (with
// pgTAP added), or Debian's PostgreSQL 15, the oldest we support.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, chownSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** Debian's PostgreSQL binaries (the client tools benchmarks need, such as pgbench, live here). */
export function pgBinDir(): string | undefined {
  const candidates = [process.env.PG_BINDIR, ...['18', '17', '16', '15'].map((v) => `/usr/lib/postgresql/${v}/bin`)];
  return candidates.find((dir) => dir && existsSync(path.join(dir, 'initdb')));
}

/** The server test clusters run: TEST_PG_BINDIR (set by `npm test`: the embedded PostgreSQL by default), else Debian's. */
export function serverBinDir(): string | undefined {
  return process.env.TEST_PG_BINDIR || pgBinDir();
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

export type Cluster = {
  url: string;
  port: number;
  dir: string;
  /** Kill the postmaster (SIGKILL by default, like a crash). */
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  start: () => Promise<void>;
  stop: () => Promise<void>;
};

/** Process ids whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** A process that still runs (a zombie does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export async function startCluster(opts: { durable?: boolean } = {}): Promise<Cluster> {
  const bin = serverBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql-15)');
  const owner = postgresUser();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pgbase-test-pg-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = path.join(dir, 'data');
  execFileSync(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions'], {
    ...owner,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  // Speed over durability for the shared test cluster; the resilience test asks for a durable one.
  const fast = opts.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  let child: ChildProcess | undefined;

  const start = async (deadline = Date.now() + 30_000): Promise<void> => {
    const proc = spawn(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'max_connections=400', ...fast], {
      ...owner,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    child = proc;
    let stderr = '';
    proc.stderr!.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-4000);
    });
    for (;;) {
      if (proc.exitCode !== null) {
        // Right after a SIGKILL the old backends may still hold shared memory for a moment: try again.
        if (/pre-existing shared memory block/.test(stderr) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 200));
          return start(deadline);
        }
        throw new Error(`test postgres exited: ${stderr}`);
      }
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline) throw new Error(`test postgres did not start: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };

  const waitExit = (c: ChildProcess) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once('exit', () => r())));

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const c = child;
    if (!c) return;
    // Every PostgreSQL child leads its own process group, so a group kill
    // leaves backends running (and answering their connections) for a
    // moment. Stop the postmaster so it forks no more, kill its children,
    // then it: as when the machine loses the server.
    const pid = c.pid!;
    try {
      process.kill(pid, 'SIGSTOP');
    } catch {
      /* already gone */
    }
    const children = childrenOf(pid);
    for (const child of children) {
      try {
        process.kill(child, signal);
      } catch {
        /* already gone */
      }
    }
    c.kill(signal);
    if (signal !== 'SIGKILL') process.kill(pid, 'SIGCONT');
    await waitExit(c);
    for (let i = 0; i < 200 && children.some(alive); i++) await new Promise((r) => setTimeout(r, 10));
    if (child === c) child = undefined;
  };

  const stop = async () => {
    if (child) {
      const c = child;
      c.kill('SIGINT');
      await waitExit(c);
      child = undefined;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  await start();
  return { url, port, dir, kill, start, stop };
}
