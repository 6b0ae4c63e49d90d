-- A run's events are taken only from the process that carries it: its own
-- runner's, or any while no process holds it (parked, between the sweep and
-- the claim); once another process has claimed it, the one taken for dead
-- is refused (null, nothing stored). For every kind of run.
begin;
select plan(12);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e1', 'talker');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1');
insert into ai.agent_runs (id, session_id, agent_id, input, runner)
  values ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'go', '00000000-0000-0000-0000-00000000000a');
insert into ai.orchestration_runs (id, input, runner) values ('00000000-0000-0000-0000-0000000000c1', 'team', '00000000-0000-0000-0000-00000000000a');
select throws_ok($$ select ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-00000000000a', '[{}]') $$, '42501', null, 'not callable by a user');

select tests.authenticate_as_service_role();
insert into ai.workflows (id, name) values ('00000000-0000-0000-0000-00000000f10a', 'flow');
insert into ai.workflow_executions (id, workflow_id, trigger, status, runner)
  values ('00000000-0000-0000-0000-0000000e0e01', '00000000-0000-0000-0000-00000000f10a', 'manual', 'running', '00000000-0000-0000-0000-00000000000a');

select is(ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-00000000000a', '[{"type": "start"}]'), 1, 'the runner''s events are taken');
select is(ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-00000000000b', '[{"type": "content_delta"}]'), null, 'another process''s are refused');

-- The sweep lets go of it (its process was taken for dead): the last holder's late events are still taken...
update ai.agent_runs set runner = null where id = '00000000-0000-0000-0000-0000000072a1';
select is(ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-00000000000a', '[{"type": "tool_call"}]'), 2, 'while no process holds the run, its events are taken');
-- ...until another claims it.
update ai.agent_runs set runner = '00000000-0000-0000-0000-00000000000b' where id = '00000000-0000-0000-0000-0000000072a1';
select is(ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-00000000000a', '[{"type": "tool_result"}]'), null, 'the process taken for dead is refused once another claimed the run');
select is(ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-00000000000b', '[{"type": "resumed"}]'), 3, 'the claimer numbers on');
select is((select array_agg(event ->> 'type' order by seq) from ai.run_events where run_id = '00000000-0000-0000-0000-0000000072a1'), array['start', 'tool_call', 'resumed'], 'only the holders'' events are stored');

select is(ai.append_run_events('workflow', '00000000-0000-0000-0000-0000000e0e01', '00000000-0000-0000-0000-00000000000b', '[{"type": "block_started"}]'), null, 'a workflow run refuses another process''s events too');
select is(ai.append_run_events('workflow', '00000000-0000-0000-0000-0000000e0e01', '00000000-0000-0000-0000-00000000000a', '[{"type": "block_started"}]'), 1, 'and takes its runner''s');
select is(ai.append_run_events('orchestration', '00000000-0000-0000-0000-0000000000c1', '00000000-0000-0000-0000-00000000000b', '[{"type": "start"}]'), null, 'an orchestration run refuses another process''s events');
select is(ai.append_run_events('orchestration', '00000000-0000-0000-0000-0000000000c1', '00000000-0000-0000-0000-00000000000a', '[{"type": "start"}]'), 1, 'and takes its runner''s');
select is(ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072ff', '00000000-0000-0000-0000-00000000000a', '[{}]'), null, 'a run that is gone takes nothing');

select * from finish();
rollback;
