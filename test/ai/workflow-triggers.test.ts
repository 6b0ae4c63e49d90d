// Workflows that start by themselves (issue 50, item 5; sql/0124): on a
// schedule (through Cron), on a row change (the Database Webhook shape, with
// a condition) and on a queue message (archived on success, shown again on
// failure, dead-lettered after max_attempts), each run once, with its
// trigger in the run history, acting as the workflow's owner, from the
// deployed version; undeployed, nothing starts; a DBA declares one in SQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { signUp } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Run = { id: string; trigger: string; status: string; version: number; variables: Record<string, any>; output: unknown; user_id: string | null; trigger_message: string | null };

describe('workflows started by a schedule, a row change and a queue message', () => {
  let p: TestPlatform;
  const service = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' });
  const api = (path: string, init: RequestInit = {}, headers = service()) => fetch(`${p.url}/api/workflows${path}`, { ...init, headers });
  const workflow = async (code: string, headers = service()) => {
    const w = (await (await api('', { method: 'POST', body: JSON.stringify({ name: 'triggered' }) }, headers)).json()) as { id: string };
    const graph = { blocks: [{ id: 'start', type: 'starter' }, { id: 'out', type: 'code', config: { code } }], edges: [{ source: 'start', target: 'out' }] };
    assert.equal((await api(`/${w.id}/graph`, { method: 'PUT', body: JSON.stringify(graph) }, headers)).status, 200);
    assert.equal((await api(`/${w.id}/deploy`, { method: 'POST' }, headers)).status, 200);
    return w.id;
  };
  const runs = async (workflowId: string) => (await p.adminPool.query<Run>(
    'select id, trigger, status, version, variables, output, user_id, trigger_message::text from ai.workflow_executions where workflow_id = $1 order by created_at', [workflowId])).rows;
  const ended = (r: Run[]) => r.every((x) => ['succeeded', 'failed', 'cancelled'].includes(x.status));

  before(async () => {
    p = await startTestPlatform({ LOG_LEVEL: 'warn' });
  });
  after(() => stopTestPlatform(p));

  it('runs on a schedule, once a tick, as its owner, and stops when the trigger goes', async () => {
    const user = await signUp(p, 'scheduled@example.com');
    const mine = { apikey: p.keys.anonKey, authorization: `Bearer ${user.access_token}`, 'content-type': 'application/json' };
    const id = await workflow(`return 'tick at ' + variables.scheduled_at;`, mine);
    const added = await api(`/${id}/triggers`, { method: 'POST', body: JSON.stringify({ type: 'schedule', schedule: '2 seconds' }) }, mine);
    assert.equal(added.status, 201);
    const trigger = (await added.json()) as { id: string; type: string; config: unknown };
    assert.deepEqual([trigger.type, trigger.config], ['schedule', { schedule: '2 seconds' }]);
    const list = (await (await api(`/${id}/triggers`, {}, mine)).json()) as Array<{ id: string }>;
    assert.deepEqual(list.map((t) => t.id), [trigger.id]);
    const first = await eventually('two scheduled runs', () => runs(id), (r) => r.filter((x) => x.status === 'succeeded').length >= 2, { tries: 100, everyMs: 100 });
    const done = first.filter((x) => x.status === 'succeeded');
    assert.deepEqual([done[0]!.trigger, done[0]!.user_id, done[0]!.version], ['schedule', user.user.id, 1]);
    assert.match(String(done[0]!.output), /^tick at 20/);
    const ticks = done.map((r) => Math.floor(Date.parse(r.variables.scheduled_at) / 2000));
    assert.equal(new Set(ticks).size, ticks.length, 'one run a tick');
    // A row-change trigger reads beyond the user's policies: not theirs to add.
    const refused = await api(`/${id}/triggers`, { method: 'POST', body: JSON.stringify({ type: 'row_change', table: 'anything' }) }, mine);
    assert.equal(refused.status, 403);
    assert.equal((await api(`/${id}/triggers/${trigger.id}`, { method: 'DELETE' }, mine)).status, 200);
    await sleep(500);
    const before = (await runs(id)).length;
    await sleep(2500);
    assert.equal((await runs(id)).length, before, 'no run once the trigger is removed');
    const { rows: [job] } = await p.adminPool.query<{ n: number }>(`select count(*)::int as n from cron.job where jobname = $1`, [`workflow-trigger-${trigger.id}`]);
    assert.equal(job!.n, 0, 'its cron job went with it');
  });

  it('runs on a row insert matching its condition, once per row, with the change as input; undeployed, not at all', async () => {
    await p.adminPool.query(`create table public.signups (id bigint primary key, email text not null, plan text not null)`);
    const id = await workflow(`return variables.type + ' ' + variables.record.email;`);
    const added = await api(`/${id}/triggers`, { method: 'POST', body: JSON.stringify({ type: 'row_change', table: 'signups', events: ['INSERT'], condition: { record: { plan: 'pro' } } }) });
    assert.equal(added.status, 201);
    await p.adminPool.query(`insert into public.signups values (1, 'pro@example.com', 'pro'), (2, 'free@example.com', 'free')`);
    const client = await p.adminPool.connect();
    await client.query('begin');
    await client.query(`insert into public.signups values (3, 'gone@example.com', 'pro')`);
    await client.query('rollback');
    client.release();
    const [run] = await eventually('the row run', () => runs(id), (r) => r.length >= 1 && ended(r));
    assert.deepEqual([run!.trigger, run!.status, run!.output], ['row_change', 'succeeded', 'INSERT pro@example.com']);
    assert.deepEqual(run!.variables, { type: 'INSERT', table: 'signups', schema: 'public', record: { id: 1, email: 'pro@example.com', plan: 'pro' }, old_record: null });
    // In the run history the API answers, with its trigger.
    const history = (await (await api(`/${id}/executions`)).json()) as Array<{ id: string; trigger: string; status: string }>;
    assert.deepEqual(history.map((e) => [e.id, e.trigger, e.status]), [[run!.id, 'row_change', 'succeeded']]);
    await sleep(1000);
    assert.equal((await runs(id)).length, 1, 'the free plan and the rolled-back insert started nothing');

    assert.equal((await api(`/${id}/undeploy`, { method: 'POST' })).status, 200);
    await p.adminPool.query(`insert into public.signups values (4, 'later@example.com', 'pro')`);
    await sleep(1000);
    assert.equal((await runs(id)).length, 1, 'undeployed: nothing starts');
    // Deployed again (a new version), the trigger runs that one.
    assert.equal((await api(`/${id}/deploy`, { method: 'POST' })).status, 200);
    await p.adminPool.query(`insert into public.signups values (5, 'again@example.com', 'pro')`);
    const after = await eventually('the run of version 2', () => runs(id), (r) => r.length === 2 && ended(r));
    assert.deepEqual([after[1]!.version, after[1]!.output], [2, 'INSERT again@example.com']);
  });

  it('runs once per queue message, declared in SQL: archived on success, retried on failure, dead-lettered after max_attempts', async () => {
    const id = await workflow(`if (variables.message.fail) throw new Error('refused ' + variables.read_ct); return variables.message.n * 2;`);
    await p.adminPool.query(`select pgmq.create('orders')`);
    // As a DBA writes it in a migration.
    await p.adminPool.query(`select ai.add_workflow_trigger($1, 'queue', '{"queue": "orders", "max_attempts": 2, "dead_letter_queue": "orders_dlq"}')`, [id]);
    const { rows: [sent] } = await p.adminPool.query<{ ok: string; bad: string }>(
      `select (select * from pgmq.send('orders', '{"n": 21}')) as ok, (select * from pgmq.send('orders', '{"fail": true}')) as bad`);
    const all = await eventually('the queue runs', () => runs(id), (r) => r.length >= 3 && ended(r), { tries: 150, everyMs: 100 });
    const okRuns = all.filter((r) => r.trigger_message === sent!.ok);
    const badRuns = all.filter((r) => r.trigger_message === sent!.bad);
    assert.deepEqual(okRuns.map((r) => [r.trigger, r.status, r.output]), [['queue', 'succeeded', 42]], 'one run for the good message');
    assert.deepEqual(badRuns.map((r) => [r.status, r.variables.read_ct]), [['failed', 1], ['failed', 2]], 'the bad one tried twice');
    const queue = await eventually('the queue settled', async () => (await p.adminPool.query<{ left: number; archived: string[]; dead: Array<{ fail: boolean }> }>(
      `select (select count(*)::int from pgmq.q_orders) as left,
              (select array_agg(msg_id::text order by msg_id) from pgmq.a_orders) as archived,
              (select array_agg(message) from pgmq.q_orders_dlq) as dead`)).rows[0]!, (q) => q.left === 0 && q.dead !== null);
    assert.deepEqual(queue.archived, [sent!.ok, sent!.bad]);
    assert.deepEqual(queue.dead, [{ fail: true }]);
    await sleep(1500);
    assert.equal((await runs(id)).length, 3, 'nothing more');
  });
});
