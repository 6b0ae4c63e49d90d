// `npm run bench:runs` (issue 29): what a durable agent run costs, each
// figure beside a bare baseline run in the same process tree:
//   1. the whole platform cost of a run: POST /api/agents/{id}/run with one
//      model call, against the same call made directly with the openai SDK
//      (both from a child process, bench/model-load.ts), alone and at 8
//      concurrent callers; with the 8 callers, where the CPU goes:
//      PostgreSQL's processes, this process (the platform and the vendor)
//      and the load's, per run and per direct call (on 2 cores every
//      process shares the same two).
//   2. the first streamed token through POST …/run/stream against the first
//      token of the same call streamed directly with the SDK;
//   3. the checkpoint overhead per step: the agent loop (server/ai/agents/
//      loop.ts, the real model router against the scripted vendor, a tool
//      that answers at once) with every step stored (messages and numbered
//      events, as runs store them) against the same loop storing nothing.
//   4. the peer: the same one-model-call run through LangGraph.js with its
//      Postgres checkpointer (bench/langgraph-server.ts, a process of its
//      own, a new thread per run, on the same cluster), in turns with ours,
//      at 1 and 8 callers; and what each stores per run (rows and bytes).
// The model is the tests' scripted OpenAI-compatible vendor, answering at once.
// The cluster has a deployment's durability (fsync, synchronous_commit and
// full_page_writes on: every commit waits for its WAL flush) unless
// BENCH_DURABLE=off (all three off, as the test cluster runs).
// BENCH_RUN_PLACEMENT=worker measures 1 and 2 with runs carried by the
// platform's own worker (AI_RUN_PLACEMENT=worker, WORKER=in-process): the
// request begins the run and follows its events, a job carries it.
import { execFile, execFileSync, spawn } from 'node:child_process';
import readline from 'node:readline';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/log.ts';
import { startPlatform } from '../server/start.ts';
import { aiCalls } from '../server/ai/calls.ts';
import { runLoop, type LoopTool } from '../server/ai/agents/loop.ts';
import { messageRecorder } from '../server/ai/sessions/conversation.ts';
import { runEventLog } from '../server/ai/runs/events.ts';
import { startCluster } from '../test/helpers/cluster.ts';
import { GOOD_KEY, startVendorServer } from '../test/helpers/openai-server.ts';

const exec = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const STEPS = 10;
const IN_WORKER = process.env.BENCH_RUN_PLACEMENT === 'worker';
const LOOPS = Number(process.env.BENCH_LOOPS ?? 40);
const DURABLE = process.env.BENCH_DURABLE !== 'off';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
type Load = { count: number; errors: number; p50: number; p99: number; first_p50: number; seconds: number; cpu_ms: number };
/** CPU used so far by every process named postgres (the bench's cluster: nothing else runs one here), in ms. */
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
const postgresCpu = (): number => readdirSync('/proc').filter((d) => /^\d+$/.test(d)).reduce((sum, pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') return sum;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return sum + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return sum; // gone meanwhile
  }
}, 0);
const ownCpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** A load's CPU per request: PostgreSQL's, this process's (platform and vendor), the load's own. */
const cpuOf = async (load: () => Promise<Load>) => {
  const [pg0, own0] = [postgresCpu(), ownCpu()];
  const r = await load();
  return { r, postgres: (postgresCpu() - pg0) / r.count, own: (ownCpu() - own0) / r.count, load: r.cpu_ms / r.count };
};

const cluster = await startCluster({ durable: DURABLE });
const vendor = await startVendorServer();
const log = createLogger('warn');
const platform = await startPlatform(loadConfig({
  DATABASE_URL: cluster.url, PORT: '0', PLATFORM_PORT: '0', HOST: '127.0.0.1', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn',
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-bench-runs-')), ...vendor.env,
  ...(IN_WORKER ? { AI_RUN_PLACEMENT: 'worker', WORKER: 'in-process', WORKER_CONCURRENCY: '8' } : { WORKER: 'off' }),
}), { log });

