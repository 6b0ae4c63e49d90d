// The scheduler's rules (workflows/engine/run.ts) without a platform: a
// condition takes one branch and what only the other leads to is skipped; a
// join after a branch still runs; retry repeats a failing block with
// backoff; on_error "continue" turns the error into output; a failure names
// its block; a graph without its trigger block fails. Blocks are the real
// handlers: code and condition in the real sandbox, general_api through the
// real SSRF guard to a local server that fails as told.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Failure } from '../../server/ai/failures.ts';
import { privateNetworkRule } from '../../server/ai/runtime/net/addresses.ts';
import { guardedFetch } from '../../server/ai/runtime/net/ssrf.ts';
import { sandboxPool } from '../../server/ai/runtime/sandbox/index.ts';
import { runGraph, type BlockLog } from '../../server/ai/workflows/engine/run.ts';
import type { EngineServices, Graph, RunEvent } from '../../server/ai/workflows/engine/types.ts';

const sandbox = sandboxPool(1);
let base = '';
/** Failures left per path: /flaky?n answers 500 until its count is spent. */
const failuresLeft = new Map<string, number>();
const server = http.createServer((req, res) => {
  const left = failuresLeft.get(req.url!) ?? 0;
  if (left > 0) {
    failuresLeft.set(req.url!, left - 1);
    res.writeHead(500).end('not yet');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }));
});

// Only what these blocks use: the sandbox and the guarded fetch (allowed to reach this host's loopback).
const services = () => ({ sandbox: { pool: sandbox, timeoutMs: 2000, memoryMb: 32 }, fetch: guardedFetch(privateNetworkRule('127.0.0.1/32')) }) as unknown as EngineServices;

async function run(graph: Graph, variables: Record<string, unknown> = {}) {
  const events: RunEvent[] = [];
  const logs: BlockLog[] = [];
  const output = await runGraph({ graph, variables, trigger: 'manual', services: services(), signal: new AbortController().signal, emit: (e) => void events.push(e), record: async (l) => void logs.push(l) });
  const status = Object.fromEntries(logs.map((l) => [l.block_id, l.status]));
  return { output, events, logs, status };
}

const respond = (id: string, output: unknown) => ({ id, type: 'response', config: { output } });

describe('scheduler', () => {
  before(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => {
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    resolve();
  })));
  after(async () => {
    await sandbox.close();
    server.close();
  });

  const branching = (x: number) => run({
    blocks: [
      { id: 'start', type: 'starter', config: {} },
      { id: 'check', type: 'condition', config: { conditions: [{ expression: 'variables.x > 1', target: 'big' }], else: 'small' } },
      { id: 'big', type: 'code', config: { code: 'return "big"' } },
      { id: 'small', type: 'code', config: { code: 'return "small"' } },
      { id: 'only_small', type: 'code', config: { code: 'return "after small"' } },
      { id: 'join', type: 'code', config: { code: 'return "joined"' } },
    ],
    edges: [
      { source: 'start', target: 'check' }, { source: 'check', target: 'big' }, { source: 'check', target: 'small' },
      { source: 'small', target: 'only_small' }, { source: 'big', target: 'join' }, { source: 'only_small', target: 'join' },
    ],
  }, { x });

  it('takes one branch and skips what only the other leads to; a join still runs', async () => {
    const big = await branching(2);
    assert.deepEqual(big.status, { start: 'succeeded', check: 'succeeded', big: 'succeeded', small: 'skipped', only_small: 'skipped', join: 'succeeded' });
    assert.equal(big.output, 'joined');
    const small = await branching(0);
    assert.deepEqual(small.status, { start: 'succeeded', check: 'succeeded', big: 'skipped', small: 'succeeded', only_small: 'succeeded', join: 'succeeded' });
    assert.ok(small.events.some((e) => e.type === 'block_skipped' && e.block_id === 'big'));
  });

  it('answers the last response block\'s output', async () => {
    const r = await run({
      blocks: [{ id: 'start', type: 'starter', config: {} }, respond('answer', { city: '<variables.city>' }), { id: 'tail', type: 'code', config: { code: 'return 1' } }],
      edges: [{ source: 'start', target: 'answer' }, { source: 'answer', target: 'tail' }],
    }, { city: 'Oslo' });
    assert.deepEqual(r.output, { city: 'Oslo' });
  });

  it('retries a failing block with backoff and records its attempts', async () => {
    failuresLeft.set('/flaky-a', 2);
    const r = await run({
      blocks: [{ id: 'start', type: 'starter', config: {} }, { id: 'call', type: 'general_api', config: { url: `${base}/flaky-a`, retry: { max: 2, backoff_ms: 1 } } }],
      edges: [{ source: 'start', target: 'call' }],
    });
    const call = r.logs.find((l) => l.block_id === 'call')!;
    assert.equal(call.status, 'succeeded');
    assert.equal(call.attempts, 3);
    assert.equal(call.logs.filter((l) => /failed: GET .* answered 500; retrying/.test(l)).length, 2);
    assert.deepEqual((r.output as { body: unknown }).body, { path: '/flaky-a' });
  });

  it('fails the run, naming the block, when retries run out', async () => {
    failuresLeft.set('/flaky-b', 5);
    await assert.rejects(run({
      blocks: [{ id: 'start', type: 'starter', config: {} }, { id: 'call', type: 'general_api', config: { url: `${base}/flaky-b`, retry: { max: 1, backoff_ms: 1 } } }, respond('never', 1)],
      edges: [{ source: 'start', target: 'call' }, { source: 'call', target: 'never' }],
    }), (e: Error) => e instanceof Failure && e.detail.blockId === 'call' && /^Block "call" \(general_api\) failed: GET .*answered 500$/.test(e.message));
  });

  it('turns the error into output with on_error continue, and runs on', async () => {
    const r = await run({
      blocks: [
        { id: 'start', type: 'starter', config: {} },
        { id: 'boom', type: 'code', config: { code: 'throw new Error("no luck")', on_error: 'continue' } },
        respond('answer', { seen: '<boom.error>' }),
      ],
      edges: [{ source: 'start', target: 'boom' }, { source: 'boom', target: 'answer' }],
    });
    assert.equal(r.status.boom, 'failed');
    assert.match((r.output as { seen: string }).seen, /no luck/);
    assert.ok(r.events.some((e) => e.type === 'block_failed' && e.block_id === 'boom' && e.continued));
  });

  it('fails a graph without the trigger\'s block', async () => {
    await assert.rejects(run({ blocks: [respond('answer', 1)], edges: [] }), (e: Error) => e instanceof Failure && /no starter block to start from/.test(e.message));
  });
});
