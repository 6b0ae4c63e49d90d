// `npm run bench:openai`: what the OpenAI-compatible endpoint costs beside
// running the same agent through its own route. Three figures, in turns:
//   - POST /api/v1/chat/completions (model agent/bench, bearer only)
//   - POST /api/agents/{id}/run with the same message (the native route)
//   - the scripted OpenAI-compatible vendor called directly (the floor: no
//     platform at all)
// Each run is a full agent run: session, run record, one model call through
// the router and the ledger. The ratio /api/v1 over the native route is the
// figure that matters (1.0: the compatibility layer costs nothing). Medians of
// ROUNDS rounds; load comes from a child process (bench/load.ts).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/log.ts';
import { startPlatform } from '../server/start.ts';
import { startCluster } from '../test/helpers/cluster.ts';
import { GOOD_KEY, startVendorServer } from '../test/helpers/openai-server.ts';

const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CLIENTS = 8;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cluster = await startCluster();
const vendor = await startVendorServer();
const platform = await startPlatform(loadConfig({
  DATABASE_URL: cluster.url, PORT: '0', PLATFORM_PORT: '0', HOST: '127.0.0.1', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn',
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-bench-openai-')), WORKER: 'off', ...vendor.env,
}), { log: createLogger('warn') });

try {
  const key = platform.keys.serviceRoleKey;
  const headers = { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  await platform.adminPool.query(`insert into ai.provider_keys (provider, encrypted_key, masked_key, is_valid) values ('openai', ai.encrypt($1, $2), ai.mask($1), true)`, [GOOD_KEY, platform.keys.aiMasterKey]);
  const agent = (await (await fetch(`${platform.url}/api/agents`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench', model: 'gpt-4.1-mini' }) })).json()) as { id: string };
  const message = 'Say ok';
  const load = async (spec: { url: string; headers: Record<string, string>; body: unknown }) => {
    const { stdout } = await run(process.execPath, [path.join(import.meta.dirname, 'load.ts'), JSON.stringify({
      url: spec.url, method: 'POST', headers: spec.headers, bodies: [JSON.stringify(spec.body)], concurrency: CLIENTS, seconds: SECONDS,
    })], { maxBuffer: 1 << 20 });
    const r = JSON.parse(stdout) as { count: number; errors: number; statuses: Record<string, number>; p50: number; p99: number; seconds: number };
    if (r.errors || Object.keys(r.statuses).some((s) => s !== '200')) throw new Error(`${spec.url}: ${JSON.stringify(r.statuses)}, ${r.errors} errors`);
    return r;
  };
  const compat = () => load({ url: `${platform.url}/api/v1/chat/completions`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: { model: 'agent/bench', messages: [{ role: 'user', content: message }] } });
  const native = () => load({ url: `${platform.url}/api/agents/${agent.id}/run`, headers, body: { message } });
  const floor = () => load({ url: `${vendor.env.OPENAI_BASE_URL}/chat/completions`, headers: { authorization: `Bearer ${GOOD_KEY}`, 'content-type': 'application/json' }, body: { model: 'gpt-4.1-mini', messages: [{ role: 'user', content: message }] } });
  await compat();
  await native();
  const rows = { compat: [] as number[], native: [] as number[], floor: [] as number[], ratio: [] as number[], p50: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    const c = await compat();
    const n = await native();
    const f = await floor();
    vendor.reset(); // the vendor keeps every request; a bench makes many
    rows.compat.push(c.count / c.seconds);
    rows.native.push(n.count / n.seconds);
    rows.floor.push(f.count / f.seconds);
    rows.ratio.push(c.count / n.count);
    rows.p50.push(c.p50);
  }
  const perSecond = (xs: number[]) => `${Math.round(median(xs)).toLocaleString('en')}/s`;
  console.log(`# ${CLIENTS} clients, ${SECONDS} s per run, ${ROUNDS} rounds in turns, ${os.availableParallelism()} cores`);
  console.log(`agent runs      /api/v1/chat/completions ${perSecond(rows.compat)} (p50 ${median(rows.p50).toFixed(1)} ms) | /api/agents/{id}/run ${perSecond(rows.native)} | vendor alone ${perSecond(rows.floor)}`);
  console.log(`/api/v1 over the native route ${median(rows.ratio).toFixed(2)} (rounds: ${rows.ratio.map((r) => r.toFixed(2)).join(' ')})`);
} finally {
  await platform.stop();
  await vendor.close();
  await cluster.stop();
}
