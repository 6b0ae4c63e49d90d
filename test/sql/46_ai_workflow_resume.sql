-- A workflow run of a dead process is handed to a resume job once, which one
-- process takes; while it waits for that process it is not failed; a run
-- that died three times is failed. Block logs keep a branch's choice and
-- where in the run a block ran.
begin;
select plan(8);

insert into realtime.nodes (id) values ('55555555-5555-4555-8555-555555555555');
select tests.authenticate_as_service_role();
insert into ai.workflows (id, name) values ('44444444-4444-4444-8444-444444444444', 'runs');
insert into ai.workflow_executions (id, workflow_id, trigger, status, runner, resumes) values
  ('77777777-7777-4777-8777-777777777777', '44444444-4444-4444-8444-444444444444', 'manual', 'running', '99999999-9999-4999-8999-999999999999', 0),
  ('88888888-8888-4888-8888-888888888888', '44444444-4444-4444-8444-444444444444', 'manual', 'running', '99999999-9999-4999-8999-999999999999', 3),
  ('66666666-6666-4666-8666-666666666666', '44444444-4444-4444-8444-444444444444', 'manual', 'running', '55555555-5555-4555-8555-555555555555', 0);
insert into ai.workflow_block_logs (execution_id, block_id, block_type, status, started_at, finished_at, taken, path)
  values ('77777777-7777-4777-8777-777777777777', 'check', 'condition', 'succeeded', now(), now(), '["slow"]', '');
select throws_ok($$ insert into ai.workflow_block_logs (execution_id, block_id, block_type, status, started_at, finished_at, taken) values ('77777777-7777-4777-8777-777777777777', 'x', 'x', 'succeeded', now(), now(), '{}') $$,
  '23514', null, 'a branch''s choice is a list of targets');

select is(ai.resume_abandoned_executions(), 1, 'the orphaned run that can resume is handed on');
select is(ai.fail_abandoned_runs(), 1, 'the one that died three times is failed');
select results_eq($$ select id::text, status, runner is null, resumes from ai.workflow_executions order by id $$,
  $$ values ('66666666-6666-4666-8666-666666666666', 'running', false, 0), ('77777777-7777-4777-8777-777777777777', 'running', true, 1), ('88888888-8888-4888-8888-888888888888', 'failed', false, 3) $$,
  'the resumable one waits for a process, not failed; a live one is untouched');
reset role;
select is((select key from graphile_worker.jobs where task_identifier = 'ai_workflow_resume'), 'ai-workflow-resume:77777777-7777-4777-8777-777777777777', 'its resume job is queued');
select tests.authenticate_as_service_role();
select is(ai.resume_abandoned_executions(), 0, 'and only once');
select ok(ai.claim_execution('77777777-7777-4777-8777-777777777777', '55555555-5555-4555-8555-555555555555'), 'a process takes it');
select ok(not ai.claim_execution('77777777-7777-4777-8777-777777777777', '55555555-5555-4555-8555-555555555555'), 'and no other after it');

select * from finish();
rollback;
