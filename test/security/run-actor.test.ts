// Every run has a definite caller (containment item 1). A signed-in user's
// webhook must not run as the project: reading a private bucket, an RLS
// table and a service-only function through platform_api answers exactly
// what the same graph answers through `execute` as that user. The webhook
// run is recorded as the owner's, so the owner sees it; a project workflow
// (created with the service-role key) still acts as the project.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Run = { status?: string; output?: unknown; error?: string; error_code?: string; execution_id?: string };

describe('runs act as a definite caller', () => {
  let p: TestPlatform;
  let ann: { token: string; id: string };
  const { post, put, api, json } = aiApi(() => p);
  const service = () => p.keys.serviceRoleKey;

  /** A workflow of starter (for execute) and webhook -> one platform_api block -> response, saved by `token`; answers its id, webhook id and secret. */
  const probe = async (token: string, config: Record<string, unknown>) => {
    const w = await json<{ id: string }>(await post(token, '/workflows', { name: `probe ${String(config.operation)}` }), 201);
    const saved = await json<{ blocks: Array<{ id: string; config: { webhook_id?: string; webhook_secret?: string } }> }>(await put(token, `/workflows/${w.id}/graph`, {
      blocks: [{ id: 'start', type: 'starter' }, { id: 'hook', type: 'webhook' }, { id: 'read', type: 'platform_api', config }, { id: 'out', type: 'response', config: { output: '<read>' } }],
      edges: [{ source: 'start', target: 'read' }, { source: 'hook', target: 'read' }, { source: 'read', target: 'out' }],
    }), 200);
    const hook = saved.blocks.find((b) => b.id === 'hook')!.config;
    await json(await post(token, `/workflows/${w.id}/deploy`, {}), 200);
    return { id: w.id, webhookId: hook.webhook_id!, secret: hook.webhook_secret! };
  };
  const execute = async (token: string, id: string) => {
    const res = await post(token, `/workflows/${id}/execute`, {});
    return { status: res.status, body: (await res.json()) as Run };
  };
  const callHook = async (w: { webhookId: string; secret: string }) => {
    const res = await fetch(`${p.url}/api/webhooks/${w.webhookId}`, { method: 'POST', headers: { authorization: `Bearer ${w.secret}`, 'content-type': 'application/json' }, body: '{}' });
    return { status: res.status, body: (await res.json()) as Run };
  };
  /** What a run answered, without the per-run execution id. */
  const outcome = (r: { status: number; body: Run }) => ({ status: r.status, output: r.body.output, error: r.body.error?.replace(/[0-9a-f-]{36}/g, '<id>') });

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    const session = await signUp(p, 'actor-ann@example.com');
    ann = { token: session.access_token, id: session.user.id };
    const bob = await signUp(p, 'actor-bob@example.com');
    await p.adminPool.query(`create table public.ledger_rows (id int primary key, owner uuid not null, note text not null);
      alter table public.ledger_rows enable row level security;
      create policy own_rows on public.ledger_rows for select to authenticated using (owner = auth.uid());
      grant select on public.ledger_rows to authenticated;
      insert into public.ledger_rows values (1, '${bob.user.id}', 'bob''s secret'), (2, '${ann.id}', 'ann''s own');
      create function public.project_only() returns text language sql as $$ select 'project eyes only' $$;
      revoke execute on function public.project_only() from public, anon, authenticated;
      grant execute on function public.project_only() to service_role;
      notify pgrst, 'reload schema';`);
    const bucket = await fetch(`${p.url}/storage/v1/bucket`, { method: 'POST', headers: { apikey: service(), authorization: `Bearer ${service()}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'vault', public: false }) });
    assert.equal(bucket.status, 200, await bucket.text());
    const upload = await fetch(`${p.url}/storage/v1/object/vault/keys.txt`, { method: 'POST', headers: { apikey: service(), authorization: `Bearer ${service()}`, 'content-type': 'text/plain' }, body: 'the project secret' });
    assert.equal(upload.status, 200, await upload.text());
    for (let i = 0; i < 100 && (await fetch(`${p.url}/rest/v1/ledger_rows`, { headers: { apikey: service(), authorization: `Bearer ${service()}` } })).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(() => stopTestPlatform(p));

  const probes: Array<[string, Record<string, unknown>]> = [
    ['a private bucket', { operation: 'storage_read', bucket: 'vault', path: 'keys.txt' }],
    ['an RLS table', { operation: 'select', table: 'ledger_rows', select: 'id,note', order: 'id.asc' }],
    ['a function only the project may call', { operation: 'rpc', function: 'project_only' }],
  ];
  for (const [what, config] of probes) {
    it(`a user's webhook reads ${what} exactly as the user's execute does`, async () => {
      const w = await probe(ann.token, config);
      const direct = await execute(ann.token, w.id);
      const hooked = await callHook(w);
      assert.deepEqual(outcome(hooked), outcome(direct), 'the webhook acts as the workflow owner, not as the project');
      assert.ok(!JSON.stringify(hooked.body).includes('project secret') && !JSON.stringify(hooked.body).includes('bob') && !JSON.stringify(hooked.body).includes('eyes only'), JSON.stringify(hooked.body));
      const { rows } = await p.adminPool.query(`select user_id, acts_as from ai.workflow_executions where workflow_id = $1 and trigger = 'webhook'`, [w.id]);
      assert.deepEqual(rows, [{ user_id: ann.id, acts_as: 'user' }], 'recorded as the owner\'s run');
      const mine = await json<Array<{ trigger: string }>>(await api(ann.token, `/workflows/${w.id}/executions`), 200);
      assert.deepEqual(mine.map((e) => e.trigger).sort(), ['manual', 'webhook'], 'the owner sees the webhook run');
    });
  }

  it('a project workflow still acts as the project through its webhook', async () => {
    const w = await probe(service(), { operation: 'storage_read', bucket: 'vault', path: 'keys.txt' });
    const hooked = await callHook(w);
    assert.equal(hooked.status, 200, JSON.stringify(hooked.body));
    assert.equal((hooked.body.output as { text: string }).text, 'the project secret');
    const { rows } = await p.adminPool.query(`select user_id, acts_as from ai.workflow_executions where workflow_id = $1`, [w.id]);
    assert.deepEqual(rows, [{ user_id: null, acts_as: 'project' }]);
  });

  it('an execution cannot be recorded without saying whom it acts as', async () => {
    const w = await probe(service(), { operation: 'select', table: 'ledger_rows' });
    await assert.rejects(p.adminPool.query(`insert into ai.workflow_executions (workflow_id, user_id, acts_as, trigger) values ($1, null, 'user', 'manual')`, [w.id]), /workflow_executions_actor/);
    await assert.rejects(p.adminPool.query(`insert into ai.workflow_executions (workflow_id, trigger) values ($1, 'manual')`, [w.id]), /signed-in user or the service-role key/,
      'a caller that is neither a user nor the service role gets no actor by default');
  });

  it('the executions of a workflow the caller cannot see are 404, not an empty list', async () => {
    const bob = await signUp(p, 'actor-bob2@example.com');
    const w = await probe(ann.token, { operation: 'select', table: 'ledger_rows' });
    const hidden = await api(bob.access_token, `/workflows/${w.id}/executions`);
    assert.equal(hidden.status, 404);
    assert.deepEqual(await hidden.json(), { error: 'Workflow not found' });
    assert.equal((await api(bob.access_token, '/workflows/00000000-0000-4000-8000-000000000000/executions')).status, 404);
  });
});
