-- Queues (sql/0119) in pgmq's API: the record shapes, visibility timeouts,
-- archive and delete, metrics; pgmq_public as an API role, governed by the
-- queue tables' grants and RLS; creating queues kept from the API roles;
-- pgmq's own errors for a bad name and an unknown queue.
begin;
select plan(27);

select lives_ok($$ select pgmq.create('jobs') $$, 'a queue is made');
select lives_ok($$ select pgmq.create('jobs') $$, 'and making it again is harmless');
select has_table('pgmq', 'q_jobs', 'its message table');
select has_table('pgmq', 'a_jobs', 'its archive');
select is((select array_agg(id order by id) from pgmq.send_batch('jobs', array['{"n":1}', '{"n":2}', '{"n":3}']::jsonb[]) as id), array[1, 2, 3]::bigint[], 'send_batch answers the ids in order');
select is((select pgmq.send('jobs', '{"n":4}', 3600)), 4::bigint, 'send with a delay');

select is((select array_agg(msg_id order by msg_id) from pgmq.read('jobs', 30, 2)), array[1, 2]::bigint[], 'read takes the oldest visible');
select is((select array_agg(msg_id order by msg_id) from pgmq.read('jobs', 30, 5)), array[3]::bigint[], 'read messages are hidden, the delayed one is not yet visible');
select is((select count(*)::int from pgmq.read('jobs', 30, 5, '{"n":1}')), 0, 'a conditional read finds nothing hidden');
select is((select read_ct from pgmq.set_vt('jobs', 1, 0)), 1, 'set_vt answers the record');
select is((select read_ct from pgmq.read('jobs', 30, 1)), 2, 'a message whose timeout ended is read again, its count moved on');
select ok(pgmq.archive('jobs', 1::bigint) and not pgmq.archive('jobs', 1::bigint), 'archive moves it once');
select is((select message from pgmq.a_jobs where msg_id = 1), '{"n":1}'::jsonb, 'into the archive');
select ok(pgmq.delete('jobs', 2::bigint), 'delete');
select is((select row(queue_length, total_messages, queue_visible_length)::text from pgmq.metrics('jobs')), '(2,4,0)', 'metrics: length, total sent, visible');
select is((select array_agg(queue_name::text) from pgmq.list_queues()), array['jobs'], 'list_queues');
select throws_ok($$ select pgmq.send('missing', '{}') $$, '42P01', 'relation "pgmq.q_missing" does not exist', 'an unknown queue is pgmq''s error');
select throws_ok($$ select pgmq.create('bad;name') $$, '22023', null, 'a name with SQL in it is refused');

-- pop, an unlogged queue, headers, polling, every queue's metrics.
select pgmq.create_unlogged('fast');
select is((select relpersistence::text from pg_class where oid = 'pgmq.q_fast'::regclass), 'u', 'create_unlogged makes an unlogged table');
select pgmq.send_batch('fast', array['{"a":1}', '{"a":2}']::jsonb[], array['{"k":"x"}', '{"k":"y"}']::jsonb[]);
select is((select array_agg(headers ->> 'k' order by msg_id) from pgmq.q_fast), array['x', 'y'], 'send_batch keeps each message''s headers');
select is((select message from pgmq.pop('fast')), '{"a":1}'::jsonb, 'pop takes the oldest and deletes it');
select is((select count(*)::int from pgmq.read_with_poll('fast', 30, 5, 0, 10, '{"a":9}')), 0, 'read_with_poll answers nothing when nothing comes');
select is((select array_agg(queue_name order by queue_name) from pgmq.metrics_all()), array['fast', 'jobs'], 'metrics_all, one row per queue');

-- The Data API: authenticated may send and read only what RLS lets it.
grant select, insert, update on pgmq.q_jobs to authenticated;
alter table pgmq.q_jobs enable row level security;
create policy own_tenant on pgmq.q_jobs for all to authenticated
  using (message ->> 'tenant' = 'a') with check (message ->> 'tenant' = 'a');
select pgmq.send('jobs', '{"tenant":"b"}');
select tests.authenticate_as('00000000-0000-0000-0000-00000000000a');
select is((select count(*)::int from pgmq_public.send('jobs', '{"tenant":"a"}')), 1, 'pgmq_public.send within the policy');
select throws_ok($$ select pgmq_public.send('jobs', '{"tenant":"b"}') $$, '42501', null, 'outside it refused');
select is((select array_agg(message ->> 'tenant') from pgmq_public.read('jobs', 30, 10)), array['a'], 'read sees only its rows');
select throws_ok($$ select pgmq.create('mine') $$, '42501', null, 'an API role cannot make queues');
reset role;

select * from finish();
rollback;
