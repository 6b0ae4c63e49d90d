-- Workflow triggers (sql/0124): who may add which; a schedule is a cron job,
-- a row change a row trigger honouring its condition and the deployment; a
-- queue run's end archives, retries or dead-letters its message; the
-- internal functions kept from the API roles.
begin;
select plan(16);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000c1', 'c@example.com'), ('00000000-0000-0000-0000-0000000000d2', 'd@example.com');
create temp table sched (id uuid);
grant all on sched to authenticated, service_role;
select tests.authenticate_as('00000000-0000-0000-0000-0000000000c1');
insert into ai.workflows (id, name) values ('44444444-4444-4444-8444-444444444444', 'mine');
select ai.deploy_workflow('44444444-4444-4444-8444-444444444444');
insert into sched select id from ai.add_workflow_trigger('44444444-4444-4444-8444-444444444444', 'schedule', '{"schedule": "*/10 * * * *"}');
select is((select count(*)::int from sched), 1, 'the owner adds a schedule');
select throws_ok($$ select ai.add_workflow_trigger('44444444-4444-4444-8444-444444444444', 'row_change', '{"table": "x"}') $$, 'PT403', null, 'but not a row-change trigger');
select throws_ok($$ select ai.add_workflow_trigger('44444444-4444-4444-8444-444444444444', 'schedule', '{"schedule": "every day"}') $$, 'PT400', null, 'a bad schedule is refused');
select throws_ok($$ select ai.start_triggered_run((select id from sched), '{}') $$, '42501', null, 'nor may it start runs itself');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000d2');
select throws_ok($$ select ai.add_workflow_trigger('44444444-4444-4444-8444-444444444444', 'schedule', '{"schedule": "1 seconds"}') $$, 'PT404', 'Workflow not found', 'another user''s workflow is not found');
reset role;
select is((select command from cron.job where jobname = 'workflow-trigger-' || (select id from sched)),
  format('select ai.start_triggered_run(%L, jsonb_build_object(''scheduled_at'', now()))', (select id from sched)), 'the schedule is a cron job');

-- A row change, as the service role would add it.
create table public.paid (id int primary key, status text);
select tests.authenticate_as_service_role();
select lives_ok($$ select ai.add_workflow_trigger('44444444-4444-4444-8444-444444444444', 'row_change', '{"table": "paid", "events": ["insert", "UPDATE"], "condition": {"record": {"status": "paid"}}}') $$, 'the service role adds a row trigger');
reset role;
insert into public.paid values (1, 'open'), (2, 'paid');
update public.paid set status = 'paid' where id = 1;
delete from public.paid;
select is((select array_agg((variables ->> 'type') || ' ' || (variables -> 'record' ->> 'id') order by created_at, variables::text) from ai.workflow_executions where trigger = 'row_change'),
  array['INSERT 2', 'UPDATE 1'], 'the changes matching the condition start runs, the delete is not watched');
select is((select count(*)::int from graphile_worker.jobs where task_identifier = 'ai_workflow_run'), 2, 'each queued for a worker');
update ai.workflows set deployed = false where id = '44444444-4444-4444-8444-444444444444';
insert into public.paid values (3, 'paid');
select is((select count(*)::int from ai.workflow_executions where trigger = 'row_change'), 2, 'undeployed, nothing starts');
update ai.workflows set deployed = true where id = '44444444-4444-4444-8444-444444444444';

-- A queue: a failed run shows the message again, the last attempt dead-letters it.
select pgmq.create('work');
select ai.add_workflow_trigger('44444444-4444-4444-8444-444444444444', 'queue', '{"queue": "work", "max_attempts": 2, "dead_letter_queue": "work_dead"}');
select pgmq.send('work', '{"job": 1}');
select is(ai.take_queue_runs(), 1, 'a message starts a run');
select is(ai.take_queue_runs(), 0, 'once: it is hidden while the run goes');
update ai.workflow_executions set status = 'failed', error = 'boom' where trigger = 'queue';
select is(ai.take_queue_runs(), 1, 'a failed run shows the message again at once');
update ai.workflow_executions set status = 'failed', error = 'boom again' where trigger = 'queue' and status = 'queued';
select is((select count(*)::int from pgmq.q_work), 0, 'after max_attempts it leaves the queue');
select is((select message || headers - 'trigger_id' - 'msg_id' from pgmq.q_work_dead), '{"job": 1, "error": "boom again", "attempts": 2, "source_queue": "work"}'::jsonb, 'into the dead-letter queue, saying why');
select lives_ok($$ select ai.remove_workflow_trigger('44444444-4444-4444-8444-444444444444', (select id from sched)) $$, 'removed');

select * from finish();
rollback;
