// One message limit for every way into a run (containment round 2, item 7).
// Before, a 1,000,000-character message was refused by /api/agents/{id}/run
// (200,000) but ran through /api/v1 and the MCP agent tool. Now each path
// refuses it before the model is called and before anything is stored, and
// the history a client seeds a new /api/v1 session with is bounded too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const LONG = 'x'.repeat(1_000_000);

describe('one message limit on every way into a run', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let user: string;
  let agentId: string;
  const { json, post, put, api } = aiApi(() => p);
  const v1 = (body: unknown) => fetch(`${p.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${user}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const stored = async () => (await p.adminPool.query<{ sessions: number; runs: number }>('select (select count(*)::int from ai.sessions) as sessions, (select count(*)::int from ai.agent_runs) as runs')).rows[0]!;

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ ...vendor.env, WORKER: 'off', AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
    user = (await signUp(p, 'long-messages@example.com')).access_token;
    agentId = (await json<{ id: string }>(await post(user, '/agents', { name: 'helper', model: 'gpt-4.1-mini' }), 201)).id;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('refuses a 1,000,000-character message on every path, before the model and before anything is stored', async () => {
    vendor.reset();
    const before = await stored();
    const refusals: Array<[string, number, string]> = [];
    const note = async (path: string, res: Response) => refusals.push([path, res.status, await res.text()]);
    await note('agents run', await post(user, `/agents/${agentId}/run`, { message: LONG }));
    await note('agents stream', await api(user, `/agents/${agentId}/run/stream`, { method: 'POST', body: JSON.stringify({ message: LONG }) }));
    const orchestration = await json<{ id: string }>(await post(user, '/orchestrations', { name: 'team', model: 'gpt-4.1-mini' }), 201);
    await note('orchestrations run', await post(user, `/orchestrations/${orchestration.id}/run`, { message: LONG }));
    await note('/api/v1', await v1({ model: 'agent/helper', messages: [{ role: 'user', content: LONG }] }));
    await note('/api/v1 stream', await v1({ model: 'agent/helper', stream: true, messages: [{ role: 'user', content: LONG }] }));
    for (const [path, status, body] of refusals) {
      assert.equal(status, 400, `${path}: ${body.slice(0, 200)}`);
      assert.match(body, /longer than 200,000 characters/, path);
    }
    assert.match(refusals[3]![2], /"error":\{"message":"the last message is longer than 200,000 characters"/, 'OpenAI\'s error body');

    // MCP: the agent tool answers the refusal as its result.
    const headers = { authorization: `Bearer ${user}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${p.url}/api/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) });
    await init.text();
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    const call = await fetch(`${p.url}/api/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'agent_helper', arguments: { message: LONG } } }) });
    const text = await call.text();
    assert.match(text, /"isError":true/);
    assert.match(text, /message is longer than 200,000 characters/);

    // A workflow's agent block: the block fails saying so.
    const w = await json<{ id: string }>(await post(user, '/workflows', { name: 'long' }), 201);
    await json(await put(user, `/workflows/${w.id}/graph`, {
      blocks: [{ id: 'start', type: 'starter' }, { id: 'ask', type: 'agent', config: { agent_id: agentId, message: '<variables.text>' } }, { id: 'out', type: 'response', config: { output: '<ask.content>' } }],
      edges: [{ source: 'start', target: 'ask' }, { source: 'ask', target: 'out' }],
    }), 200);
    const ran = await post(user, `/workflows/${w.id}/execute`, { variables: { text: LONG } });
    assert.equal(ran.status, 500);
    assert.match(((await ran.json()) as { error: string }).error, /message is longer than 200,000 characters/);

    assert.equal(vendor.chats().length, 0, 'no model call was made');
    assert.deepEqual(await stored(), before, 'no session or run was stored');
  });

  it('bounds the history a client seeds a new /api/v1 session with', async () => {
    vendor.reset();
    const turn = 'y'.repeat(199_000);
    const history = Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: turn }));
    const res = await v1({ model: 'agent/helper', messages: [...history, { role: 'user', content: 'and now?' }] });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /earlier messages are longer than 1,000,000 characters together/);
    const one = await v1({ model: 'agent/helper', messages: [{ role: 'user', content: LONG }, { role: 'user', content: 'short' }] });
    assert.equal(one.status, 400);
    assert.match(((await one.json()) as { error: { message: string } }).error.message, /messages\[0\] is longer than 200,000 characters/);
    assert.equal(vendor.chats().length, 0);
    const fits = await v1({ model: 'agent/helper', messages: [...history.slice(0, 4), { role: 'user', content: 'and now?' }] });
    assert.equal(fits.status, 200, await fits.clone().text());
  });
});
