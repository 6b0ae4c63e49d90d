// Every way a run starts draws from one limiter keyed by the actor
// (containment round 2, item 4). Before, POST /execute stopped a user at 20
// runs a minute while one JSON-RPC batch of 60 MCP workflow tool calls ran
// 60 more. Now each call of a batch counts against the caller's manual
// window (and so does execute afterwards); webhooks draw from their owner's
// triggered window, only once the secret matched and before an arm is used;
// agent and orchestration runs, from every route, draw from the agent
// window when AGENT_RUNS_PER_MINUTE is set.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('one run limiter for every way a run starts', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  const { json, post, put, api } = aiApi(() => p);
  const deployed = async (token: string, name: string, blocks: unknown[] = [{ id: 'start', type: 'starter' }]) => {
    const { id } = await json<{ id: string }>(await post(token, '/workflows', { name }), 201);
    const saved = await json<{ blocks: Array<{ id: string; config: Record<string, string> }> }>(await put(token, `/workflows/${id}/graph`, {
      blocks: [...blocks, { id: 'out', type: 'response', config: { output: 'ok' } }],
      edges: [{ source: (blocks[0] as { id: string }).id, target: 'out' }],
    }), 200);
    await json(await post(token, `/workflows/${id}/deploy`, {}), 200);
    return { id, block: saved.blocks[0]! };
  };
  /** One HTTP request carrying a JSON-RPC batch, on a fresh MCP session of the caller. */
  const mcpBatch = async (token: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>) => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${p.url}/api/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'batch', version: '1' } } }) });
    await init.text();
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-03-26' };
    await (await fetch(`${p.url}/api/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    const res = await fetch(`${p.url}/api/mcp`, { method: 'POST', headers: session, body: JSON.stringify(calls.map((c, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: c }))) });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    // The answers come as server-sent events (one per call) or as one JSON array.
    const messages = text.startsWith('[') ? (JSON.parse(text) as unknown[]) : text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as unknown).flat();
    return messages as Array<{ id: number; result?: { isError?: boolean; content: Array<{ text: string }> }; error?: { message: string } }>;
  };

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ ...vendor.env, WORKER: 'off', WORKFLOW_EXECUTIONS_PER_MINUTE: '5', WORKFLOW_TRIGGERED_RUNS_PER_MINUTE: '4', AGENT_RUNS_PER_MINUTE: '3', AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('counts each call of a JSON-RPC batch of MCP workflow tools, and execute after them', async () => {
    const ann = (await signUp(p, 'ann-limits@example.com')).access_token;
    const w = await deployed(ann, 'batched');
    const answers = await mcpBatch(ann, Array.from({ length: 12 }, () => ({ name: 'workflow_batched', arguments: {} })));
    assert.equal(answers.length, 12);
    const ran = answers.filter((a) => a.result && !a.result.isError);
    const refused = answers.filter((a) => a.result?.isError);
    assert.equal(ran.length, 5, 'five ran (WORKFLOW_EXECUTIONS_PER_MINUTE)');
    assert.equal(refused.length, 7);
    for (const r of refused) assert.match(r.result!.content[0]!.text, /Rate limit exceeded: at most 5 executions per minute/);
    const { rows } = await p.adminPool.query<{ n: number }>('select count(*)::int as n from ai.workflow_executions where workflow_id = $1', [w.id]);
    assert.equal(rows[0]!.n, 5, 'no execution was recorded for a refused call');
    const execute = await post(ann, `/workflows/${w.id}/execute`, {});
    assert.equal(execute.status, 429, 'execute draws from the same window');
    assert.ok(Number(execute.headers.get('retry-after')) >= 1);
    assert.deepEqual(await execute.json(), { error: 'Rate limit exceeded: at most 5 executions per minute', error_code: 'RATE_LIMITED' });
  });

  it('counts async runs too', async () => {
    const bob = (await signUp(p, 'bob-limits@example.com')).access_token;
    const w = await deployed(bob, 'queued');
    for (let i = 0; i < 5; i++) assert.equal((await post(bob, `/workflows/${w.id}/execute`, { mode: 'async' })).status, 202);
    assert.equal((await post(bob, `/workflows/${w.id}/execute`, { mode: 'async' })).status, 429);
  });

  it('draws webhooks from the owner\'s own window, only with the right secret, before an arm is used', async () => {
    const carl = (await signUp(p, 'carl-limits@example.com')).access_token;
    const w = await deployed(carl, 'hooked', [{ id: 'hook', type: 'webhook' }]);
    const call = (secret: string) => fetch(`${p.url}/api/webhooks/${w.block.config.webhook_id}`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{}' });
    for (let i = 0; i < 10; i++) assert.equal((await call('wrong')).status, 401, 'a wrong secret draws nothing');
    for (let i = 0; i < 4; i++) {
      const ok = await call(w.block.config.webhook_secret!);
      assert.equal(ok.status, 200, await ok.text());
    }
    const refused = await call(w.block.config.webhook_secret!);
    assert.equal(refused.status, 429);
    assert.deepEqual(await refused.json(), { error: 'Rate limit exceeded: at most 4 triggered executions per minute', error_code: 'RATE_LIMITED' });
    // A window of its own: the owner still runs workflows by hand.
    const byHand = await deployed(carl, 'by hand');
    assert.equal((await post(carl, `/workflows/${byHand.id}/execute`, {})).status, 200);
  });

  it('draws agent runs from every route into one window when AGENT_RUNS_PER_MINUTE is set', async () => {
    const dana = (await signUp(p, 'dana-limits@example.com')).access_token;
    const { id } = await json<{ id: string }>(await post(dana, '/agents', { name: 'helper', model: 'gpt-4.1-mini' }), 201);
    vendor.reset();
    assert.equal((await post(dana, `/agents/${id}/run`, { message: 'one' })).status, 200);
    const v1 = (body: unknown) => fetch(`${p.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${dana}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await v1({ model: 'agent/helper', messages: [{ role: 'user', content: 'two' }] })).status, 200);
    const answers = await mcpBatch(dana, [{ name: 'agent_helper', arguments: { message: 'three' } }, { name: 'agent_helper', arguments: { message: 'four' } }]);
    assert.deepEqual(answers.map((a) => !!a.result?.isError).sort(), [false, true], 'the third run is the last one allowed');
    const refused = await v1({ model: 'agent/helper', messages: [{ role: 'user', content: 'five' }] });
    assert.equal(refused.status, 429);
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /at most 3 agent and orchestration runs per minute/);
    assert.equal((await post(dana, `/agents/${id}/run`, { message: 'six' })).status, 429);
    assert.equal((await api(dana, `/agents/${id}/run/stream`, { method: 'POST', body: JSON.stringify({ message: 'seven' }) })).status, 429, 'a stream is refused before it opens');
  });
});
