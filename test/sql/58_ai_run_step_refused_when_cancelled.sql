-- A cancelled run takes no more steps, whether or not its process heard the
-- cancel (sql/0090): ai.record_run_message refuses its message and says the
-- run was cancelled (the model call is still charged: it was made); a step
-- of a run still running is stored, and one refused because another
-- process carries the run is not called cancelled.
begin;
select plan(5);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000d1', 'd@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000d1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e4', 'cancellee');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e58', '00000000-0000-0000-0000-00000000a9e4');
insert into ai.agent_runs (id, session_id, agent_id, input, runner, context) values
  ('00000000-0000-0000-0000-0000000072d1', '00000000-0000-0000-0000-000000005e58', '00000000-0000-0000-0000-00000000a9e4', 'go', '55555555-5555-4555-8555-555555555555', '[]');
select tests.authenticate_as_service_role();

select results_eq($$ select stored, cancelled from ai.record_run_message('agent', '00000000-0000-0000-0000-0000000072d1', '00000000-0000-0000-0000-000000005e58',
    '55555555-5555-4555-8555-555555555555', 'assistant', 'Step one.', null, null, null, false, 5, '[]', null) $$,
  $$ values (true, false) $$, 'a running run''s step is stored');
select results_eq($$ select stored, cancelled from ai.record_run_message('agent', '00000000-0000-0000-0000-0000000072d1', '00000000-0000-0000-0000-000000005e58',
    '66666666-6666-4666-8666-666666666666', 'assistant', 'Not mine.', null, null, null, false, 5, '[]', null) $$,
  $$ values (false, false) $$, 'another process''s step is refused, not as cancelled');

reset role;
select ai.cancel_agent_run('00000000-0000-0000-0000-0000000072d1');
select tests.authenticate_as_service_role();
select results_eq($$ select stored, cancelled, costs from ai.record_run_message('agent', '00000000-0000-0000-0000-0000000072d1', '00000000-0000-0000-0000-000000005e58',
    '55555555-5555-4555-8555-555555555555', 'assistant', 'Step two.', null, null, null, false, 5, '[]',
    '[{"user_id": null, "feature": "agent", "run_id": "00000000-0000-0000-0000-0000000072d1", "step": "step-2", "model": "gpt-4.1-mini",
       "provider": "openai", "kind": "chat", "tokens_in": 1000, "tokens_out": 500, "latency_ms": 40, "ok": true}]') $$,
  $$ values (false, true, array[0.0012]::float8[]) $$, 'after the cancel, its process''s next step is refused as cancelled, its call still priced');
select results_eq($$ select content from ai.session_messages where run_id = '00000000-0000-0000-0000-0000000072d1' order by id $$,
  $$ values ('Step one.') $$, 'only the step before the cancel is stored');
select is((select count(*)::int from ai.usage where run_id = '00000000-0000-0000-0000-0000000072d1' and step = 'step-2'), 1, 'the refused step''s call is in the ledger');

select * from finish();
rollback;
