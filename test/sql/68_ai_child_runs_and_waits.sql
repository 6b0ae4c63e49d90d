-- A workflow block's child run belongs to its execution: the sweep leaves
-- it to its parent, only the execution's process takes it back, and what
-- would resume it resumes the parent. A wait begins once and ends when due;
-- a parked execution's resume job is due at what it waits on, or now when
-- that came meanwhile; an event ends the waits for it; a cancel leaves no
-- job behind.
begin;
select plan(22);

-- The live process (a fresh heartbeat) and a dead one (none).
insert into realtime.nodes (id) values ('55555555-5555-4555-8555-555555555555');
select tests.authenticate_as_service_role();
insert into ai.workflows (id, name) values ('44444444-4444-4444-8444-444444444444', 'runs');
insert into ai.agents (id, name) values ('33333333-3333-4333-8333-333333333333', 'recorder');
insert into ai.sessions (id, agent_id, title) values ('22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', 's');
insert into ai.workflow_executions (id, workflow_id, trigger, status, runner) values
  ('77777777-7777-4777-8777-777777777777', '44444444-4444-4444-8444-444444444444', 'manual', 'running', '99999999-9999-4999-8999-999999999999'),
  ('88888888-8888-4888-8888-888888888888', '44444444-4444-4444-8444-444444444444', 'manual', 'failed', null);
-- A child of the running execution and one of the failed one, both on the dead process.
insert into ai.agent_runs (id, session_id, agent_id, input, runner, parent_execution_id, parent_block) values
  ('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', 'x', '99999999-9999-4999-8999-999999999999', '77777777-7777-4777-8777-777777777777', 'work'),
  ('11111111-1111-4111-8111-111111111112', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', 'x', '99999999-9999-4999-8999-999999999999', '88888888-8888-4888-8888-888888888888', 'work');

select is(ai.resume_abandoned_agent_runs(), 0, 'the sweep resumes no child on its own');
select is(ai.fail_abandoned_agent_runs(), 1, 'a child whose parent no longer runs is failed');
select results_eq($$ select id::text, status from ai.agent_runs order by id $$,
  $$ values ('11111111-1111-4111-8111-111111111111', 'running'), ('11111111-1111-4111-8111-111111111112', 'failed') $$, 'the running parent''s child is left to it');

select is((select count(*)::int from ai.claim_child_run('agent', '77777777-7777-4777-8777-777777777777', 'work', '55555555-5555-4555-8555-555555555555')), 0,
  'a process that does not carry the execution takes no child');
update ai.workflow_executions set runner = '55555555-5555-4555-8555-555555555555' where id = '77777777-7777-4777-8777-777777777777';
select results_eq($$ select run_id::text, status from ai.claim_child_run('agent', '77777777-7777-4777-8777-777777777777', 'work', '55555555-5555-4555-8555-555555555555') $$,
  $$ values ('11111111-1111-4111-8111-111111111111', 'running') $$, 'the execution''s process takes its block''s child back');
select results_eq($$ select runner::text, resumes from ai.agent_runs where id = '11111111-1111-4111-8111-111111111111' $$,
  $$ values ('55555555-5555-4555-8555-555555555555', 1) $$, 'carried by it now, one resume counted');
select results_eq($$ select run_id::text, status from ai.claim_child_run('agent', '77777777-7777-4777-8777-777777777777', 'work', '55555555-5555-4555-8555-555555555555') $$,
  $$ values ('11111111-1111-4111-8111-111111111111', 'running') $$, 'taken again by the same process');
select is((select resumes from ai.agent_runs where id = '11111111-1111-4111-8111-111111111111'), 1, 'without counting a resume it did not change hands for');
select is((select count(*)::int from ai.claim_child_run('agent', '77777777-7777-4777-8777-777777777777', 'other', '55555555-5555-4555-8555-555555555555')), 0, 'another place has no child');

-- As the approval's answer calls it (a definer's function).
reset role;
select ai.queue_run_resume('agent', '11111111-1111-4111-8111-111111111111', now());
select results_eq($$ select task_identifier, key from graphile_worker.jobs order by key $$,
  $$ values ('ai_workflow_resume', 'ai-workflow-resume:77777777-7777-4777-8777-777777777777') $$, 'a child''s resume is its parent''s');
delete from graphile_worker._private_jobs;
select tests.authenticate_as_service_role();

-- Waits (the child has ended: a running child would make the park due now, as an answered one).
update ai.agent_runs set status = 'completed' where id = '11111111-1111-4111-8111-111111111111';
select is((ai.wait_state('77777777-7777-4777-8777-777777777777', '99999999-9999-4999-8999-999999999999', 'pause', 'duration', null, now() + interval '1 hour', 'continue')).id, null,
  'no wait begins for a process that does not carry the run');
select is((ai.wait_state('77777777-7777-4777-8777-777777777777', '55555555-5555-4555-8555-555555555555', 'pause', 'duration', null, now() + interval '1 hour', 'continue')).status, 'waiting', 'a wait begins');
select is((ai.wait_state('77777777-7777-4777-8777-777777777777', '55555555-5555-4555-8555-555555555555', 'pause', 'duration', null, now() + interval '9 hours', 'continue')).due_at > now() + interval '2 hours', false,
  'begun once: read again, it keeps its first due time');
select is((ai.wait_state('77777777-7777-4777-8777-777777777777', '55555555-5555-4555-8555-555555555555', 'ask', 'event', 'approved', null, 'continue')).status, 'waiting', 'an event wait with no timeout');
select throws_ok($$ insert into ai.workflow_waits (execution_id, block_path, kind) values ('77777777-7777-4777-8777-777777777777', 'bad', 'duration') $$, '23514', null, 'a timed wait needs its time');

select ok(not ai.park_execution('77777777-7777-4777-8777-777777777777', '99999999-9999-4999-8999-999999999999'), 'only its own process parks a run');
select ok(ai.park_execution('77777777-7777-4777-8777-777777777777', '55555555-5555-4555-8555-555555555555'), 'its process lets go of it');
reset role;
select ok((select run_at between now() + interval '59 minutes' and now() + interval '61 minutes' from graphile_worker.jobs where key = 'ai-workflow-resume:77777777-7777-4777-8777-777777777777'),
  'its resume job is due when the earliest wait ends');
select tests.authenticate_as_service_role();

select is(ai.deliver_workflow_event('77777777-7777-4777-8777-777777777777', 'other', null), 0, 'an event nothing waits for ends nothing');
select is(ai.deliver_workflow_event('77777777-7777-4777-8777-777777777777', 'approved', '{"by": "ops"}'), 1, 'an event ends the wait for it');
reset role;
select ok((select run_at <= now() from graphile_worker.jobs where key = 'ai-workflow-resume:77777777-7777-4777-8777-777777777777'), 'and the parked run is taken up now');
select tests.authenticate_as_service_role();

select ai.cancel_execution('77777777-7777-4777-8777-777777777777');
reset role;
select results_eq($$ select (select count(*)::int from graphile_worker.jobs), (select string_agg(status, ',' order by block_path) from ai.workflow_waits) $$,
  $$ values (0, 'received,cancelled') $$, 'a cancel removes its job and ends what still waited');

select * from finish();
rollback;
