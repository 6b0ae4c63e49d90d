// `npm run bench:workflows`: the workflow engine's own cost, each figure
// beside the same work done by direct calls in the same process:
//   - a 50-block chain of trivial code blocks, run through POST /execute,
//     beside 50 sequential sandbox calls: the difference per block is the
//     engine's overhead outside the sandbox (scheduling, references, the
//     status machine and a log row per block)
//   - a 50-wide split over one code block, beside 50 sandbox calls at the
//     split's concurrency
//   - webhook runs per second of a two-block graph (webhook -> response),
//     beside the engine run directly (runGraph, no HTTP, no database)
// Medians of ROUNDS rounds after a warm-up. The platform runs in this process
// on a throwaway cluster (fsync off).
import { PROJECT } from '../server/ai/actor.ts';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/log.ts';
import { startPlatform } from '../server/start.ts';
import { sandboxPool } from '../server/ai/runtime/sandbox/index.ts';
import { runGraph } from '../server/ai/workflows/engine/run.ts';
import { startCluster } from '../test/helpers/cluster.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CHAIN = 50;
const WEBHOOK_SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = 8;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (n: number) => `${n.toFixed(2)} ms`;

const cluster = await startCluster();
const platform = await startPlatform(loadConfig({
  DATABASE_URL: cluster.url, PORT: '0', PLATFORM_PORT: '0', HOST: '127.0.0.1', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn',
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-bench-wf-')), WORKER: 'off', WORKFLOW_EXECUTIONS_PER_MINUTE: '100000',
}), { log: createLogger('warn') });
const key = platform.keys.serviceRoleKey;
const headers = { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const api = async (p: string, init: RequestInit = {}) => {
  const res = await fetch(`${platform.url}/api${p}`, { ...init, headers });
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${p}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};
const workflow = async (blocks: unknown[], edges: unknown[]) => {
  const w = await api('/workflows', { method: 'POST', body: JSON.stringify({ name: 'bench' }) });
  return { id: w.id as string, graph: await api(`/workflows/${w.id}/graph`, { method: 'PUT', body: JSON.stringify({ blocks, edges }) }) };
};
const time = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

try {
  const config = platform.config;
  const pool = sandboxPool(config.SANDBOX_WORKERS);
  const sandboxCall = () => pool.run({ code: 'return 1;', scope: { variables: {}, outputs: {} }, timeoutMs: 10_000, memoryMb: config.SANDBOX_MEMORY_MB });

  // 1. A chain of 50 code blocks.
  const ids = Array.from({ length: CHAIN }, (_, i) => `c${i}`);
  const chain = await workflow([{ id: 'start', type: 'starter' }, ...ids.map((id) => ({ id, type: 'code', config: { code: 'return 1;' } }))],
    ['start', ...ids].slice(1).map((id, i) => ({ source: i === 0 ? 'start' : ids[i - 1], target: id })));
  const runChain = () => api(`/workflows/${chain.id}/execute`, { method: 'POST', body: '{}' });
  const direct = async () => {
    for (let i = 0; i < CHAIN; i++) await sandboxCall();
  };
  await runChain();
  await direct();
  const chainRounds: Array<{ engine: number; direct: number }> = [];
  for (let r = 0; r < ROUNDS; r++) chainRounds.push({ engine: await time(runChain), direct: await time(direct) });
  const chainEngine = median(chainRounds.map((r) => r.engine));
  const chainDirect = median(chainRounds.map((r) => r.direct));
  const perBlock = median(chainRounds.map((r) => (r.engine - r.direct) / CHAIN));
  console.log(`chain of ${CHAIN} code blocks   run ${ms(chainEngine)} | ${CHAIN} sandbox calls ${ms(chainDirect)} | engine overhead per block ${ms(perBlock)} (rounds: ${chainRounds.map((r) => ((r.engine - r.direct) / CHAIN).toFixed(2)).join(' ')})`);

  // 2. A split 50 wide over one code block, at the split's default concurrency (4).
  const split = await workflow([
    { id: 'start', type: 'starter' }, { id: 'each', type: 'split', config: { items: '<variables.items>', concurrency: 4 } }, { id: 'one', type: 'code', config: { code: 'return 1;' } },
  ], [{ source: 'start', target: 'each' }, { source: 'each', target: 'one' }]);
  const items = Array.from({ length: CHAIN }, (_, i) => i);
  const runSplit = () => api(`/workflows/${split.id}/execute`, { method: 'POST', body: JSON.stringify({ variables: { items } }) });
  const directWide = async () => {
    let next = 0;
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (next++ < CHAIN) await sandboxCall();
    }));
  };
  await runSplit();
  const splitRounds: Array<{ engine: number; direct: number }> = [];
  for (let r = 0; r < ROUNDS; r++) splitRounds.push({ engine: await time(runSplit), direct: await time(directWide) });
  const splitPerBlock = median(splitRounds.map((r) => (r.engine - r.direct) / CHAIN));
  console.log(`split ${CHAIN} wide               run ${ms(median(splitRounds.map((r) => r.engine)))} | ${CHAIN} sandbox calls, 4 at a time ${ms(median(splitRounds.map((r) => r.direct)))} | engine overhead per block ${ms(splitPerBlock)}`);

  // 3. Webhook runs per second of webhook -> response, beside runGraph alone.
  const hook = await workflow([{ id: 'hook', type: 'webhook' }, { id: 'out', type: 'response', config: { output: { echo: '<variables.n>' } } }], [{ source: 'hook', target: 'out' }]);
  const { webhook_id: webhookId, webhook_secret: secret } = hook.graph.blocks[0].config;
  await api(`/workflows/${hook.id}/deploy`, { method: 'POST' });
  const callHook = async () => {
    const res = await fetch(`${platform.url}/api/webhooks/${webhookId}`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{"n":1}' });
    if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
    await res.arrayBuffer();
  };
  const rate = async (fn: () => Promise<unknown>) => {
    let done = 0;
    const until = Date.now() + WEBHOOK_SECONDS * 1000;
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        await fn();
        done++;
      }
    }));
    return done / WEBHOOK_SECONDS;
  };
  const services = {
    models: platform.ai.models, settings: platform.ai.settings, fetch: async () => ({ status: 200, headers: {}, body: '' }), rest: async () => [], storage: { read: async () => ({ contentType: '', size: 0, bytes: Buffer.alloc(0), truncated: false }), write: async () => ({ id: '', key: '' }), list: async () => [], remove: async () => [] },
    sandbox: { pool, timeoutMs: 10_000, memoryMb: 64 }, actor: PROJECT, executionId: 'bench', resumed: false,
    agents: { agent: async () => null, orchestration: async () => null }, wait: async () => { throw new Error('no waits in this bench'); },
  };
  const bare = () => runGraph({ graph: hook.graph, variables: { n: 1 }, trigger: 'webhook', services, signal: new AbortController().signal, emit: () => undefined, record: async () => undefined });
  await rate(callHook);
  const hookRounds: Array<{ webhook: number; direct: number }> = [];
  for (let r = 0; r < Math.min(ROUNDS, 3); r++) hookRounds.push({ webhook: await rate(callHook), direct: await rate(bare) });
  console.log(`webhook -> response              ${Math.round(median(hookRounds.map((r) => r.webhook))).toLocaleString('en-US')} runs/s over HTTP with the database | runGraph alone ${Math.round(median(hookRounds.map((r) => r.direct))).toLocaleString('en-US')} runs/s`);
  await pool.close();
} finally {
  await platform.stop();
  await cluster.stop();
}
