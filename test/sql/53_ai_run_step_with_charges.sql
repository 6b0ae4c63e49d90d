-- A run's step and the ledger rows of the model call it answers are stored
-- in one statement (ai.record_run_message): the message only while the
-- process still carries the run and the run is in that session; the ledger
-- rows whatever becomes of the message (the vendor billed the call).
begin;
select plan(8);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000b1', 'b@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000b1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e2', 'stepper');
insert into ai.sessions (id, agent_id) values
  ('00000000-0000-0000-0000-000000005e52', '00000000-0000-0000-0000-00000000a9e2'),
  ('00000000-0000-0000-0000-000000005e53', '00000000-0000-0000-0000-00000000a9e2');
insert into ai.agent_runs (id, session_id, agent_id, input, runner, context) values
  ('00000000-0000-0000-0000-0000000072b1', '00000000-0000-0000-0000-000000005e52', '00000000-0000-0000-0000-00000000a9e2', 'go', '55555555-5555-4555-8555-555555555555', '[]');
select throws_ok($$ select * from ai.record_run_message('agent', '00000000-0000-0000-0000-0000000072b1', '00000000-0000-0000-0000-000000005e52',
  '55555555-5555-4555-8555-555555555555', 'assistant', 'hi', null, null, null, false, 5, '[]', null) $$, '42501', null, 'not callable by a user');

select tests.authenticate_as_service_role();
select results_eq($$ select stored, costs from ai.record_run_message('agent', '00000000-0000-0000-0000-0000000072b1', '00000000-0000-0000-0000-000000005e52',
    '55555555-5555-4555-8555-555555555555', 'assistant', 'Done.', null, null, null, false, 12, '[]',
    '[{"user_id": "00000000-0000-0000-0000-0000000000b1", "feature": "agent", "run_id": "00000000-0000-0000-0000-0000000072b1", "step": "step-1", "model": "gpt-4.1-mini",
       "provider": "openai", "kind": "chat", "tokens_in": 0, "tokens_out": 0, "latency_ms": 3, "ok": false},
      {"user_id": "00000000-0000-0000-0000-0000000000b1", "feature": "agent", "run_id": "00000000-0000-0000-0000-0000000072b1", "step": "step-1", "model": "gpt-4.1-mini",
       "provider": "openai", "kind": "chat", "tokens_in": 1000, "tokens_out": 500, "latency_ms": 40, "ok": true}]') $$,
  $$ values (true, array[0, 0.0012]::float8[]) $$, 'stored, with each attempt''s price in order');
select results_eq($$ select role, content, latency_ms from ai.session_messages where run_id = '00000000-0000-0000-0000-0000000072b1' $$,
  $$ values ('assistant', 'Done.', 12) $$, 'the message is in the run''s session');
select results_eq($$ select step, ok, tokens_in, cost_usd::float8 from ai.usage u where u.run_id = '00000000-0000-0000-0000-0000000072b1' order by u.id $$,
  $$ values ('step-1', false, 0, 0::float8), ('step-1', true, 1000, 0.0012::float8) $$, 'both attempts in the ledger, priced');

select results_eq($$ select stored from ai.record_run_message('agent', '00000000-0000-0000-0000-0000000072b1', '00000000-0000-0000-0000-000000005e52',
    '66666666-6666-4666-8666-666666666666', 'assistant', 'Late.', null, null, null, false, 1, '[]',
    '[{"user_id": null, "feature": "agent", "run_id": "00000000-0000-0000-0000-0000000072b1", "step": "step-2", "model": "gpt-4.1-mini",
       "provider": "openai", "kind": "chat", "tokens_in": 10, "tokens_out": 10, "latency_ms": 1, "ok": true}]') $$,
  $$ values (false) $$, 'a process that no longer carries the run stores no message');
select is((select count(*)::int from ai.usage where run_id = '00000000-0000-0000-0000-0000000072b1' and step = 'step-2'), 1, 'but its call is charged: it was made');

select results_eq($$ select stored from ai.record_run_message('agent', '00000000-0000-0000-0000-0000000072b1', '00000000-0000-0000-0000-000000005e53',
    '55555555-5555-4555-8555-555555555555', 'tool', 'x', null, 'c1', 'noop', false, 1, '[]', null) $$,
  $$ values (false) $$, 'nor into a session the run is not in');
select throws_ok($$ select * from ai.record_run_message('workflow', '00000000-0000-0000-0000-0000000072b1', '00000000-0000-0000-0000-000000005e52',
  '55555555-5555-4555-8555-555555555555', 'tool', 'x', null, null, null, false, 1, '[]', null) $$, '22023', null, 'only agent and orchestration runs keep messages');

select * from finish();
rollback;
