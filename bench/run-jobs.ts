// `npm run bench:runs` (second part, issue 29): runs through the job path.
// A workflow run queued with {"mode": "async"} is a graphile-worker job
// (ai_workflow_run) that any process running the worker takes. The
// workload: starter -> response, queued by 8 callers over HTTP; the figure
// is runs per second from the first request to the last run's end. First
// with the server's own worker (WORKER_CONCURRENCY=2), then with a second
// worker process (`npm run worker`'s entry, also 2) beside it. The bare
// baseline, in the same process tree: the same graph run synchronously
// (POST /execute, no job) by the same 8 callers.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { signToken } from '../server/keys.ts';
import { freePort, startCluster } from '../test/helpers/cluster.ts';
import { BenchProcesses } from './processes.ts';

const exec = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const RUNS = Number(process.env.BENCH_JOB_RUNS ?? 600);
const CALLERS = 8;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cluster = await startCluster();
const processes = new BenchProcesses();
const db = new pg.Pool({ connectionString: cluster.url, max: 2 });
try {
  const secrets = { JWT_SECRET: randomBytes(32).toString('hex'), AI_MASTER_KEY: randomBytes(32).toString('hex') };
  const common = { DATABASE_URL: cluster.url, ...secrets, LOG_LEVEL: 'warn', WORKER_CONCURRENCY: '2', WORKFLOW_EXECUTIONS_PER_MINUTE: '100000', DATA_DIR: path.join(cluster.dir, 'data') };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await processes.startPlatform(url, { ...common, PORT: String(port), PLATFORM_PORT: String(await freePort()), HOST: '127.0.0.1', WORKER: 'in-process' });
  const key = await signToken(secrets.JWT_SECRET, { role: 'service_role' }, 3600);
  const headers = { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const api = async (p: string, init: RequestInit) => {
    const res = await fetch(`${url}/api${p}`, { ...init, headers });
    if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ id: string }>;
  };
  const { id } = await api('/workflows', { method: 'POST', body: JSON.stringify({ name: 'jobs' }) });
  await api(`/workflows/${id}/graph`, { method: 'PUT', body: JSON.stringify({
    blocks: [{ id: 'start', type: 'starter' }, { id: 'out', type: 'response', config: { output: { n: '<start.n>' } } }],
    edges: [{ source: 'start', target: 'out' }],
  }) });

  /** The same runs without a job: POST /execute answers each with its result. */
  const sync = async (): Promise<number> => {
    const { stdout } = await exec(process.execPath, [path.join(import.meta.dirname, 'load.ts'), JSON.stringify({
      url: `${url}/api/workflows/${id}/execute`, method: 'POST', headers, bodies: [JSON.stringify({ variables: { n: 1 } })], concurrency: CALLERS, seconds: SECONDS,
    })], { maxBuffer: 1 << 20 });
    const r = JSON.parse(stdout) as { count: number; errors: number; statuses: Record<string, number> };
    if (r.errors || Object.keys(r.statuses).some((s) => s !== '200')) throw new Error(`sync runs: ${JSON.stringify(r.statuses)}`);
    return r.count / SECONDS;
  };
  /** RUNS async runs queued by CALLERS callers; runs per second until the last has ended. */
  const jobs = async (): Promise<number> => {
    const { rows: [before] } = await db.query<{ n: number }>(`select count(*)::int as n from ai.workflow_executions where trigger = 'async'`);
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: CALLERS }, async () => {
      while (next < RUNS) {
        next++;
        const res = await fetch(`${url}/api/workflows/${id}/execute`, { method: 'POST', headers, body: JSON.stringify({ mode: 'async', variables: { n: next } }) });
        if (res.status !== 202) throw new Error(`async run: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }));
    for (;;) {
      const { rows: [r] } = await db.query<{ ended: number; failed: number }>(
        `select count(*) filter (where status not in ('queued', 'running'))::int as ended, count(*) filter (where status <> 'succeeded' and status not in ('queued', 'running'))::int as failed
           from ai.workflow_executions where trigger = 'async'`);
      if (r!.failed > 0) throw new Error(`${r!.failed} async runs did not succeed`);
      if (r!.ended - before!.n >= RUNS) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    return RUNS / ((performance.now() - started) / 1000);
  };

  await sync();
  await jobs();
  const one = { sync: [] as number[], jobs: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    one.jobs.push(await jobs());
    one.sync.push(await sync());
  }
  // The worker process logs nothing at warn: it is given time to migrate (nothing to do), connect and listen for jobs.
  void processes.start(['server/cli/worker.ts'], common, () => false).catch((err: Error) => console.error(`worker process: ${err.message}`));
  await new Promise((r) => setTimeout(r, 5000));
  await jobs();
  const two = { jobs: [] as number[], sync: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    two.jobs.push(await jobs());
    two.sync.push(await sync());
  }
  const f = (x: number) => `${Math.round(x).toLocaleString('en')}/s`;
  const ratio = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!));
  console.log(`# ${RUNS} async runs per round, ${CALLERS} callers, ${ROUNDS} rounds, ${os.availableParallelism()} cores; sync for ${SECONDS} s per round`);
  console.log(`job path, the server's worker (2 slots)            ${f(median(one.jobs))} | sync runs ${f(median(one.sync))} | ratio ${ratio(one.jobs, one.sync).toFixed(2)} (rounds: ${one.jobs.map((x, i) => (x / one.sync[i]!).toFixed(2)).join(' ')})`);
  console.log(`job path, plus a worker process (2 more slots)     ${f(median(two.jobs))} | sync runs ${f(median(two.sync))} | ratio ${ratio(two.jobs, two.sync).toFixed(2)} (rounds: ${two.jobs.map((x, i) => (x / two.sync[i]!).toFixed(2)).join(' ')})`);
  console.log(`growth with the second worker process: ${(median(two.jobs) / median(one.jobs)).toFixed(2)}x`);
} finally {
  await db.end();
  await processes.stop();
  await cluster.stop();
}
