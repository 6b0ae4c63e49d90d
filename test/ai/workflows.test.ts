// /api/workflows over HTTP: CRUD in part 7's two shapes, the draft graph
// saved whole or not at all with SQL's rules (registered types and their
// aliases, ids, edges within the graph, no cycle outside a split), webhook
// ids and secrets, versions with rollback, deploy, undeploy, the arm window,
// and the access model.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signUp } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Block = { id: string; type: string; config: Record<string, unknown>; position: { x: number; y: number } };
type Workflow = { id: string; name: string; description: string | null; owner_id: string | null; deployed: boolean; active_version: number | null; armed_until: string | null; blocks: Block[]; edges: Array<{ source: string; target: string }> };

describe('workflows (/api/workflows)', () => {
  let p: TestPlatform;
  let ann: string;
  let bob: string;
  const headers = (token: string) => ({ apikey: token === p.keys.serviceRoleKey ? token : p.keys.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const api = (token: string, path: string, init: RequestInit = {}) => fetch(`${p.url}/api/workflows${path}`, { ...init, headers: headers(token) });
  const create = async (token: string, name = 'flow') => (await (await api(token, '', { method: 'POST', body: JSON.stringify({ name }) })).json()) as Workflow;
  const putGraph = (token: string, id: string, graph: unknown) => api(token, `/${id}/graph`, { method: 'PUT', body: JSON.stringify(graph) });
  const chain = { blocks: [{ id: 'start', type: 'starter', config: {}, position: { x: 0, y: 0 } }, { id: 'fn', type: 'function', config: { code: 'return 1' }, position: { x: 200, y: 0 } }, { id: 'out', type: 'response', config: { output: '<fn>' }, position: { x: 400, y: 0 } }],
    edges: [{ source: 'start', target: 'fn' }, { source: 'fn', target: 'out' }] };

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    ann = (await signUp(p, 'ann@example.com')).access_token;
    bob = (await signUp(p, 'bob@example.com')).access_token;
  });
  after(() => stopTestPlatform(p));

  it('lists the block types with the config schema put_graph\'s callers fill in, in palette order', async () => {
    const res = await api(ann, '/block-types');
    assert.equal(res.status, 200);
    const types = (await res.json()) as Array<{ type: string; label: string; config_schema: { required?: string[] }; is_trigger: boolean; aliases: string[]; examples: unknown[] }>;
    assert.deepEqual(types.slice(0, 3).map((t) => t.type), ['starter', 'webhook', 'agent']);
    const code = types.find((t) => t.type === 'code')!;
    assert.deepEqual([code.label, code.config_schema.required, code.aliases, code.is_trigger], ['Code', ['code'], ['function'], false]);
    assert.ok(types.some((t) => t.type === 'wait'), 'every registered type, the later migrations\' too');
    const starter = types.find((t) => t.type === 'starter')! as unknown as { config_schema: { properties: { inputs: { items: { properties: { type: { enum: string[] } } } } } } };
    assert.deepEqual(starter.config_schema.properties.inputs.items.properties.type.enum, ['string', 'number', 'boolean', 'json'], 'a run\'s inputs, for a form to ask for');
    assert.equal((await fetch(`${p.url}/api/workflows/block-types`)).status, 401);
  });

  it('creates, lists, reads, patches and deletes, answering {error} or {error, error_code} as part 7 says', async () => {
    const created = await api(ann, '', { method: 'POST', body: JSON.stringify({ name: 'Triage', description: 'sorts tickets' }) });
    assert.equal(created.status, 201);
    const w = (await created.json()) as Workflow;
    assert.deepEqual([w.name, w.description, w.deployed, w.blocks, w.edges], ['Triage', 'sorts tickets', false, [], []]);
    const list = (await (await api(ann, '?limit=10')).json()) as { items: Workflow[]; total: number; limit: number; offset: number };
    assert.ok(list.items.some((x) => x.id === w.id));
    assert.deepEqual([list.limit, list.offset], [10, 0]);
    const patched = await api(ann, `/${w.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'Triage v2' }) });
    assert.equal(((await patched.json()) as Workflow).name, 'Triage v2');
    const cleared = (await (await api(ann, `/${w.id}`, { method: 'PATCH', body: JSON.stringify({ description: null }) })).json()) as Workflow;
    assert.deepEqual([cleared.name, cleared.description], ['Triage v2', null]);

    const errors: Array<[string, RequestInit, number, unknown]> = [
      ['', { method: 'POST', body: JSON.stringify({}) }, 400, { error: 'name: name is required' }],
      ['', { method: 'POST', body: JSON.stringify({ name: '  ' }) }, 400, { error: 'name: name is required' }],
      ['', { method: 'POST' }, 400, { error: 'name: name is required' }],
      [`/${w.id}`, { method: 'PATCH', body: JSON.stringify({ nothing: 1 }) }, 400, { error: 'No fields to update: send name or description' }],
      [`/${w.id}`, { method: 'PATCH' }, 400, { error: 'No fields to update: send name or description' }],
      ['/00000000-0000-4000-8000-000000000000', { method: 'PATCH', body: JSON.stringify({ name: 'x' }) }, 404, { error: 'Workflow not found' }],
      ['/00000000-0000-4000-8000-000000000000', { method: 'DELETE' }, 404, { error: 'Workflow not found' }],
      ['/00000000-0000-4000-8000-000000000000', {}, 404, { error: 'Workflow not found', error_code: 'WORKFLOW_NOT_FOUND' }],
      ['/not-a-uuid', {}, 404, { error: 'Workflow not found', error_code: 'WORKFLOW_NOT_FOUND' }],
      ['/00000000-0000-4000-8000-000000000000/graph', { method: 'PUT', body: JSON.stringify(chain) }, 404, { error: 'Workflow not found', error_code: 'WORKFLOW_NOT_FOUND' }],
      ['/00000000-0000-4000-8000-000000000000/deploy', { method: 'POST' }, 404, { error: 'Workflow not found' }],
      ['/00000000-0000-4000-8000-000000000000/arm', { method: 'POST' }, 404, { error: 'Workflow not found' }],
    ];
    for (const [path, init, status, body] of errors) {
      const res = await api(ann, path, init);
      assert.equal(res.status, status, `${init.method ?? 'GET'} ${path}`);
      assert.deepEqual(await res.json(), body, `${init.method ?? 'GET'} ${path}`);
    }
    const deleted = await api(ann, `/${w.id}`, { method: 'DELETE' });
    assert.deepEqual(await deleted.json(), { message: 'Workflow deleted', id: w.id });
    assert.equal((await api(ann, `/${w.id}`)).status, 404);
  });

  it('saves a whole graph, aliases stored as their canonical type, and reads it back in order', async () => {
    const w = await create(ann);
    const res = await putGraph(ann, w.id, chain);
    assert.equal(res.status, 200);
    const saved = (await res.json()) as { blocks: Block[]; edges: unknown[] };
    assert.deepEqual(saved.blocks.map((b) => [b.id, b.type]), [['start', 'starter'], ['fn', 'code'], ['out', 'response']]);
    assert.deepEqual(saved.edges, chain.edges);
    const read = (await (await api(ann, `/${w.id}`)).json()) as Workflow;
    assert.deepEqual(read.blocks, saved.blocks);
    const apiCall = await putGraph(ann, w.id, { blocks: [{ id: 'call', type: 'api_call', config: { url: 'https://example.com' } }] });
    assert.deepEqual(((await apiCall.json()) as { blocks: Block[] }).blocks.map((b) => [b.type, b.position]), [['general_api', { x: 0, y: 0 }]]);
  });

  it('refuses a bad graph with 400 VALIDATION_ERROR naming the block or edge, and changes nothing', async () => {
    const w = await create(ann);
    await putGraph(ann, w.id, chain);
    const cases: Array<[unknown, RegExp]> = [
      [{ blocks: [{ id: 'a', type: 'teleport' }] }, /^Unknown block type "teleport" \(block "a"\)$/],
      [{ blocks: [{ type: 'code' }] }, /^blocks\[0\]: missing id$/],
      [{ blocks: [{ id: 'a' }] }, /^Block "a": missing type$/],
      [{ blocks: [{ id: 'a', type: 'code' }, { id: 'a', type: 'code' }] }, /^Duplicate block id "a"$/],
      [{ blocks: [{ id: 'a', type: 'code' }], edges: [{ source: 'a', target: 'ghost' }] }, /^Edge a -> ghost: no block "ghost" in this graph$/],
      [{ blocks: [{ id: 'a', type: 'code' }], edges: [{ source: 'a' }] }, /^edges\[0\]: each edge needs a source and a target/],
      [{ blocks: [{ id: 'a', type: 'code' }, { id: 'b', type: 'code' }], edges: [{ source: 'a', target: 'b' }, { source: 'b', target: 'a' }] }, /is on a cycle; only a split may lead back$/],
      [{ blocks: [{ id: 'a', type: 'code', position: { x: 'left' } }] }, /^Block "a": position must be \{x, y\} with numbers$/],
      [{ blocks: [{ id: 'a', type: 'code', config: [] }] }, /^Block "a": config must be an object$/],
      [{ blocks: [{ id: 'h', type: 'webhook', config: { webhook_id: 'nope' } }] }, /^Block "h": webhook_id must be a UUID$/],
      [{ blocks: 'all of them' }, /^blocks must be an array$/],
      [{ edges: [] }, /^blocks: blocks is required$/],
    ];
    for (const [graph, message] of cases) {
      const res = await putGraph(ann, w.id, graph);
      assert.equal(res.status, 400, JSON.stringify(graph));
      const body = (await res.json()) as { error: string; error_code: string };
      assert.equal(body.error_code, 'VALIDATION_ERROR');
      assert.match(body.error, message);
    }
    const read = (await (await api(ann, `/${w.id}`)).json()) as Workflow;
    assert.deepEqual(read.blocks.map((b) => b.id), ['start', 'fn', 'out'], 'the saved graph is untouched');
    const splitLoop = await putGraph(ann, w.id, { blocks: [{ id: 's', type: 'split', config: { items: '<variables.x>' } }, { id: 'c', type: 'code' }], edges: [{ source: 's', target: 'c' }, { source: 'c', target: 's' }] });
    assert.equal(splitLoop.status, 200, 'a loop through a split is allowed');
  });

  it('gives a webhook block an id and secret when it has none, and keeps given ones', async () => {
    const w = await create(ann);
    const saved = (await (await putGraph(ann, w.id, { blocks: [{ id: 'hook', type: 'webhook' }] })).json()) as { blocks: Block[] };
    const config = saved.blocks[0]!.config as { webhook_id: string; webhook_secret: string };
    assert.match(config.webhook_id, /^[0-9a-f-]{36}$/);
    assert.match(config.webhook_secret, /^[0-9a-f]{48}$/);
    const again = (await (await putGraph(ann, w.id, { blocks: [{ id: 'hook', type: 'webhook', config }] })).json()) as { blocks: Block[] };
    assert.deepEqual(again.blocks[0]!.config, config, 'kept when the graph is saved with them');
    const other = await create(ann);
    const taken = await putGraph(ann, other.id, { blocks: [{ id: 'hook', type: 'webhook', config: { webhook_id: config.webhook_id } }] });
    assert.equal(taken.status, 409, 'a webhook id belongs to one workflow');
  });

  it('deploys numbered versions, lists them, rolls back, undeploys, and arms a 10-minute window', async () => {
    const w = await create(ann);
    await putGraph(ann, w.id, chain);
    const first = await api(ann, `/${w.id}/deploy`, { method: 'POST' });
    assert.deepEqual(await first.json(), { deployed: true, version: 1, active_version: 1 });
    await putGraph(ann, w.id, { blocks: [{ id: 'only', type: 'starter' }] });
    assert.deepEqual(await (await api(ann, `/${w.id}/deploy`, { method: 'POST' })).json(), { deployed: true, version: 2, active_version: 2 });
    const versions = (await (await api(ann, `/${w.id}/versions`)).json()) as Array<{ version: number; active: boolean; blocks: number }>;
    assert.deepEqual(versions.map((v) => [v.version, v.active, v.blocks]), [[2, true, 1], [1, false, 3]]);
    // One version's graph as it was deployed, for a diff between two.
    const one = (await (await api(ann, `/${w.id}/versions/1`)).json()) as { version: number; active: boolean; graph: { blocks: Array<{ id: string }>; edges: unknown[] } };
    assert.deepEqual([one.version, one.active, one.graph.blocks.map((b) => b.id), one.graph.edges.length], [1, false, ['start', 'fn', 'out'], 2]);
    assert.equal((await api(ann, `/${w.id}/versions/9`)).status, 404);
    assert.equal((await api(ann, `/${w.id}/versions/x`)).status, 400);
    assert.equal((await api(bob, `/${w.id}/versions/1`)).status, 404, 'another user cannot read it');
    assert.deepEqual(await (await api(ann, `/${w.id}/versions/1/activate`, { method: 'POST' })).json(), { active_version: 1 });
    assert.equal(((await (await api(ann, `/${w.id}`)).json()) as Workflow).active_version, 1, 'rolled back');
    assert.equal((await api(ann, `/${w.id}/versions/9/activate`, { method: 'POST' })).status, 404);
    assert.equal((await api(ann, `/${w.id}/versions/zero/activate`, { method: 'POST' })).status, 400);
    const { rows } = await p.adminPool.query(`select graph from ai.workflow_versions where workflow_id = $1 and version = 1`, [w.id]);
    assert.equal(rows[0].graph.blocks.length, 3, 'a version is the graph as it was deployed');
    assert.deepEqual(await (await api(ann, `/${w.id}/undeploy`, { method: 'POST' })).json(), { deployed: false });
    const armed = (await (await api(ann, `/${w.id}/arm`, { method: 'POST' })).json()) as { ok: boolean; armed_until: string };
    assert.equal(armed.ok, true);
    const minutes = (new Date(armed.armed_until).getTime() - Date.now()) / 60_000;
    assert.ok(minutes > 9.9 && minutes <= 10, `armed for 10 minutes (${minutes})`);
    assert.equal(((await (await api(ann, `/${w.id}`)).json()) as Workflow).armed_until !== null, true);
  });

  it('applies the access model: others’ workflows are 404, project workflows read-only for users', async () => {
    const annFlow = await create(ann, 'ann-flow');
    const project = await create(p.keys.serviceRoleKey, 'project-flow');
    assert.equal(project.owner_id, null);
    const bobList = ((await (await api(bob, '')).json()) as { items: Workflow[] }).items.map((w) => w.name);
    assert.ok(bobList.includes('project-flow') && !bobList.includes('ann-flow'));
    assert.equal((await api(bob, `/${annFlow.id}`)).status, 404);
    assert.equal((await putGraph(bob, annFlow.id, chain)).status, 404);
    assert.equal((await api(bob, `/${annFlow.id}/deploy`, { method: 'POST' })).status, 404);
    assert.equal((await api(bob, `/${project.id}`)).status, 200, 'a project workflow is readable');
    const graph = await putGraph(bob, project.id, chain);
    assert.equal(graph.status, 403);
    assert.deepEqual(await graph.json(), { error: 'You can only change your own workflows', error_code: 'FORBIDDEN' });
    assert.equal((await api(bob, `/${project.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'x' }) })).status, 403);
    assert.equal((await api(bob, `/${project.id}/arm`, { method: 'POST' })).status, 403);
    assert.equal((await api(bob, `/${project.id}`, { method: 'DELETE' })).status, 403);
    assert.equal((await putGraph(p.keys.serviceRoleKey, annFlow.id, chain)).status, 200, 'the service role changes anything');
  });
});