const load = async (spec: Record<string, unknown>): Promise<Load> => {
  const { stdout } = await exec(process.execPath, [path.join(import.meta.dirname, 'model-load.ts'), JSON.stringify({ seconds: SECONDS, ...spec })], { maxBuffer: 1 << 20 });
  const r = JSON.parse(stdout) as Load;
  if (r.errors) throw new Error(`${JSON.stringify(spec).slice(0, 200)}: ${r.errors} errors`);
  vendor.reset(); // the vendor keeps every request
  return r;
};

try {
  const key = platform.keys.serviceRoleKey;
  const headers = { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  await platform.adminPool.query(`insert into ai.provider_keys (provider, encrypted_key, masked_key, is_valid) values ('openai', ai.encrypt($1, $2), ai.mask($1), true)`, [GOOD_KEY, platform.keys.aiMasterKey]);
  const agent = (await (await fetch(`${platform.url}/api/agents`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench', model: 'gpt-4.1-mini' }) })).json()) as { id: string };
  const body = JSON.stringify({ message: 'Say ok' });
  const sdk = (concurrency: number, stream = false) => load({ kind: 'sdk', baseURL: vendor.env.OPENAI_BASE_URL, apiKey: GOOD_KEY, model: 'gpt-4.1-mini', stream, concurrency });
  // The native route through the same child (fetch, as any client).
  const runs = (concurrency: number) => load({ kind: 'run-stream', url: `${platform.url}/api/agents/${agent.id}/run/stream`, headers, body, concurrency });
  const jsonRuns = async (concurrency: number) => {
    const { stdout } = await exec(process.execPath, [path.join(import.meta.dirname, 'load.ts'), JSON.stringify({
      url: `${platform.url}/api/agents/${agent.id}/run`, method: 'POST', headers, bodies: [body], concurrency, seconds: SECONDS,
    })], { maxBuffer: 1 << 20 });
    vendor.reset();
    const r = JSON.parse(stdout) as Load & { statuses: Record<string, number> };
    if (r.errors || Object.keys(r.statuses).some((s) => s !== '200')) throw new Error(`/run: ${JSON.stringify(r.statuses)}`);
    return r;
  };
  await jsonRuns(8);

  // 4. The peer, in a database of its own on the same cluster.
  await platform.adminPool.query('create database langgraph');
  const peer = spawn(process.execPath, [path.join(import.meta.dirname, 'langgraph-server.ts'), JSON.stringify({
    databaseUrl: cluster.url.replace(/\/[^/]*$/, '/langgraph'), baseURL: vendor.env.OPENAI_BASE_URL, apiKey: GOOD_KEY, model: 'gpt-4.1-mini',
  })], { stdio: ['ignore', 'pipe', 'inherit'] });
  const peerPort = await new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: peer.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    peer.once('exit', (code) => reject(new Error(`the LangGraph server exited with ${code}`)));
  });
  const peerRuns = async (concurrency: number) => {
    const { stdout } = await exec(process.execPath, [path.join(import.meta.dirname, 'load.ts'), JSON.stringify({
      url: `http://127.0.0.1:${peerPort}/`, method: 'POST', headers: { 'content-type': 'application/json' }, bodies: [body], concurrency, seconds: SECONDS,
    })], { maxBuffer: 1 << 20 });
    vendor.reset();
    const r = JSON.parse(stdout) as Load & { statuses: Record<string, number> };
    if (r.errors || Object.keys(r.statuses).some((s) => s !== '200')) throw new Error(`LangGraph: ${JSON.stringify(r.statuses)}`);
    return r;
  };
  await peerRuns(8);

  const rows = { alone: [] as number[], direct1: [] as number[], run8: [] as number[], direct8: [] as number[], first: [] as number[], firstDirect: [] as number[], peer1: [] as number[], peer8: [] as number[], ours8: [] as number[] };
  const cpu = { run: [] as Array<{ postgres: number; own: number; load: number }>, direct: [] as Array<{ postgres: number; own: number; load: number }> };
  for (let i = 0; i < ROUNDS; i++) {
    const a = await jsonRuns(1);
    const d = await sdk(1);
    const { r: r8, ...runCpu } = await cpuOf(() => jsonRuns(8));
    const { r: d8, ...directCpu } = await cpuOf(() => sdk(8));
    cpu.run.push(runCpu);
    cpu.direct.push(directCpu);
    const s = await runs(1);
    const ds = await sdk(1, true);
    rows.alone.push(a.p50);
    rows.direct1.push(d.p50);
    rows.run8.push(r8.count / r8.seconds);
    rows.direct8.push(d8.count / d8.seconds);
    rows.first.push(s.first_p50);
    rows.firstDirect.push(ds.first_p50);
    // The peer, in turns with ours.
    rows.peer1.push((await peerRuns(1)).p50);
    const p8 = await peerRuns(8);
    const o8 = await jsonRuns(8);
    rows.peer8.push(p8.count / p8.seconds);
    rows.ours8.push(o8.count / o8.seconds);
  }

  // What each stores per run: the rows (and their bytes) 50 runs add, on each side.
  const stored = async (db: 'platform' | 'langgraph') => {
    const pool = db === 'platform' ? platform.adminPool : undefined;
    const query = async (sql: string) => {
      if (pool) return (await pool.query<{ t: string; n: number; bytes: number }>(sql)).rows;
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: cluster.url.replace(/\/[^/]*$/, '/langgraph') });
      await c.connect();
      try {
        return (await c.query<{ t: string; n: number; bytes: number }>(sql)).rows;
      } finally {
        await c.end();
      }
    };
    const tables = db === 'platform'
      ? ['ai.sessions', 'ai.agent_runs', 'ai.session_messages', 'ai.usage', 'ai.run_events']
      : ['public.checkpoints', 'public.checkpoint_blobs', 'public.checkpoint_writes'];
    return query(tables.map((t) => `select '${t}' as t, count(*)::int as n, coalesce(sum(pg_column_size(x.*)), 0)::int as bytes from ${t} x`).join(' union all '));
  };
  const storedBy = async (db: 'platform' | 'langgraph', run: () => Promise<unknown>) => {
    const before = await stored(db);
    for (let i = 0; i < 50; i++) await run();
    const after = await stored(db);
    return after.map((a) => {
      const was = before.find((b) => b.t === a.t)!;
      return { t: a.t, rows: (a.n - was.n) / 50, bytes: (a.bytes - was.bytes) / 50 };
    });
  };
  const oursStore = await storedBy('platform', () => fetch(`${platform.url}/api/agents/${agent.id}/run`, { method: 'POST', headers, body }).then((r) => r.text()));
  const peerStore = await storedBy('langgraph', () => fetch(`http://127.0.0.1:${peerPort}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text()));
  peer.kill('SIGTERM');
  vendor.reset();

  // 3. The loop, with and without its checkpoints (where the run is carried does not change it: not measured again).
  const calls = aiCalls(platform.requestPool);
  // The bench's loop is its run's runner: its checkpoints and events are taken (sql/0077).
  const runner = randomUUID();
  const events = runEventLog(calls, log, runner);
  const tool: LoopTool = { chat: { type: 'function', function: { name: 'noop', description: 'Does nothing', parameters: { type: 'object' } } }, call: async () => ({ ok: true, output: 'done' }) };
  const loop = async (stored: boolean): Promise<number> => {
    const { rows: [run] } = await platform.adminPool.query<{ session_id: string; id: string; runner: string }>(
      `with s as (insert into ai.sessions (agent_id, title) values ($1, 'bench') returning id)
       insert into ai.agent_runs (session_id, agent_id, input, runner) select id, $1, 'go', $2 from s returning session_id, id, runner`, [agent.id, runner]);
    vendor.script(...Array.from({ length: STEPS - 1 }, (_, n) => ({ toolCalls: [{ id: `c${n}`, name: 'noop', arguments: {} }] })), { text: 'done' });
    const recorder = events.recorder('agent', () => undefined, { runId: run!.id });
    const t0 = performance.now();
    await runLoop({
      models: platform.ai.models, model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'go' }], tools: [tool], maxSteps: STEPS, tuning: {}, signal: new AbortController().signal,
      usage: { userId: null, feature: 'agent', runId: run!.id },
      ...(stored ? { record: messageRecorder(calls, run!.session_id, { kind: 'agent', id: run!.id, runner: run!.runner, cancelled: () => undefined }), chargesWithRecord: true, emit: recorder.push } : {}),
    });
    await recorder.flush();
    return performance.now() - t0;
  };
  const on: number[] = [];
  const off: number[] = [];
  if (!IN_WORKER) for (let i = 0; i < 5; i++) await loop(i % 2 === 0);
  for (let i = 0; i < (IN_WORKER ? 0 : LOOPS); i++) {
    on.push(await loop(true));
    off.push(await loop(false));
  }
  vendor.reset();

  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const perSecond = (x: number) => `${Math.round(x).toLocaleString('en')}/s`;
  const settings = (await platform.adminPool.query<{ name: string; setting: string }>(`select name, setting from pg_settings where name in ('fsync', 'synchronous_commit', 'full_page_writes') order by name`)).rows;
  console.log(`# ${ROUNDS} rounds of ${SECONDS} s in turns, ${os.availableParallelism()} cores; runs carried ${IN_WORKER ? 'by the worker (AI_RUN_PLACEMENT=worker)' : 'in the request'}; loop: ${LOOPS} runs of ${STEPS} steps each way`);
  console.log(`# cluster: ${settings.map((x) => `${x.name}=${x.setting}`).join(', ')}`);
  console.log(`one run alone      POST /run p50 ${ms(median(rows.alone))} | the SDK call p50 ${ms(median(rows.direct1))} | platform cost ${ms(median(rows.alone) - median(rows.direct1))} per run`);
  console.log(`8 callers          POST /run ${perSecond(median(rows.run8))} | the SDK ${perSecond(median(rows.direct8))} | ratio ${(median(rows.run8) / median(rows.direct8)).toFixed(2)} (rounds: ${rows.run8.map((r, i) => (r / rows.direct8[i]!).toFixed(2)).join(' ')})`);
  const cpuLine = (xs: typeof cpu.run) => {
    const [pg, own, ld] = [median(xs.map((x) => x.postgres)), median(xs.map((x) => x.own)), median(xs.map((x) => x.load))];
    const ms2 = (x: number) => `${x.toFixed(2)} ms`;
    return { text: `PostgreSQL ${ms2(pg)} + this process ${ms2(own)} + load ${ms2(ld)} = ${ms2(pg + own + ld)}`, all: pg + own + ld };
  };
  const [runCpu, directCpu] = [cpuLine(cpu.run), cpuLine(cpu.direct)];
  console.log(`CPU, 8 callers     a run: ${runCpu.text} | a direct call: ${directCpu.text} | ratio of CPU ${(directCpu.all / runCpu.all).toFixed(2)}`);
  console.log(`first token        POST /run/stream p50 ${ms(median(rows.first))} | the SDK streamed p50 ${ms(median(rows.firstDirect))} | difference ${ms(median(rows.first) - median(rows.firstDirect))}`);
  if (!IN_WORKER) console.log(`checkpoints        loop of ${STEPS} steps: stored ${ms(median(on))} | not stored ${ms(median(off))} | ${ms((median(on) - median(off)) / STEPS)} per step`);
  const direct = median(rows.direct1);
  console.log(`peer, 1 caller     LangGraph.js + PostgresSaver p50 ${ms(median(rows.peer1))}: overhead ${ms(median(rows.peer1) - direct)} | pgbase overhead ${ms(median(rows.alone) - direct)}`);
  console.log(`peer, 8 callers    pgbase ${perSecond(median(rows.ours8))} | LangGraph.js ${perSecond(median(rows.peer8))} | pgbase over LangGraph ${(median(rows.ours8) / median(rows.peer8)).toFixed(2)}x (rounds: ${rows.ours8.map((r, i) => (r / rows.peer8[i]!).toFixed(2)).join(' ')})`);
  const storeLine = (xs: Array<{ t: string; rows: number; bytes: number }>) =>
    `${xs.filter((x) => x.rows > 0).map((x) => `${x.t} ${x.rows.toFixed(1)}`).join(', ')}: ${xs.reduce((a, x) => a + x.rows, 0).toFixed(1)} rows, ${Math.round(xs.reduce((a, x) => a + x.bytes, 0)).toLocaleString('en')} bytes`;
  console.log(`stored per run     pgbase: ${storeLine(oursStore)}`);
  console.log(`                   LangGraph.js: ${storeLine(peerStore)}`);
} finally {
  await platform.stop();
  await vendor.close();
  await cluster.stop();
}
