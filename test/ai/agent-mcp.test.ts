// MCP tools in agent runs, against real MCP servers built with the official
// SDK on 127.0.0.1: streamable HTTP and SSE transports, tools offered under
// `<server>__<tool>`, the stored headers forwarded, a disabled server never
// contacted, an unreachable one reported while the run goes on, a failing
// tool read by the model as an error, MCP_TOOL_TIMEOUT, and the SSRF guard;
// a server's tools listed on request (GET …/mcp-servers/{id}/tools).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { aiApi, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startMcp } from '../helpers/mcp-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { sseEvents } from '../helpers/sse.ts';

type Run = { output: string; tool_calls: Array<{ name: string; arguments: unknown; ok: boolean; result?: string; error?: string }> };

describe('agent MCP tools', () => {
  let p: TestPlatform;
  let strict: TestPlatform;
  let vendor: VendorServer;
  let mcp: Awaited<ReturnType<typeof startMcp>>;
  let ann: string;
  const { json, post } = aiApi(() => p);

  const agentWith = async (servers: Array<Record<string, unknown>>) => {
    const agent = (await json<{ id: string }>(await post(ann, '/agents', { name: 'mcp user', model: 'gpt-4.1-mini' }), 201)).id;
    for (const s of servers) await json(await post(ann, `/agents/${agent}/mcp-servers`, s), 201);
    return agent;
  };

  before(async () => {
    vendor = await startVendorServer();
    mcp = await startMcp();
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
    await storeOpenAiKey(p);
    await json(await aiApi(() => p).put(p.keys.serviceRoleKey, '/settings', { settings: { MCP_TOOL_TIMEOUT: '1' } }), 200);
    ann = (await createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } }).auth.signUp({ email: 'ann-mcp@example.com', password: 'a-good-password' })).data.session!.access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    if (strict) await stopTestPlatform(strict);
    await vendor.close();
    await mcp.close();
  });

  it('offers a streamable HTTP server’s tools under its namespace, forwards its headers and runs a call', async () => {
    const agent = await agentWith([{ name: 'calc', url: `${mcp.base}/mcp`, headers: { Authorization: 'Bearer mcp-secret-123' } }]);
    vendor.reset();
    mcp.seenAuth.length = 0;
    vendor.script({ toolCalls: [{ id: 'm1', name: 'calc__add', arguments: { a: 2, b: 40 } }] }, { text: 'It is 42.' });
    const run = await json<Run>(await post(ann, `/agents/${agent}/run`, { message: 'add 2 and 40' }), 200);
    const offered = vendor.chats()[0]!.body.tools.map((t: { function: { name: string; description: string } }) => [t.function.name, t.function.description]);
    assert.deepEqual(offered, [['calc__add', 'Adds two numbers'], ['calc__fail', 'Always fails'], ['calc__slow', 'Takes five seconds']]);
    assert.deepEqual(vendor.chats()[0]!.body.tools[0].function.parameters.required, ['a', 'b'], 'the tool’s input schema is passed on');
    assert.deepEqual(run.tool_calls.map((c) => [c.name, c.ok, c.result]), [['calc__add', true, '42']]);
    assert.equal(run.output, 'It is 42.');
    assert.ok(mcp.seenAuth.length > 0 && mcp.seenAuth.every((a) => a === 'Bearer mcp-secret-123'), 'every MCP request carries the stored header');
  });

  it('speaks SSE to older servers; a failing tool and a timeout are tool errors the model reads', async () => {
    const agent = await agentWith([{ name: 'old calc', url: `${mcp.base}/sse`, transport: 'sse' }]);
    vendor.reset();
    vendor.script(
      { toolCalls: [{ id: 's1', name: 'old_calc__add', arguments: { a: 1, b: 1 } }, { id: 's2', name: 'old_calc__fail', arguments: {} }, { id: 's3', name: 'old_calc__slow', arguments: {} }] },
      { text: 'Two, and two failures.' },
    );
    const run = await json<Run>(await post(ann, `/agents/${agent}/run`, { message: 'try them' }), 200);
    assert.deepEqual(run.tool_calls.map((c) => [c.name, c.ok]), [['old_calc__add', true], ['old_calc__fail', false], ['old_calc__slow', false]]);
    assert.equal(run.tool_calls[0]!.result, '2');
    assert.equal(run.tool_calls[1]!.error, 'MCP tool fail failed: the disk is full');
    assert.match(run.tool_calls[2]!.error!, /^MCP server old calc: .*timed out/i, 'MCP_TOOL_TIMEOUT (1 s here) cuts the slow call');
    assert.equal(run.output, 'Two, and two failures.');
  });

  it('never contacts a disabled server; an unreachable one is reported and the run goes on with the rest', async () => {
    const agent = await agentWith([
      { name: 'calc', url: `${mcp.base}/mcp` },
      { name: 'off', url: `${mcp.base}/mcp`, enabled: false },
      { name: 'gone', url: 'http://127.0.0.1:9/mcp' },
    ]);
    vendor.reset();
    vendor.script({ text: 'Fine.' });
    const res = await post(ann, `/agents/${agent}/run/stream`, { message: 'hello' });
    const events = await sseEvents(res);
    const names = vendor.chats()[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name);
    assert.deepEqual(names, ['calc__add', 'calc__fail', 'calc__slow'], 'neither the disabled nor the unreachable server’s tools');
    const error = events.find((e) => e.type === 'mcp_error')!;
    assert.equal(error.server, 'gone');
    assert.match(error.error as string, /^Could not reach MCP server gone/);
    assert.equal(events.at(-1)!.type, 'complete');
  });

  it('lists a server’s tools on request, as the model is offered them, with its headers; an unreachable one is a 502', async () => {
    const agent = (await json<{ id: string }>(await post(ann, '/agents', { name: 'listing', model: 'gpt-4.1-mini' }), 201)).id;
    const calc = await json<{ id: string }>(await post(ann, `/agents/${agent}/mcp-servers`, { name: 'my calc', url: `${mcp.base}/mcp`, headers: { Authorization: 'Bearer list-secret' }, enabled: false }), 201);
    const old = await json<{ id: string }>(await post(ann, `/agents/${agent}/mcp-servers`, { name: 'old', url: `${mcp.base}/sse`, transport: 'sse' }), 201);
    const gone = await json<{ id: string }>(await post(ann, `/agents/${agent}/mcp-servers`, { name: 'gone', url: 'http://127.0.0.1:9/mcp' }), 201);
    const { api } = aiApi(() => p);
    mcp.seenAuth.length = 0;
    const listed = await json<Array<{ name: string; offered_as: string; description: string | null; input_schema: { required?: string[] } }>>(await api(ann, `/agents/${agent}/mcp-servers/${calc.id}/tools`), 200);
    assert.deepEqual(listed.map((t) => [t.name, t.offered_as, t.description]), [['add', 'my_calc__add', 'Adds two numbers'], ['fail', 'my_calc__fail', 'Always fails'], ['slow', 'my_calc__slow', 'Takes five seconds']], 'a disabled server is still asked when its owner asks');
    assert.deepEqual(listed[0]!.input_schema.required, ['a', 'b']);
    assert.ok(mcp.seenAuth.length > 0 && mcp.seenAuth.every((a) => a === 'Bearer list-secret'), 'the stored header is sent');
    assert.deepEqual((await json<Array<{ name: string }>>(await api(ann, `/agents/${agent}/mcp-servers/${old.id}/tools`), 200)).map((t) => t.name), ['add', 'fail', 'slow'], 'over SSE too');

    const down = await api(ann, `/agents/${agent}/mcp-servers/${gone.id}/tools`);
    assert.equal(down.status, 502);
    assert.match(((await down.json()) as { error: string }).error, /^Could not reach MCP server gone: /);

    const bob = (await createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } }).auth.signUp({ email: 'bob-mcp@example.com', password: 'a-good-password' })).data.session!.access_token;
    assert.equal((await api(bob, `/agents/${agent}/mcp-servers/${calc.id}/tools`)).status, 404, 'another user cannot ask ann’s server');
    const other = await json<{ id: string }>(await post(ann, '/agents', { name: 'other', model: 'gpt-4.1-mini' }), 201);
    assert.equal((await api(ann, `/agents/${other.id}/mcp-servers/${calc.id}/tools`)).status, 404, 'the server under another agent is not found');
  });

  it('refuses private addresses unless allowed (the SSRF guard covers MCP connections)', async () => {
    strict = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(strict);
    const s = aiApi(() => strict);
    const key = strict.keys.serviceRoleKey;
    const agent = (await s.json<{ id: string }>(await s.post(key, '/agents', { name: 'guarded', model: 'gpt-4.1-mini' }), 201)).id;
    await s.json(await s.post(key, `/agents/${agent}/mcp-servers`, { name: 'calc', url: `${mcp.base}/mcp` }), 201);
    vendor.reset();
    mcp.seenAuth.length = 0;
    vendor.script({ text: 'No tools.' });
    const events = await sseEvents(await s.post(key, `/agents/${agent}/run/stream`, { message: 'hi' }));
    assert.match(events.find((e) => e.type === 'mcp_error')!.error as string, /private address/);
    assert.equal(mcp.seenAuth.length, 0, 'the server was never reached');
    assert.equal(vendor.chats()[0]!.body.tools, undefined);
    const server = (await s.json<Array<{ id: string }>>(await s.api(key, `/agents/${agent}/mcp-servers`), 200))[0]!;
    const listing = await s.api(key, `/agents/${agent}/mcp-servers/${server.id}/tools`);
    assert.equal(listing.status, 502);
    assert.match(((await listing.json()) as { error: string }).error, /private address/, 'listing goes through the guard too');
    assert.equal(mcp.seenAuth.length, 0);
  });
});
