-- An agent run keeps who it acts as (the request's verified claims, never a
-- column a user writes) and the history its model read; it begins in one
-- statement; when its process dies the sweep hands it to a resume job once,
-- which one process takes; runs with no caller, or that died three times, fail.
begin;
select plan(19);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');
insert into realtime.nodes (id) values ('55555555-5555-4555-8555-555555555555');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e1', 'talker');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1');
insert into ai.orchestrations (id, name) values ('00000000-0000-0000-0000-0000000000c1', 'team');
insert into ai.orchestration_runs (id, orchestration_id, input, runner) values ('00000000-0000-0000-0000-0000000000d1', '00000000-0000-0000-0000-0000000000c1', 'team run', '66666666-6666-4666-8666-666666666666');
select throws_ok($$ insert into ai.agent_runs (session_id, input, caller) values ('00000000-0000-0000-0000-000000005e51', 'x', '{"role": "service_role"}') $$, '42501', null, 'a user cannot write who a run acts as');
insert into ai.agent_runs (id, session_id, agent_id, input, runner, context) values
  ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'resumable', '66666666-6666-4666-8666-666666666666', '[{"role": "user", "content": "earlier"}]'),
  ('00000000-0000-0000-0000-0000000072a3', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'worn', '66666666-6666-4666-8666-666666666666', '[]'),
  ('00000000-0000-0000-0000-0000000072a4', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'alive', '55555555-5555-4555-8555-555555555555', '[]');
select ai.begin_run('agent', '00000000-0000-0000-0000-0000000072a5', '00000000-0000-0000-0000-00000000a9e1', null, 'Hi', 'begun', null, '[]');
select is((select s.title from ai.agent_runs r join ai.sessions s on s.id = r.session_id where r.input = 'begun'), 'Hi', 'a run begins in one statement, in a new session');
select is((select role || ': ' || content from ai.session_messages where run_id = '00000000-0000-0000-0000-0000000072a5'), 'user: begun', 'with its message');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select ai.begin_run('agent', gen_random_uuid(), '00000000-0000-0000-0000-00000000a9e1', '00000000-0000-0000-0000-000000005e51', 'x', 'in', null, '[]') $$,
  '42501', null, 'not in someone else''s session');

-- A run started outside an API role (here: the owner) has no caller.
reset role;
insert into ai.agent_runs (id, session_id, agent_id, input, runner, caller) values
  ('00000000-0000-0000-0000-0000000072a2', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'old', '66666666-6666-4666-8666-666666666666', '{"role": "service_role"}');

select tests.authenticate_as_service_role();
select is((select caller #>> '{claims,sub}' || ' ' || (caller ->> 'role') from ai.agent_runs where input = 'resumable'),
  '00000000-0000-0000-0000-0000000000a1 authenticated', 'the caller is the verified claims and role of the request');
select is((select caller from ai.agent_runs where input = 'old'), null, 'whatever the insert said');
select is((select context::text from ai.agent_runs where input = 'resumable'), '[{"role": "user", "content": "earlier"}]', 'the history is kept as sent, byte for byte');
update ai.agent_runs set resumes = 3 where input = 'worn';
update ai.agent_runs set status = 'completed' where input = 'begun';
select ai.request_approval('00000000-0000-0000-0000-0000000072a1', null, 'PreToolUse', 'c1', 'code_execute', '{}', null, 300);

insert into ai.orchestration_delegations (run_id, agent_name, task, tool_call_id) values ('00000000-0000-0000-0000-0000000000d1', 'helper', 'help', 'c1');
select is(ai.resume_abandoned_agent_runs(), 2, 'an orphaned agent run and an orphaned orchestration run can resume');
select is((select caller ->> 'role' || ' ' || resumes || ' ' || coalesce(runner::text, 'none') from ai.orchestration_runs), 'authenticated 1 none', 'the orchestration run waits for a process');
select is((select status from ai.orchestration_delegations), 'running', 'its delegation in flight stays running: the resumed coordinator runs it again');
select is(ai.start_delegation('00000000-0000-0000-0000-0000000000d1', null, null, 'helper', 'c1', 'help'), (select id from ai.orchestration_delegations where tool_call_id = 'c1'),
  'the resumed coordinator''s call runs that delegation again, under its id');
select isnt(ai.start_delegation('00000000-0000-0000-0000-0000000000d1', null, null, 'helper', 'c2', 'more'), (select id from ai.orchestration_delegations where tool_call_id = 'c1'),
  'another call starts a delegation of its own');
select results_eq($$ select input, status, runner is null, resumes from ai.agent_runs where input <> 'begun' order by input $$,
  $$ values ('alive', 'running', false, 0), ('old', 'running', false, 0), ('resumable', 'waiting_approval', true, 1), ('worn', 'running', false, 3) $$, 'it waits for a process, counted; the others are untouched');
reset role;
select results_eq($$ select key from graphile_worker.jobs where task_identifier = 'ai_run_resume' order by key $$,
  $$ values ('ai-run-resume:00000000-0000-0000-0000-0000000000d1'), ('ai-run-resume:00000000-0000-0000-0000-0000000072a1') $$, 'a resume job is queued for each');
select tests.authenticate_as_service_role();
select is((select status from ai.agent_run_approvals), 'pending', 'the approval it waits on stays open: the resumed run waits on it');
select is(ai.fail_abandoned_agent_runs(), 2, 'runs without a caller and runs that died three times fail');

select ok(ai.claim_run('agent', '00000000-0000-0000-0000-0000000072a1', '55555555-5555-4555-8555-555555555555'), 'a process takes the run');
select ok(not ai.claim_run('agent', '00000000-0000-0000-0000-0000000072a1', '55555555-5555-4555-8555-555555555555'), 'and no other after it');
select ok(ai.claim_run('orchestration', '00000000-0000-0000-0000-0000000000d1', '55555555-5555-4555-8555-555555555555'), 'an orchestration run is taken the same way');

select * from finish();
rollback;
