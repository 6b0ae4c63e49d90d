-- A run waiting on an approval lets go of its process: only its own process
-- parks it, only while it waits; the resume job is then due at the deadline,
-- and an answer brings it forward to now. A deadline may be days away.
begin;
select plan(8);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com');
insert into realtime.nodes (id) values ('55555555-5555-4555-8555-555555555555');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e1', 'talker');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1');
insert into ai.agent_runs (id, session_id, agent_id, input, runner, context) values
  ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'waits', '55555555-5555-4555-8555-555555555555', '[]');

select tests.authenticate_as_service_role();
select ok(not ai.park_agent_run('00000000-0000-0000-0000-0000000072a1', '55555555-5555-4555-8555-555555555555'), 'a run that waits on nothing is not parked');
select ai.request_approval('00000000-0000-0000-0000-0000000072a1', null, 'PreToolUse', 'c1', 'code_execute', '{}', null, 3 * 86400);
select ok((select expires_at > now() + interval '2 days' from ai.agent_run_approvals), 'a deadline may be days away');
select ok(not ai.park_agent_run('00000000-0000-0000-0000-0000000072a1', '66666666-6666-4666-8666-666666666666'), 'another process cannot park it');
select ok(ai.park_agent_run('00000000-0000-0000-0000-0000000072a1', '55555555-5555-4555-8555-555555555555'), 'its own process parks it');
select is((select status || ' ' || coalesce(runner::text, 'none') from ai.agent_runs), 'waiting_approval none', 'it is a row: waiting, no process');

reset role;
select ok((select run_at > now() + interval '2 days' from graphile_worker.jobs where key = 'ai-run-resume:00000000-0000-0000-0000-0000000072a1'), 'its resume job is due at the deadline');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select ai.decide_approval('00000000-0000-0000-0000-00000000a9e1', '00000000-0000-0000-0000-0000000072a1', (select id from ai.agent_run_approvals), 'approve', null);
reset role;
select ok((select run_at <= now() from graphile_worker.jobs where key = 'ai-run-resume:00000000-0000-0000-0000-0000000072a1'), 'the answer brings the resume forward to now');
select is((select status from ai.agent_runs), 'running', 'and the run is running again, for whichever worker takes it');

select * from finish();
rollback;
