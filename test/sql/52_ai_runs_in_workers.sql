-- A run begun by a request for a worker to carry (AI_RUN_PLACEMENT=worker):
-- only the process that began it lets go of it, only while it runs; its job
-- is then queued now, marked as the run's beginning. A run cancelled first
-- is not handed on.
begin;
select plan(7);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e1', 'talker');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1');
insert into ai.agent_runs (id, session_id, agent_id, input, runner, context) values
  ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'go', '55555555-5555-4555-8555-555555555555', '[]'),
  ('00000000-0000-0000-0000-0000000072a2', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'stop', '55555555-5555-4555-8555-555555555555', '[]');
select throws_ok($$ select ai.hand_run_to_worker('agent', '00000000-0000-0000-0000-0000000072a1', '55555555-5555-4555-8555-555555555555') $$, '42501', null, 'not callable by a user');

select tests.authenticate_as_service_role();
select ok(not ai.hand_run_to_worker('agent', '00000000-0000-0000-0000-0000000072a1', '66666666-6666-4666-8666-666666666666'), 'another process cannot hand it on');
select ok(ai.hand_run_to_worker('agent', '00000000-0000-0000-0000-0000000072a1', '55555555-5555-4555-8555-555555555555'), 'the process that began it does');
select is((select status || ' ' || coalesce(runner::text, 'none') from ai.agent_runs where id = '00000000-0000-0000-0000-0000000072a1'), 'running none', 'running, no process holds it: the worker that takes the job claims it');

select ok(ai.cancel_agent_run('00000000-0000-0000-0000-0000000072a2'), 'the other run is cancelled first');
select ok(not ai.hand_run_to_worker('agent', '00000000-0000-0000-0000-0000000072a2', '55555555-5555-4555-8555-555555555555'), 'a run cancelled meanwhile is not handed on');

reset role;
select results_eq($$ select payload ->> 'run_id', payload ->> 'kind', (payload ->> 'begin')::boolean, run_at <= now() from graphile_worker._private_jobs where key like 'ai-run-resume:%' $$,
  $$ values ('00000000-0000-0000-0000-0000000072a1', 'agent', true, true) $$, 'one job, due now, marked as the run''s beginning');

select * from finish();
rollback;
