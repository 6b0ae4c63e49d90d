// The processes a benchmark runs beside itself: the platform (`npm start`'s
// entry) and its floors, each in its own process so they share no event loop.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

export class BenchProcesses {
  private readonly children: ChildProcess[] = [];
  private stopping = false;

  /** Starts `node <args>` and resolves once its output satisfies `ready`. */
  start(args: string[], env: NodeJS.ProcessEnv, ready: (out: string) => boolean): Promise<void> {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    let out = '';
    return new Promise<void>((resolve, reject) => {
      const onData = (c: Buffer) => {
        out += c.toString();
        if (ready(out)) resolve();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.on('exit', (code) => {
        // Not when stopped on purpose (stop, or stopOne, which has taken it off the list).
        if (!this.stopping && this.children.includes(child)) reject(new Error(`exited ${code}: ${out}`));
      });
    });
  }

  /** Starts the platform, waits for /health on apiUrl and answers its process id. */
  async startPlatform(apiUrl: string, env: NodeJS.ProcessEnv): Promise<number> {
    void this.start(['server/main.ts'], env, () => false).catch((err: Error) => console.error(`pgbase server: ${err.message}`));
    const pid = this.children.at(-1)!.pid!;
    for (let i = 0; i < 300; i++) {
      try {
        if ((await fetch(`${apiUrl}/health`)).ok) return pid;
      } catch {
        // starting
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the platform did not become healthy');
  }

  /** Stops one of them (by process id) and waits for it. */
  async stopOne(pid: number): Promise<void> {
    const child = this.children.find((c) => c.pid === pid);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.children.splice(this.children.indexOf(child), 1);
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  /** Stops them all and waits, so none logs the database going away after it. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.children.map((c) => new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    })));
  }
}

// Clock ticks per second of /proc's CPU times (100 on the Linux machines this runs on).
let ticks: number | undefined;

/** CPU time (user and system) a process has used so far, in microseconds; undefined where /proc is not. */
export function cpuMicros(pid: number): number | undefined {
  try {
    ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    // Fields after the command's closing parenthesis: utime is the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / ticks) * 1e6;
  } catch {
    return undefined;
  }
}
