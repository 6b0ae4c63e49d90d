// Queues (issue 50, item 2; sql/0119) as Supabase's Queues guides use them,
// unchanged: pgmq's SQL API from a migration-like session, pgmq_public
// through supabase-js (.schema('pgmq_public').rpc) with the queue table's
// grants and an RLS policy letting one role in and not another, and a
// message read and never archived showing again when its visibility
// timeout ends (real time).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Message = { msg_id: number; read_ct: number; enqueued_at: string; vt: string; message: Record<string, unknown> };

describe('Queues', () => {
  let p: TestPlatform;
  let user: SupabaseClient;
  let anon: SupabaseClient;

  before(async () => {
    // Supabase's self-hosted stack exposes pgmq_public by adding it to the API's schemas.
    p = await startTestPlatform({ WORKER: 'off', REST_SCHEMAS: 'public,pgmq_public' });
    // The guide's SQL: a queue, a grant per operation the role needs, RLS on the queue table, a policy.
    await p.adminPool.query(`
      select pgmq.create('foo');
      grant select, insert, update, delete on pgmq.q_foo to authenticated;
      grant select, insert on pgmq.a_foo to authenticated;
      alter table pgmq.q_foo enable row level security;
      create policy "authenticated can use foo" on pgmq.q_foo for all to authenticated using (true) with check (true);
      notify pgrst, 'reload schema';`);
    const opts = { auth: { persistSession: false } };
    user = createClient(p.url, p.keys.anonKey, opts);
    const signed = await user.auth.signUp({ email: 'queues@example.com', password: 'queue-secret-1' });
    assert.equal(signed.error, null);
    anon = createClient(p.url, p.keys.anonKey, opts);
  });
  after(() => stopTestPlatform(p));

  it('runs the SQL API as the guides write it', async () => {
    const q = async <T>(sql: string) => (await p.adminPool.query<T & object>(sql)).rows;
    await q(`select pgmq.create('my_queue')`);
    await q(`select pgmq.create_unlogged('my_unlogged')`);
    const [sent] = await q<{ send: string }>(`select * from pgmq.send(queue_name => 'my_queue', msg => '{"hello": "world"}')`);
    assert.equal(sent!.send, '1');
    await q(`select * from pgmq.send_batch(queue_name => 'my_queue', msgs => array['{"hello": "world_0"}', '{"hello": "world_1"}']::jsonb[], delay => 0)`);
    const read = await q<{ msg_id: string; message: { hello: string } }>(`select * from pgmq.read(queue_name => 'my_queue', vt => 30, qty => 2)`);
    assert.deepEqual(read.map((r) => r.message.hello), ['world', 'world_0']);
    const [popped] = await q<{ message: { hello: string } }>(`select * from pgmq.pop(queue_name => 'my_queue')`);
    assert.equal(popped!.message.hello, 'world_1');
    const [archived] = await q<{ archive: boolean }>(`select pgmq.archive(queue_name => 'my_queue', msg_id => 1)`);
    assert.equal(archived!.archive, true);
    const [deleted] = await q<{ delete: boolean }>(`select pgmq.delete(queue_name => 'my_queue', msg_id => 2)`);
    assert.equal(deleted!.delete, true);
    const queues = await q<{ queue_name: string; is_unlogged: boolean }>(`select * from pgmq.list_queues()`);
    assert.deepEqual(queues.map((r) => [r.queue_name, r.is_unlogged]), [['foo', false], ['my_queue', false], ['my_unlogged', true]]);
    const [m] = await q<{ queue_length: string; total_messages: string }>(`select * from pgmq.metrics('my_queue')`);
    assert.deepEqual([m!.queue_length, m!.total_messages], ['0', '3']);
    const [dropped] = await q<{ drop_queue: boolean }>(`select pgmq.drop_queue('my_unlogged')`);
    assert.equal(dropped!.drop_queue, true);
    await assert.rejects(q(`select * from pgmq.read('nowhere', 30, 1)`), /relation "pgmq.q_nowhere" does not exist/);
  });

  it('lets a signed-in user send, read, pop and archive through pgmq_public, and refuses anon', async () => {
    const queue = () => user.schema('pgmq_public');
    const sent = await eventually('pgmq_public in the schema cache', async () => await queue().rpc('send', { queue_name: 'foo', message: { hello: 'world' }, sleep_seconds: 0 }), (r) => r.error?.code !== 'PGRST202');
    assert.equal(sent.error, null);
    assert.equal(typeof (sent.data as number[])[0], 'number');
    const batch = await queue().rpc('send_batch', { queue_name: 'foo', messages: [{ n: 1 }, { n: 2 }] });
    assert.equal((batch.data as number[]).length, 2);
    const read = await queue().rpc('read', { queue_name: 'foo', sleep_seconds: 30, n: 1 });
    const [first] = read.data as Message[];
    assert.deepEqual([first!.message, first!.read_ct], [{ hello: 'world' }, 1]);
    assert.ok(Date.parse(first!.vt) > Date.now() + 20_000, 'hidden for its visibility timeout');
    const archived = await queue().rpc('archive', { queue_name: 'foo', message_id: first!.msg_id });
    assert.equal(archived.data, true);
    const popped = await queue().rpc('pop', { queue_name: 'foo' });
    assert.deepEqual((popped.data as Message[])[0]!.message, { n: 1 });
    const del = await queue().rpc('delete', { queue_name: 'foo', message_id: (batch.data as number[])[1] });
    assert.equal(del.data, true);
    const { rows: [archivedRow] } = await p.adminPool.query<{ message: unknown }>('select message from pgmq.a_foo where msg_id = $1', [first!.msg_id]);
    assert.deepEqual(archivedRow!.message, { hello: 'world' });

    const refused = await anon.schema('pgmq_public').rpc('send', { queue_name: 'foo', message: { from: 'anon' } });
    assert.equal(refused.error?.code, '42501', 'anon holds no grant on the queue');
    const { rows: [anonRows] } = await p.adminPool.query<{ n: number }>(`select count(*)::int as n from pgmq.q_foo where message ->> 'from' = 'anon'`);
    assert.equal(anonRows!.n, 0);
  });

  it('shows a message again once its visibility timeout ends when the reader never archived it', async () => {
    const queue = () => user.schema('pgmq_public');
    const sent = await queue().rpc('send', { queue_name: 'foo', message: { job: 'retry-me' } });
    const id = (sent.data as number[])[0]!;
    const first = await queue().rpc('read', { queue_name: 'foo', sleep_seconds: 1, n: 10 });
    assert.deepEqual((first.data as Message[]).map((m) => m.msg_id), [id]);
    // The reader "dies": nothing archives it. Another reader sees nothing now...
    const hidden = await queue().rpc('read', { queue_name: 'foo', sleep_seconds: 30, n: 10 });
    assert.deepEqual(hidden.data, []);
    // ...and the message back after the timeout, its read count moved on.
    const again = await eventually('the message visible again', async () => await queue().rpc('read', { queue_name: 'foo', sleep_seconds: 30, n: 10 }), (r) => (r.data as Message[]).length > 0, { tries: 50, everyMs: 100 });
    const [m] = again.data as Message[];
    assert.deepEqual([m!.msg_id, m!.read_ct, m!.message], [id, 2, { job: 'retry-me' }]);
  });
});
