-- Agent and orchestration runs whose process is gone and that cannot resume
-- (here: they died three times) are failed by the sweep, with their pending
-- approvals timed out and running delegations failed; runs of a live process
-- are left alone.
begin;
select plan(5);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com');
insert into realtime.nodes (id) values ('55555555-5555-4555-8555-555555555555');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.sessions (id) values ('00000000-0000-0000-0000-000000005e51');
insert into ai.agent_runs (id, session_id, input, runner) values
  ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', 'alive', '55555555-5555-4555-8555-555555555555'),
  ('00000000-0000-0000-0000-0000000072a2', '00000000-0000-0000-0000-000000005e51', 'orphan', '66666666-6666-4666-8666-666666666666');
insert into ai.orchestration_runs (id, input, runner) values ('00000000-0000-0000-0000-0000000000d1', 'orphan team', '66666666-6666-4666-8666-666666666666');

select tests.authenticate_as_service_role();
update ai.agent_runs set resumes = 3;
update ai.orchestration_runs set resumes = 3;
select ai.request_approval('00000000-0000-0000-0000-0000000072a2', null, 'PreToolUse', 'c1', 'code_execute', '{}', null, 300);
insert into ai.orchestration_delegations (run_id, agent_name, task) values ('00000000-0000-0000-0000-0000000000d1', 'helper', 'help');

select is(ai.fail_abandoned_agent_runs(), 2, 'the orphaned agent run and orchestration run are failed');
select results_eq($$ select input, status from ai.agent_runs order by input $$, $$ values ('alive', 'running'), ('orphan', 'failed') $$, 'a live process keeps its run');
select is((select status from ai.agent_run_approvals), 'timed_out', 'the approval it waited on times out');
select is((select status from ai.orchestration_delegations), 'failed', 'the running delegation fails with its run');
select is(ai.fail_abandoned_agent_runs(), 0, 'and only once');

select * from finish();
rollback;
