// /api/agents over HTTP (spec 4.9): agent CRUD keeping only the spec's
// fields, tool assignments (builtin, custom, unknown), config_override's rules
// and the access model (project agents readable by users, changes by owners).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const MASTER_KEY = 'agents-test-master-key-'.padEnd(40, 'k');
type Agent = { id: string; owner_id: string | null; name: string; model: string | null; system_prompt: string | null; settings: Record<string, unknown> };
type Assignment = { id: string; agent_id: string; tool_name: string; tool_type: string; tool_id: string | null; config_override: Record<string, unknown> };

describe('AI agents (/api/agents)', () => {
  let p: TestPlatform;
  let ann: string;
  let bob: string;
  const { api, json } = aiApi(() => p);
  const newAgent = async (token: string, body: Record<string, unknown> = { name: 'helper' }) =>
    json<Agent>(await api(token, '/agents', { method: 'POST', body: JSON.stringify(body) }), 201);
  const assign = (token: string, agentId: string, toolName: unknown) =>
    api(token, `/agents/${agentId}/tools`, { method: 'POST', body: JSON.stringify({ tool_name: toolName }) });
  const override = (token: string, agentId: string, assignmentId: string, body: unknown) =>
    api(token, `/agents/${agentId}/tools/${assignmentId}`, { method: 'PATCH', body: JSON.stringify(body) });

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', AI_MASTER_KEY: MASTER_KEY });
    ann = (await signUp(p, 'ann-agents@example.com')).access_token;
    bob = (await signUp(p, 'bob-agents@example.com')).access_token;
  });
  after(() => stopTestPlatform(p));

  it('creates an agent with name, model, system prompt and settings, dropping top-level tuning fields', async () => {
    const made = await newAgent(ann, { name: 'researcher', model: 'openrouter/some-vendor/model-x', system_prompt: 'Be brief.', settings: { temperature: 0.2, max_tokens: 300 }, temperature: 1.5, max_tokens: 9, tools: ['x'] });
    assert.equal(made.name, 'researcher');
    assert.equal(made.model, 'openrouter/some-vendor/model-x', 'the model id is passed on unchanged');
    assert.equal(made.system_prompt, 'Be brief.');
    assert.deepEqual(made.settings, { temperature: 0.2, max_tokens: 300 });
    for (const dropped of ['temperature', 'max_tokens', 'tools']) assert.ok(!(dropped in made), `${dropped} is dropped`);
    assert.ok(made.owner_id, 'a user’s agent is owned by them');
    const got = await json<Agent>(await api(ann, `/agents/${made.id}`), 200);
    assert.deepEqual(got, made);
  });

  it('refuses an agent without a name, with a bad settings value or an empty PATCH (tuning fields alone are dropped)', async () => {
    const noName = await json<{ error: string }>(await api(ann, '/agents', { method: 'POST', body: JSON.stringify({ model: 'm' }) }), 400);
    assert.match(noName.error, /name is required/);
    assert.equal((await api(ann, '/agents', { method: 'POST', body: JSON.stringify({ name: '   ' }) })).status, 400);
    assert.equal((await api(ann, '/agents', { method: 'POST', body: JSON.stringify({ name: 'x', settings: [1] }) })).status, 400);
    const a = await newAgent(ann);
    const empty = await json<{ error: string }>(await api(ann, `/agents/${a.id}`, { method: 'PATCH', body: JSON.stringify({}) }), 400);
    assert.match(empty.error, /No fields to update/);
    // Top-level tuning fields are dropped silently, as on create (spec 2.3b): 200, nothing changed.
    assert.equal((await api(ann, `/agents/${a.id}`, { method: 'PATCH', body: JSON.stringify({ temperature: 2 }) })).status, 200);
  });

  it('patches any of name, model, system_prompt and settings, leaving the others; null clears model and prompt', async () => {
    const a = await newAgent(ann, { name: 'before', model: 'm1', system_prompt: 'p1', settings: { a: 1 } });
    const renamed = await json<Agent>(await api(ann, `/agents/${a.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'after' }) }), 200);
    assert.deepEqual([renamed.name, renamed.model, renamed.system_prompt, renamed.settings], ['after', 'm1', 'p1', { a: 1 }]);
    const cleared = await json<Agent>(await api(ann, `/agents/${a.id}`, { method: 'PATCH', body: JSON.stringify({ model: null, system_prompt: null, settings: { b: 2 } }) }), 200);
    assert.deepEqual([cleared.name, cleared.model, cleared.system_prompt, cleared.settings], ['after', null, null, { b: 2 }]);
  });

  it('lists, deletes and then answers 404 for an agent, including for a malformed id', async () => {
    const a = await newAgent(ann, { name: 'short-lived' });
    const list = await json<Agent[]>(await api(ann, '/agents'), 200);
    assert.ok(list.some((x) => x.id === a.id));
    const deleted = await json<{ id: string }>(await api(ann, `/agents/${a.id}`, { method: 'DELETE' }), 200);
    assert.equal(deleted.id, a.id);
    assert.equal((await api(ann, `/agents/${a.id}`)).status, 404);
    assert.equal((await api(ann, `/agents/${a.id}`, { method: 'DELETE' })).status, 404);
    assert.equal((await api(ann, '/agents/not-a-uuid')).status, 404);
  });

  it('keeps a user’s agents private, shows project agents to everyone and lets only the owner change them', async () => {
    const annOwn = await newAgent(ann, { name: 'ann-private' });
    const project = await newAgent(p.keys.serviceRoleKey, { name: 'project-agent' });
    assert.equal(project.owner_id, null, 'made with the service-role key: a project agent');
    assert.equal((await api(bob, `/agents/${annOwn.id}`)).status, 404, 'another user’s agent is invisible');
    assert.ok(!(await json<Agent[]>(await api(bob, '/agents'), 200)).some((x) => x.id === annOwn.id));
    assert.equal((await json<Agent>(await api(bob, `/agents/${project.id}`), 200)).name, 'project-agent');
    assert.equal((await api(bob, `/agents/${project.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'mine now' }) })).status, 403);
    assert.equal((await api(bob, `/agents/${project.id}`, { method: 'DELETE' })).status, 403);
    assert.equal((await api(bob, `/agents/${annOwn.id}`, { method: 'DELETE' })).status, 404);
    assert.equal((await assign(bob, project.id, 'web_search')).status, 403, 'tools of a project agent are the project’s to change');
    assert.equal((await json<Agent>(await api(ann, `/agents/${annOwn.id}`), 200)).name, 'ann-private', 'unchanged');
    const svc = await json<Agent>(await api(p.keys.serviceRoleKey, `/agents/${annOwn.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'renamed by the project' }) }), 200);
    assert.equal(svc.name, 'renamed by the project', 'the service role manages every agent');
  });

  it('assigns builtin and custom tools by name, refuses unknown names and duplicates, lists and removes them', async () => {
    const a = await newAgent(ann);
    const builtin = await json<Assignment>(await assign(ann, a.id, 'http_request'), 201);
    assert.deepEqual([builtin.agent_id, builtin.tool_name, builtin.tool_type, builtin.tool_id, builtin.config_override], [a.id, 'http_request', 'builtin', null, {}]);
    const tool = await json<{ id: string }>(await api(ann, '/tools', { method: 'POST', body: JSON.stringify({ name: 'ann_weather', description: 'Weather', type: 'http', input_schema: { type: 'object', properties: { city: { type: 'string' } } }, config: { endpoint: 'https://example.com/w' } }) }), 201);
    const custom = await json<Assignment>(await assign(ann, a.id, 'ann_weather'), 201);
    assert.deepEqual([custom.tool_type, custom.tool_id], ['custom', tool.id]);
    const unknown = await json<{ error: string }>(await assign(ann, a.id, 'no_such_tool'), 400);
    assert.match(unknown.error, /Unknown tool "no_such_tool"/);
    assert.equal((await assign(ann, a.id, '')).status, 400);
    assert.equal((await assign(ann, a.id, 'http_request')).status, 409, 'a tool is assigned once');
    assert.equal((await assign(bob, a.id, 'web_search')).status, 404, 'not visible to another user');
    const bobAgent = await newAgent(bob);
    assert.equal((await assign(bob, bobAgent.id, 'ann_weather')).status, 400, 'another user’s custom tool is unknown to bob');

    const list = await json<Assignment[]>(await api(ann, `/agents/${a.id}/tools`), 200);
    assert.deepEqual(list.map((x) => x.tool_name), ['http_request', 'ann_weather']);
    assert.equal((await api(bob, `/agents/${a.id}/tools`)).status, 404);
    assert.equal((await api(ann, `/agents/${a.id}/tools/${builtin.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await api(ann, `/agents/${a.id}/tools/${builtin.id}`, { method: 'DELETE' })).status, 404);
    assert.deepEqual((await json<Assignment[]>(await api(ann, `/agents/${a.id}/tools`), 200)).map((x) => x.tool_name), ['ann_weather']);
    await api(ann, `/agents/${a.id}`, { method: 'DELETE' });
    assert.equal((await api(ann, `/agents/${a.id}/tools`)).status, 404, 'assignments go with their agent');
  });

  it('stores a database tool’s schemas override and refuses bad schema or table names and system schemas', async () => {
    const a = await newAgent(ann);
    const q = await json<Assignment>(await assign(ann, a.id, 'database_query'), 201);
    const ok = await json<Assignment>(await override(ann, a.id, q.id, { config_override: { schemas: { public: ['todos', 'notes'], app_data: ['orders'] }, other: 1 } }), 200);
    assert.deepEqual(ok.config_override, { schemas: { public: ['todos', 'notes'], app_data: ['orders'] } }, 'only schemas is kept');

    const refused: Array<[unknown, RegExp]> = [
      [{ schemas: { auth: ['users'] } }, /system schema/],
      [{ schemas: { storage: ['objects'] } }, /system schema/],
      [{ schemas: { ai: ['agents'] } }, /system schema/],
      [{ schemas: { pg_catalog: ['pg_class'] } }, /system schema/],
      [{ schemas: { information_schema: ['tables'] } }, /system schema/],
      [{ schemas: { '1public': ['t'] } }, /Invalid schema name/],
      [{ schemas: { 'pub-lic': ['t'] } }, /Invalid schema name/],
      [{ schemas: { ['s'.repeat(64)]: ['t'] } }, /Invalid schema name/],
      [{ schemas: { public: 'todos' } }, /must be a list of table names/],
      [{ schemas: { public: ['bad name'] } }, /Invalid table name/],
      [{ schemas: { public: [7] } }, /Invalid table name/],
      [{ schemas: { public: ['t'.repeat(64)] } }, /Invalid table name/],
      [{ schemas: ['public'] }, /must map schema names/],
    ];
    for (const [body, message] of refused) {
      const res = await json<{ error: string }>(await override(ann, a.id, q.id, { config_override: body }), 400);
      assert.match(res.error, message, JSON.stringify(body));
    }
    assert.equal((await override(ann, a.id, q.id, { config_override: 'x' })).status, 400, 'config_override must be an object');
    assert.equal((await override(ann, a.id, q.id, { config_override: null })).status, 400);
    assert.equal((await json<Assignment[]>(await api(ann, `/agents/${a.id}/tools`), 200))[0]!.config_override.schemas !== undefined, true);
    assert.deepEqual((await json<Assignment[]>(await api(ann, `/agents/${a.id}/tools`), 200))[0]!.config_override,
      { schemas: { public: ['todos', 'notes'], app_data: ['orders'] } }, 'a refused override leaves the stored one');
    const sixtyThree = await json<Assignment>(await override(ann, a.id, q.id, { config_override: { schemas: { ['s'.repeat(63)]: ['t'.repeat(63)] } } }), 200);
    assert.deepEqual(Object.keys(sixtyThree.config_override.schemas as object), ['s'.repeat(63)], 'Postgres’s 63-character names fit');
  });

  it('keeps only parameter keys for other builtins; a body without config_override and custom tools change nothing', async () => {
    const a = await newAgent(ann);
    const http = await json<Assignment>(await assign(ann, a.id, 'http_request'), 201);
    const forced = await json<Assignment>(await override(ann, a.id, http.id, { config_override: { method: 'GET', url: 'https://example.com/only', not_a_param: true } }), 200);
    assert.deepEqual(forced.config_override, { method: 'GET', url: 'https://example.com/only' });
    const noop = await json<Assignment>(await override(ann, a.id, http.id, { override: { method: 'POST' }, configOverride: { method: 'POST' } }), 200);
    assert.deepEqual(noop, forced, 'another top-level key is a silent no-op');

    await json(await api(ann, '/tools', { method: 'POST', body: JSON.stringify({ name: 'ann_custom2', description: 'd', type: 'http', input_schema: { type: 'object', properties: {} } }) }), 201);
    const custom = await json<Assignment>(await assign(ann, a.id, 'ann_custom2'), 201);
    const ignored = await json<Assignment>(await override(ann, a.id, custom.id, { config_override: { anything: 1 } }), 200);
    assert.deepEqual(ignored.config_override, {}, 'custom tools ignore config_override');
    assert.equal((await override(bob, a.id, http.id, { config_override: { method: 'POST' } })).status, 404);
    assert.equal((await override(ann, a.id, '00000000-0000-0000-0000-000000000000', { config_override: {} })).status, 404);
  });

  it('adds MCP servers with a default transport, answers headers masked and keeps them encrypted at rest', async () => {
    const a = await newAgent(ann);
    const path = `/agents/${a.id}/mcp-servers`;
    type Mcp = { id: string; agent_id: string; name: string; url: string; transport: string; headers: Record<string, string>; enabled: boolean };
    const made = await json<Mcp>(await api(ann, path, { method: 'POST', body: JSON.stringify({ name: 'files', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer secret-token-12345' } }) }), 201);
    assert.deepEqual([made.agent_id, made.name, made.url, made.transport, made.enabled], [a.id, 'files', 'https://mcp.example.com/mcp', 'streamable_http', true]);
    assert.deepEqual(made.headers, { Authorization: 'Bea...2345' }, 'header values are masked');
    const { rows } = await p.adminPool.query<{ raw: Buffer }>('select headers_encrypted as raw from ai.agent_mcp_servers where id = $1', [made.id]);
    assert.ok(rows[0]!.raw.length > 0 && !rows[0]!.raw.includes('secret-token'), 'stored encrypted');
    const { rows: [plain] } = await p.adminPool.query<{ h: string }>('select ai.decrypt(headers_encrypted, $2) as h from ai.agent_mcp_servers where id = $1', [made.id, MASTER_KEY]);
    assert.deepEqual(JSON.parse(plain!.h), { Authorization: 'Bearer secret-token-12345' }, 'the server can read them back');

    const sse = await json<Mcp>(await api(ann, path, { method: 'POST', body: JSON.stringify({ name: 'events', url: 'http://127.0.0.1:9/sse', transport: 'sse', enabled: false }) }), 201);
    assert.deepEqual([sse.transport, sse.enabled, sse.headers], ['sse', false, {}]);
    for (const [body, message] of [
      [{ url: 'https://x.example' }, /name is required/],
      [{ name: 'n' }, /url is required/],
      [{ name: 'n', url: 'ftp://x.example' }, /http or https/],
      [{ name: 'n', url: 'https://x.example', transport: 'stdio' }, /streamable_http or sse/],
      [{ name: 'n', url: 'https://x.example', headers: { 'Bad Name': 'v' } }, /Invalid header/],
      [{ name: 'n', url: 'https://x.example', headers: { x: 'a\r\nInjected: 1' } }, /Invalid header/],
      [{ name: 'n', url: 'https://x.example', headers: { x: 1 } }, /strings/],
    ] as Array<[object, RegExp]>) {
      const res = await json<{ error: string }>(await api(ann, path, { method: 'POST', body: JSON.stringify(body) }), 400);
      assert.match(res.error, message, JSON.stringify(body));
    }
    assert.equal((await api(ann, path, { method: 'POST', body: JSON.stringify({ name: 'files', url: 'https://other.example' }) })).status, 409, 'names are unique per agent');
    assert.deepEqual((await json<Mcp[]>(await api(ann, path), 200)).map((m) => m.name), ['files', 'events'], 'no half-made server from a refused one');

    const put = await json<Mcp>(await api(ann, `${path}/${made.id}`, { method: 'PUT', body: JSON.stringify({ url: 'https://mcp2.example.com/mcp', enabled: false }) }), 200);
    assert.deepEqual([put.url, put.enabled, put.name, put.headers], ['https://mcp2.example.com/mcp', false, 'files', { Authorization: 'Bea...2345' }]);
    const rekeyed = await json<Mcp>(await api(ann, `${path}/${made.id}`, { method: 'PUT', body: JSON.stringify({ headers: { 'X-Api-Key': 'another-secret-9876' } }) }), 200);
    assert.deepEqual(rekeyed.headers, { 'X-Api-Key': 'ano...9876' }, 'headers are replaced whole');
    assert.equal((await api(ann, `${path}/${made.id}`, { method: 'PUT', body: JSON.stringify({ colour: 'red' }) })).status, 400);
    assert.equal((await api(bob, `${path}/${made.id}`, { method: 'PUT', body: JSON.stringify({ url: 'https://evil.example' }) })).status, 404);
    assert.equal((await api(bob, path)).status, 404);
    assert.equal((await api(ann, `${path}/${made.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await api(ann, `${path}/${made.id}`, { method: 'DELETE' })).status, 404);
    assert.deepEqual((await json<Mcp[]>(await api(ann, path), 200)).map((m) => m.name), ['events']);
  });

  it('lets users read but not change a project agent’s MCP servers, and never write the encrypted column directly', async () => {
    const project = await newAgent(p.keys.serviceRoleKey, { name: 'project-mcp' });
    const made = await json<{ id: string }>(await api(p.keys.serviceRoleKey, `/agents/${project.id}/mcp-servers`, { method: 'POST', body: JSON.stringify({ name: 'p', url: 'https://p.example', headers: { a: 'b' } }) }), 201);
    assert.equal((await json<unknown[]>(await api(bob, `/agents/${project.id}/mcp-servers`), 200)).length, 1);
    assert.equal((await api(bob, `/agents/${project.id}/mcp-servers/${made.id}`, { method: 'PUT', body: JSON.stringify({ url: 'https://evil.example' }) })).status, 403);
    assert.equal((await api(bob, `/agents/${project.id}/mcp-servers/${made.id}`, { method: 'DELETE' })).status, 403);
    assert.equal((await api(bob, `/agents/${project.id}/mcp-servers`, { method: 'POST', body: JSON.stringify({ name: 'q', url: 'https://q.example' }) })).status, 403);
  });

  it('creates hooks as given (unknown event and type kept), lists them by position, refuses changes and deletes them', async () => {
    const a = await newAgent(ann);
    const path = `/agents/${a.id}/hooks`;
    type Hook = { id: string; event: string; type: string; config: Record<string, unknown>; matcher: string | null; enabled: boolean; position: number };
    const http = await json<Hook>(await api(ann, path, { method: 'POST', body: JSON.stringify({ event: 'PreToolUse', type: 'http', config: { url: 'https://hooks.example/pre', timeout_seconds: 3 }, matcher: 'http_request', position: 2 }) }), 201);
    assert.deepEqual([http.event, http.type, http.config, http.matcher, http.enabled, http.position], ['PreToolUse', 'http', { url: 'https://hooks.example/pre', timeout_seconds: 3 }, 'http_request', true, 2]);
    const approval = await json<Hook>(await api(ann, path, { method: 'POST', body: JSON.stringify({ event: 'PreToolUse', type: 'approval', config: { message: 'Allow?' }, position: 1 }) }), 201);
    assert.deepEqual([approval.matcher, approval.position], [null, 1]);
    const odd = await json<Hook>(await api(ann, path, { method: 'POST', body: JSON.stringify({ event: 'OnSomethingElse', type: 'carrier-pigeon', enabled: false }) }), 201);
    assert.deepEqual([odd.event, odd.type, odd.config, odd.enabled, odd.position], ['OnSomethingElse', 'carrier-pigeon', {}, false, 0], 'stored, never fires');
    for (const [body, message] of [
      [{ type: 'rule' }, /event is required/],
      [{ event: 'OnRunStart' }, /type is required/],
      [{ event: 'OnRunStart', type: 'http', config: {} }, /config\.url/],
      [{ event: 'OnRunStart', type: 'http', config: { url: 'file:///etc/passwd' } }, /config\.url/],
      [{ event: 'OnRunStart', type: 'rule', config: [] }, /config must be an object/],
      [{ event: 'OnRunStart', type: 'rule', position: 1.5 }, /position must be an integer/],
    ] as Array<[object, RegExp]>) {
      const res = await json<{ error: string }>(await api(ann, path, { method: 'POST', body: JSON.stringify(body) }), 400);
      assert.match(res.error, message, JSON.stringify(body));
    }
    assert.deepEqual((await json<Hook[]>(await api(ann, path), 200)).map((h) => h.id), [odd.id, approval.id, http.id], 'ascending position');
    const put = await json<{ error: string }>(await api(ann, `${path}/${http.id}`, { method: 'PUT', body: JSON.stringify({ enabled: false }) }), 405);
    assert.match(put.error, /immutable/);
    assert.equal((await api(ann, `${path}/${http.id}`, { method: 'PATCH', body: JSON.stringify({ enabled: false }) })).status, 405);
    assert.equal((await api(bob, path)).status, 404);
    assert.equal((await api(bob, `${path}/${http.id}`, { method: 'DELETE' })).status, 404);
    assert.equal((await api(bob, path, { method: 'POST', body: JSON.stringify({ event: 'OnRunStart', type: 'rule' }) })).status, 404);
    assert.equal((await api(ann, `${path}/${http.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await api(ann, `${path}/${http.id}`, { method: 'DELETE' })).status, 404);
    assert.deepEqual((await json<Hook[]>(await api(ann, path), 200)).map((h) => h.id), [odd.id, approval.id]);
  });
});
