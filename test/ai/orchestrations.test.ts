// /api/orchestrations over HTTP (spec 2.4b, 4.10): orchestration CRUD, entities
// (required fields, the 50-character type, only role_description, config and
// position writable, ordered by position, the `role` alias), hooks (stored,
// listed by position, deleted, immutable) and the access model.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Orchestration = { id: string; owner_id: string | null; name: string; strategy: string; model: string | null; system_prompt: string | null; settings: Record<string, unknown>; entities?: Entity[] };
type Entity = { id: string; orchestration_id: string; entity_type: string; entity_ref_id: string; role_description: string | null; config: Record<string, unknown>; position: number };

describe('AI orchestrations (/api/orchestrations)', () => {
  let p: TestPlatform;
  let ann: string;
  let bob: string;
  const { api, json, post, put } = aiApi(() => p);
  const newAgent = async (token: string, name = 'member') => (await json<{ id: string }>(await post(token, '/agents', { name }), 201)).id;
  const newOrchestration = async (token: string, body: Record<string, unknown> = { name: 'team' }) => json<Orchestration>(await post(token, '/orchestrations', body), 201);

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    ann = (await signUp(p, 'ann-orch@example.com')).access_token;
    bob = (await signUp(p, 'bob-orch@example.com')).access_token;
  });
  after(() => stopTestPlatform(p));

  it('creates, reads, lists, updates and deletes an orchestration', async () => {
    const made = await newOrchestration(ann, { name: 'research team', strategy: 'coordinator', model: 'gpt-4o-mini', settings: { max_steps: 4 }, colour: 'blue' });
    assert.deepEqual([made.name, made.strategy, made.model, made.settings], ['research team', 'coordinator', 'gpt-4o-mini', { max_steps: 4 }]);
    assert.ok(!('colour' in made));
    assert.equal((await newOrchestration(ann, { name: 'defaults' })).strategy, 'coordinator', 'the default strategy');
    const got = await json<Orchestration>(await api(ann, `/orchestrations/${made.id}`), 200);
    assert.deepEqual(got.entities, [], 'an orchestration comes with its entities');
    assert.ok((await json<Orchestration[]>(await api(ann, '/orchestrations'), 200)).some((o) => o.id === made.id));
    const renamed = await json<Orchestration>(await put(ann, `/orchestrations/${made.id}`, { name: 'renamed', system_prompt: 'Delegate wisely.' }), 200);
    assert.deepEqual([renamed.name, renamed.strategy, renamed.system_prompt, renamed.model], ['renamed', 'coordinator', 'Delegate wisely.', 'gpt-4o-mini']);
    for (const [body, message] of [[{}, /No fields to update/], [{ name: '' }, /name is required/], [{ strategy: 'x'.repeat(51) }, /at most 50/], [{ settings: 'fast' }, /settings must be an object/]] as Array<[object, RegExp]>) {
      assert.match((await json<{ error: string }>(await put(ann, `/orchestrations/${made.id}`, body), 400)).error, message);
    }
    assert.match((await json<{ error: string }>(await post(ann, '/orchestrations', { strategy: 'coordinator' }), 400)).error, /name is required/);
    assert.equal((await api(ann, `/orchestrations/${made.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await api(ann, `/orchestrations/${made.id}`)).status, 404);
    assert.equal((await api(ann, `/orchestrations/${made.id}`, { method: 'DELETE' })).status, 404);
    assert.equal((await api(ann, '/orchestrations/nope')).status, 404);
  });

  it('adds entities (400 without type or reference), orders them by position and keeps only writable fields on update', async () => {
    const o = await newOrchestration(ann);
    const base = `/orchestrations/${o.id}/entities`;
    const writer = await newAgent(ann, 'writer');
    const checker = await newAgent(ann, 'checker');
    const w = await json<Entity>(await post(ann, base, { entity_type: 'agent', entity_ref_id: writer, role_description: 'Writes drafts', position: 2 }), 201);
    assert.deepEqual([w.entity_type, w.entity_ref_id, w.role_description, w.config, w.position], ['agent', writer, 'Writes drafts', {}, 2]);
    const c = await json<Entity>(await post(ann, base, { entity_type: 'agent', entity_ref_id: checker, role: 'Checks facts', config: { max_steps: 3 }, position: 1 }), 201);
    assert.equal(c.role_description, 'Checks facts', 'part 9: role is accepted for role_description');
    assert.ok(!('role' in c), 'and never emitted');
    const other = await json<Entity>(await post(ann, base, { entity_type: 'x'.repeat(50), entity_ref_id: 'anything-at-all' }), 201);
    assert.equal(other.position, 0, 'another type is kept as given (and skipped at run time)');

    for (const [body, message] of [
      [{ entity_ref_id: writer }, /entity_type is required/],
      [{ entity_type: 'agent' }, /entity_ref_id is required/],
      [{ entity_type: 'x'.repeat(51), entity_ref_id: 'r' }, /at most 50 characters/],
      [{ entity_type: 'agent', entity_ref_id: '00000000-0000-0000-0000-000000000000' }, /not an agent you can use/],
      [{ entity_type: 'agent', entity_ref_id: 'writer' }, /not an agent you can use/],
      [{ entity_type: 'agent', entity_ref_id: writer, position: 'first' }, /position must be an integer/],
      [{ entity_type: 'agent', entity_ref_id: writer, config: [1] }, /config must be an object/],
    ] as Array<[object, RegExp]>) {
      assert.match((await json<{ error: string }>(await post(ann, base, body), 400)).error, message, JSON.stringify(body));
    }
    const bobsAgent = await newAgent(bob, 'bob-agent');
    assert.equal((await post(ann, base, { entity_type: 'agent', entity_ref_id: bobsAgent })).status, 400, 'another user’s agent cannot be a member');

    assert.deepEqual((await json<Entity[]>(await api(ann, base), 200)).map((e) => e.id), [other.id, c.id, w.id], 'ordered by position');
    const changed = await json<Entity>(await put(ann, `${base}/${w.id}`, { role_description: 'Writes final copy', position: -1, config: { tone: 'plain' }, entity_type: 'tool', entity_ref_id: checker }), 200);
    assert.deepEqual([changed.entity_type, changed.entity_ref_id, changed.role_description, changed.position, changed.config], ['agent', writer, 'Writes final copy', -1, { tone: 'plain' }], 'type and reference are not writable');
    const ignored = await json<Entity>(await put(ann, `${base}/${w.id}`, { entity_type: 'tool' }), 200);
    assert.deepEqual(ignored, changed, 'a body of only other keys changes nothing');
    assert.deepEqual((await json<Orchestration>(await api(ann, `/orchestrations/${o.id}`), 200)).entities!.map((e) => e.id), [w.id, other.id, c.id]);
    assert.equal((await api(ann, `${base}/${c.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await api(ann, `${base}/${c.id}`, { method: 'DELETE' })).status, 404);
    assert.equal((await put(ann, `${base}/${c.id}`, { position: 1 })).status, 404);
  });

  it('stores hooks with a required type and config, lists them by position, refuses changes and deletes them', async () => {
    const o = await newOrchestration(ann);
    const base = `/orchestrations/${o.id}/hooks`;
    const late = await json<{ id: string; event: string; enabled: boolean; position: number }>(await post(ann, base, { event: 'OnRunComplete', type: 'http', config: { url: 'https://hooks.example/done' }, position: 5 }), 201);
    const early = await json<{ id: string; event: string; enabled: boolean; position: number; matcher: string | null }>(await post(ann, base, { event: 'custom event, verbatim', type: 'rule', config: { condition: 'true' } }), 201);
    assert.deepEqual([early.event, early.enabled, early.position, early.matcher], ['custom event, verbatim', true, 0, null]);
    for (const [body, message] of [
      [{ type: 'rule', config: {} }, /event is required/],
      [{ event: 'OnRunStart', config: {} }, /type is required/],
      [{ event: 'OnRunStart', type: 'pigeon', config: {} }, /http, rule or approval/],
      [{ event: 'OnRunStart', type: 'rule' }, /config is required/],
      [{ event: 'OnRunStart', type: 'http', config: {} }, /config\.url/],
    ] as Array<[object, RegExp]>) {
      assert.match((await json<{ error: string }>(await post(ann, base, body), 400)).error, message, JSON.stringify(body));
    }
    assert.deepEqual((await json<Array<{ id: string }>>(await api(ann, base), 200)).map((h) => h.id), [early.id, late.id]);
    assert.equal((await put(ann, `${base}/${late.id}`, { enabled: false })).status, 405);
    assert.equal((await api(bob, base)).status, 404);
    assert.equal((await api(ann, `${base}/${late.id}`, { method: 'DELETE' })).status, 200);
    assert.deepEqual((await json<Array<{ id: string }>>(await api(ann, base), 200)).map((h) => h.id), [early.id]);
  });

  it('keeps a user’s orchestrations private and a project orchestration readable but unchangeable by users', async () => {
    const mine = await newOrchestration(ann, { name: 'ann-only' });
    const project = await newOrchestration(p.keys.serviceRoleKey, { name: 'project-team' });
    assert.equal(project.owner_id, null);
    assert.equal((await api(bob, `/orchestrations/${mine.id}`)).status, 404);
    assert.ok(!(await json<Orchestration[]>(await api(bob, '/orchestrations'), 200)).some((o) => o.id === mine.id));
    assert.equal((await api(bob, `/orchestrations/${mine.id}/entities`)).status, 404);
    assert.equal((await json<Orchestration>(await api(bob, `/orchestrations/${project.id}`), 200)).name, 'project-team');
    assert.equal((await put(bob, `/orchestrations/${project.id}`, { name: 'taken' })).status, 403);
    assert.equal((await api(bob, `/orchestrations/${project.id}`, { method: 'DELETE' })).status, 403);
    const bobsAgent = await newAgent(bob, 'bob-member');
    assert.equal((await post(bob, `/orchestrations/${project.id}/entities`, { entity_type: 'agent', entity_ref_id: bobsAgent })).status, 403);
    assert.equal((await post(bob, `/orchestrations/${project.id}/hooks`, { event: 'OnRunStart', type: 'rule', config: {} })).status, 403);
    const projectAgent = await newAgent(p.keys.serviceRoleKey, 'project-member');
    const e = await json<Entity>(await post(p.keys.serviceRoleKey, `/orchestrations/${project.id}/entities`, { entity_type: 'agent', entity_ref_id: projectAgent }), 201);
    assert.equal((await put(bob, `/orchestrations/${project.id}/entities/${e.id}`, { position: 9 })).status, 403);
    assert.equal((await api(bob, `/orchestrations/${project.id}/entities/${e.id}`, { method: 'DELETE' })).status, 403);
    assert.equal((await json<Entity[]>(await api(bob, `/orchestrations/${project.id}/entities`), 200)).length, 1, 'bob reads the project’s members');
    // Deleting the orchestration takes its entities and hooks with it.
    await post(ann, `/orchestrations/${mine.id}/hooks`, { event: 'OnRunStart', type: 'rule', config: {} });
    assert.equal((await api(ann, `/orchestrations/${mine.id}`, { method: 'DELETE' })).status, 200);
    const { rows } = await p.adminPool.query<{ n: number }>('select count(*)::int as n from ai.orchestration_hooks where orchestration_id = $1', [mine.id]);
    assert.equal(rows[0]!.n, 0);
  });
});
