// /api/mcp (issue 30, item 2) with the official MCP client SDK over
// Streamable HTTP, a Bearer token its only credential: each user is offered
// their own and the project's deployed workflows, agents and knowledge-base
// searches, never another user's; calling each kind answers structured
// results; their knowledge bases' sources are resources; undeploying a workflow sends notifications/tools/list_changed and
// takes it off the list; a session is bound to the user who opened it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('MCP server (/api/mcp)', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let bob: string;
  let greet: string;
  const clients: Client[] = [];
  const { json, post, put, headers } = aiApi(() => p);

  /** An MCP client connected as the token's caller, sending nothing but Authorization. */
  const connect = async (token: string) => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  };
  const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
  const deployedWorkflow = async (token: string, name: string, starter: Record<string, unknown>, output: unknown) => {
    const { id } = await json<{ id: string }>(await post(token, '/workflows', { name, description: `The ${name} workflow` }), 201);
    await json(await put(token, `/workflows/${id}/graph`, {
      blocks: [{ id: 'start', type: 'starter', config: starter }, { id: 'out', type: 'response', config: { output } }],
      edges: [{ source: 'start', target: 'out' }],
    }), 200);
    await json(await post(token, `/workflows/${id}/deploy`, {}), 200);
    return id;
  };

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', MCP_ALLOWED_ORIGINS: 'https://tools.example' });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-mcp@example.com')).access_token;
    bob = (await signUp(p, 'bob-mcp@example.com')).access_token;
    greet = await deployedWorkflow(ann, 'greet', { inputs: [{ name: 'name', type: 'string', description: 'Who to greet', required: true }] }, 'Hello <variables.name>');
    await deployedWorkflow(bob, 'bob flow', {}, 'bob');
    await deployedWorkflow(p.keys.serviceRoleKey, 'shared', {}, { echo: '<variables>' });
    await json(await post(ann, '/workflows', { name: 'draft only' }), 201);
    await json(await post(ann, '/agents', { name: 'helper', model: 'gpt-4.1-mini', system_prompt: 'You help with anything.' }), 201);
    await json(await post(bob, '/agents', { name: 'secret', model: 'gpt-4.1-mini' }), 201);
    // A knowledge base with one indexed text source, searched by BM25 (no embeddings needed).
    const form = new FormData();
    form.append('file', new Blob(['Otters hold hands while they sleep so they do not drift apart.']), 'otters.txt');
    const { 'content-type': _json, ...rest } = headers(ann);
    const source = await json<{ id: string }>(await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: rest, body: form }), 201);
    const kb = await json<{ id: string }>(await post(ann, '/knowledge-bases', { name: 'Animal facts', description: 'Facts about animals', indexing_config: { embedding_model: null }, retrieval_config: { method: 'full_text' } }), 201);
    await json(await post(ann, `/knowledge-bases/${kb.id}/sources`, { source_id: source.id }), 202);
    await eventually('indexing', async () => json<{ items: Array<{ index_status: string }> }>(await fetch(`${p.url}/api/knowledge-bases/${kb.id}/sources`, { headers: headers(ann) }), 200),
      (l) => l.items[0]?.index_status === 'indexed', { tries: 400 });
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('offers each user their own and the project\'s tools, never another user\'s', async () => {
    assert.deepEqual(await names(await connect(ann)), ['agent_helper', 'search_Animal_facts', 'workflow_greet', 'workflow_shared']);
    assert.deepEqual(await names(await connect(bob)), ['agent_secret', 'workflow_bob_flow', 'workflow_shared']);
    const tools = (await (await connect(ann)).listTools()).tools;
    const g = tools.find((t) => t.name === 'workflow_greet')!;
    assert.equal(g.description, 'The greet workflow');
    assert.deepEqual(g.inputSchema, { type: 'object', properties: { name: { type: 'string', description: 'Who to greet' } }, required: ['name'] }, 'the starter\'s inputs');
    assert.deepEqual(tools.find((t) => t.name === 'workflow_shared')!.inputSchema, { type: 'object', additionalProperties: true }, 'no declared inputs: any object');
    assert.deepEqual(tools.find((t) => t.name === 'agent_helper')!.inputSchema.required, ['message']);
  });

  it('runs a workflow, an agent and a search, answering structured results', async () => {
    const client = await connect(ann);
    const flow = await client.callTool({ name: 'workflow_greet', arguments: { name: 'Ann' } });
    assert.equal(flow.isError, undefined);
    assert.equal((flow.structuredContent as { output: string }).output, 'Hello Ann');
    assert.match((flow.structuredContent as { execution_id: string }).execution_id, /^[0-9a-f-]{36}$/);
    vendor.reset();
    vendor.script({ text: 'Happy to help.' });
    const agent = (await client.callTool({ name: 'agent_helper', arguments: { message: 'Can you help?' } })).structuredContent as { output: string; session_id: string; stop_reason: string };
    assert.deepEqual([agent.output, agent.stop_reason], ['Happy to help.', 'answered']);
    vendor.script({ text: 'Yes, still here.' });
    const again = (await client.callTool({ name: 'agent_helper', arguments: { message: 'Still there?', session_id: agent.session_id } })).structuredContent as { session_id: string };
    assert.equal(again.session_id, agent.session_id, 'a session continues');
    assert.deepEqual(vendor.chats().at(-1)!.body.messages.map((m: { content: string }) => m.content), ['You help with anything.', 'Can you help?', 'Happy to help.', 'Still there?']);
    const found = (await client.callTool({ name: 'search_Animal_facts', arguments: { query: 'otters sleep' } })).structuredContent as { results: Array<{ text: string }> };
    assert.match(found.results[0]?.text ?? JSON.stringify(found), /Otters hold hands/);
    assert.equal(found.results.length, 1);
    const failing = await deployedWorkflow(ann, 'fails', {}, 'never');
    await json(await put(ann, `/workflows/${failing}/graph`, {
      blocks: [{ id: 'start', type: 'starter', config: {} }, { id: 'boom', type: 'code', config: { code: 'throw new Error("no luck")' } }],
      edges: [{ source: 'start', target: 'boom' }],
    }), 200);
    await json(await post(ann, `/workflows/${failing}/deploy`, {}), 200);
    const failed = await client.callTool({ name: 'workflow_fails', arguments: {} });
    assert.equal(failed.isError, true);
    assert.match(JSON.stringify(failed.content), /Block \\"boom\\" \(code\) failed: .*no luck/, 'the run\'s own words');
    const refused = await client.callTool({ name: 'agent_helper', arguments: {} });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /message is required/);
  });

  it('offers the sources of the caller\'s knowledge bases as resources, read as their extracted markdown', async () => {
    const annClient = await connect(ann);
    const { resources } = await annClient.listResources();
    assert.deepEqual(resources.map((r) => [r.name, r.mimeType]), [['otters.txt', 'text/markdown']]);
    assert.match(resources[0]!.uri, /^pgbase:\/\/knowledge-bases\/[0-9a-f-]{36}\/sources\/[0-9a-f-]{36}$/);
    assert.match(resources[0]!.description!, /in the knowledge base "Animal facts"/);
    const read = await annClient.readResource({ uri: resources[0]!.uri });
    assert.match((read.contents[0] as { text: string }).text, /Otters hold hands while they sleep/);
    const bobClient = await connect(bob);
    assert.deepEqual((await bobClient.listResources()).resources, [], 'bob sees none of ann\'s sources');
    await assert.rejects(bobClient.readResource({ uri: resources[0]!.uri }), /No resource pgbase:/, 'nor reads one by its address');
  });

  it('tells connected clients when a workflow is undeployed, and stops offering it', async () => {
    const client = await connect(ann);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
    assert.ok((await names(client)).includes('workflow_greet'));
    await new Promise((r) => setTimeout(r, 1000)); // the client's notification stream (a GET) opens after initialize; a notice sent before it is lost
    await json(await post(ann, `/workflows/${greet}/undeploy`, {}), 200);
    await eventually('tools/list_changed', async () => changed, (n) => n > 0);
    assert.ok(!(await names(client)).includes('workflow_greet'));
    // A tool no longer offered is a JSON-RPC error (-32602), as an unknown tool is.
    await assert.rejects(client.callTool({ name: 'workflow_greet', arguments: { name: 'x' } }), (err: Error & { code?: number }) => err.code === -32602);
  });

  it('follows tool changes again after its listening connection is killed', async () => {
    const client = await connect(ann);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
    await new Promise((r) => setTimeout(r, 1000));
    // Every channel of the process listens on one connection (db/listener.ts).
    const listeners = async () => (await p.adminPool.query<{ pid: number }>(`select pid from pg_stat_activity where application_name = 'pgbase:listen' and datname = current_database()`)).rows.map((r) => r.pid);
    const killed = await listeners();
    assert.equal(killed.length, 1, 'one LISTEN connection');
    await p.adminPool.query('select pg_terminate_backend($1)', [killed[0]]);
    // A new connection listens, and (changes may have been missed meanwhile) every session is told to list again.
    await eventually('a new LISTEN connection', listeners, (pids) => pids.length === 1 && pids[0] !== killed[0]);
    await eventually('tools/list_changed on listening again', async () => changed, (n) => n > 0);
    const before = changed;
    await json(await post(ann, '/agents', { name: 'newcomer', model: 'gpt-4.1-mini' }), 201);
    await eventually('tools/list_changed for the new agent', async () => changed, (n) => n > before);
    assert.ok((await names(client)).includes('agent_newcomer'));
  });

  it('binds a session to the user who opened it and needs only a Bearer token', async () => {
    const client = await connect(ann);
    const transport = (client as unknown as { _transport: { sessionId?: string } })._transport;
    const sessionId = transport.sessionId!;
    const list = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} };
    const as = (token: string) => fetch(`${p.url}/api/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify(list) });
    assert.equal((await as(bob)).status, 404, 'another user cannot use ann\'s session');
    assert.equal((await as(ann)).status, 200);
    const none = await fetch(`${p.url}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(list) });
    assert.equal(none.status, 401);
    const anon = await fetch(`${p.url}/api/mcp`, { method: 'POST', headers: { authorization: `Bearer ${p.keys.anonKey}`, 'content-type': 'application/json' }, body: JSON.stringify(list) });
    assert.equal(anon.status, 403, 'the anon key alone is refused');
  });

  it('refuses a browser page of another origin (403) and lets its own origins and non-browser clients through', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'origin-test', version: '1' } } };
    const from = (origin?: string) => fetch(`${p.url}/api/mcp`, {
      method: 'POST', body: JSON.stringify(initialize),
      headers: { authorization: `Bearer ${ann}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(origin ? { origin } : {}) },
    });
    const evil = await from('https://evil.example');
    assert.equal(evil.status, 403);
    assert.match(JSON.stringify(await evil.json()), /https:\/\/evil\.example may not use this MCP server: add it to MCP_ALLOWED_ORIGINS/);
    assert.equal((await from('http://localhost:3000')).status, 200, 'SITE_URL\'s origin');
    assert.equal((await from('https://tools.example')).status, 200, 'one of MCP_ALLOWED_ORIGINS');
    assert.equal((await from()).status, 200, 'no Origin: a non-browser client');
  });

  it('answers a call of a tool it does not offer with the JSON-RPC error -32602, not a tool result', async () => {
    const client = await connect(ann);
    await assert.rejects(client.callTool({ name: 'agent_nobody', arguments: {} }), (err: Error & { code?: number }) => {
      assert.equal(err.code, -32602);
      assert.match(err.message, /Unknown tool agent_nobody: list the tools again/);
      return true;
    });
  });

  it('keeps a workflow tool call open while its run waits with no process, and answers its output when a worker ends it', async () => {
    const { id } = await json<{ id: string }>(await post(ann, '/workflows', { name: 'pause' }), 201);
    await json(await put(ann, `/workflows/${id}/graph`, {
      blocks: [{ id: 'start', type: 'starter' }, { id: 'hold', type: 'wait', config: { seconds: 1 } }, { id: 'out', type: 'response', config: { output: { waited: '<hold.waited>' } } }],
      edges: [{ source: 'start', target: 'hold' }, { source: 'hold', target: 'out' }],
    }), 200);
    await json(await post(ann, `/workflows/${id}/deploy`, {}), 200);
    const client = await connect(ann);
    const done = await client.callTool({ name: 'workflow_pause', arguments: {} }) as unknown as { structuredContent: { execution_id: string; output: unknown }; isError?: boolean };
    assert.ok(!done.isError, JSON.stringify(done));
    assert.deepEqual(done.structuredContent.output, { waited: true });
    const parked = (await p.adminPool.query<{ n: number }>(`select count(*)::int as n from ai.run_events where execution_id = $1 and event ->> 'type' in ('block_waiting', 'resumed')`, [done.structuredContent.execution_id])).rows[0]!.n;
    assert.equal(parked, 2, 'it parked (block_waiting) and was taken up (resumed), its events kept');
  });
});
