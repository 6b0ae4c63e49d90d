-- A cancel of a run no process carries (parked, waiting for its resume,
-- queued) stores the run's last event itself; a run a process carries gets
-- its last event from that process.
begin;
select plan(5);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com');
insert into realtime.nodes (id) values ('55555555-5555-4555-8555-555555555555');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e1', 'talker');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1');
insert into ai.agent_runs (id, session_id, agent_id, input, runner) values
  ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'parked', null),
  ('00000000-0000-0000-0000-0000000072a2', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'carried', '55555555-5555-4555-8555-555555555555');

select tests.authenticate_as_service_role();
insert into ai.workflows (id, name) values ('44444444-4444-4444-8444-444444444444', 'runs');
insert into ai.workflow_executions (id, workflow_id, trigger) values ('66666666-6666-4666-8666-666666666666', '44444444-4444-4444-8444-444444444444', 'manual');

select ok(ai.cancel_agent_run('00000000-0000-0000-0000-0000000072a1') and ai.cancel_agent_run('00000000-0000-0000-0000-0000000072a2'), 'both runs are cancelled');
select is((select event from ai.run_events where agent_run_id = '00000000-0000-0000-0000-0000000072a1'),
  '{"type": "error", "error": "The run was cancelled", "error_code": "RUN_CANCELLED", "session_id": "00000000-0000-0000-0000-000000005e51", "run_id": "00000000-0000-0000-0000-0000000072a1"}'::jsonb,
  'the run no process carries gets its last event');
select is((select count(*)::int from ai.run_events where agent_run_id = '00000000-0000-0000-0000-0000000072a2'), 0, 'the carried one gets it from its process');
select ok(ai.cancel_execution('66666666-6666-4666-8666-666666666666'), 'a queued execution is cancelled');
select is((select event ->> 'error' from ai.run_events where execution_id = '66666666-6666-4666-8666-666666666666'), 'The run was cancelled', 'and its events end');

select * from finish();
rollback;
