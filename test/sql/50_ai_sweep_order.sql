-- The sweep's failing half, run before its resuming half (a dead process's
-- node reaped between the two), fails no run that can still resume.
begin;
select plan(4);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000c1', 'd@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000c1');
insert into ai.sessions (id) values ('00000000-0000-0000-0000-000000005ec1');
insert into ai.agent_runs (id, session_id, input, runner) values ('00000000-0000-0000-0000-0000000072c1', '00000000-0000-0000-0000-000000005ec1', 'orphan', '66666666-6666-4666-8666-666666666666');
insert into ai.orchestration_runs (id, input, runner) values ('00000000-0000-0000-0000-0000000000c1', 'orphan team', '66666666-6666-4666-8666-666666666666');
select tests.authenticate_as_service_role();
insert into ai.workflows (id, name) values ('44444444-4444-4444-8444-4444444444c1', 'runs');
insert into ai.workflow_executions (id, workflow_id, trigger, status, runner) values
  ('77777777-7777-4777-8777-7777777777c1', '44444444-4444-4444-8444-4444444444c1', 'manual', 'running', '66666666-6666-4666-8666-666666666666');

select is(ai.fail_abandoned_agent_runs() + ai.fail_abandoned_runs(), 0, 'the failing half, first, fails none of them');
select is(ai.resume_abandoned_agent_runs() + ai.resume_abandoned_executions(), 3, 'the resuming half then hands all three on');
select results_eq($$ select status, runner is null from ai.agent_runs union all select status, runner is null from ai.orchestration_runs union all select status, runner is null from ai.workflow_executions $$,
  $$ values ('running', true), ('running', true), ('running', true) $$, 'each waits for the process that resumes it');
select is(ai.fail_abandoned_agent_runs() + ai.fail_abandoned_runs(), 0, 'and the failing half leaves them to it');

select * from finish();
rollback;
