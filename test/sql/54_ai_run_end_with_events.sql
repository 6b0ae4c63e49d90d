-- A run that answered ends its record and stores its last events in one
-- statement (ai.complete_run_with_events): completed with its totals from
-- the ledger, its pending events, `usage` and `complete` numbered after the
-- stored ones; nothing appended from a process that no longer holds the run;
-- a run cancelled meanwhile stays cancelled.
begin;
select plan(8);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000c1', 'c@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000c1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e3', 'ender');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e54', '00000000-0000-0000-0000-00000000a9e3');
insert into ai.agent_runs (id, session_id, agent_id, input, runner, context) values
  ('00000000-0000-0000-0000-0000000072c1', '00000000-0000-0000-0000-000000005e54', '00000000-0000-0000-0000-00000000a9e3', 'go', '55555555-5555-4555-8555-555555555555', '[]'),
  ('00000000-0000-0000-0000-0000000072c2', '00000000-0000-0000-0000-000000005e54', '00000000-0000-0000-0000-00000000a9e3', 'go', '55555555-5555-4555-8555-555555555555', '[]');
select throws_ok($$ select * from ai.complete_run_with_events('agent', '00000000-0000-0000-0000-0000000072c1', '00000000-0000-0000-0000-000000005e54', 'ok', 'answered', 1,
  '55555555-5555-4555-8555-555555555555', '[]', '{"type": "complete"}') $$, '42501', null, 'not callable by a user');

reset role;
select ai.record_usage(null, 'agent', '00000000-0000-0000-0000-0000000072c1', 'step-1', 'gpt-4.1-mini', 'openai', 'chat', 1000, 500, 5, true);
select tests.authenticate_as_service_role();
select is(ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072c1', '55555555-5555-4555-8555-555555555555', '[{"type": "start"}]'), 1, 'its start is stored');
select results_eq($$ select tokens_in, tokens_out, cost_usd, first from ai.complete_run_with_events('agent', '00000000-0000-0000-0000-0000000072c1', '00000000-0000-0000-0000-000000005e54',
    'Done.', 'answered', 1, '55555555-5555-4555-8555-555555555555', '[{"type": "content_delta", "delta": "Done."}]', '{"type": "complete", "output": "Done."}') $$,
  $$ values (1000, 500, 0.0012::float8, 2) $$, 'its totals, and its last events numbered after the stored one');
select results_eq($$ select status, output, steps, tokens_in, cost_usd::float8 from ai.agent_runs where id = '00000000-0000-0000-0000-0000000072c1' $$,
  $$ values ('completed', 'Done.', 1, 1000, 0.0012::float8) $$, 'the record is completed with them');
select results_eq($$ select seq, event from ai.run_events where agent_run_id = '00000000-0000-0000-0000-0000000072c1' order by seq $$,
  $$ values (1, '{"type": "start"}'::jsonb), (2, '{"type": "content_delta", "delta": "Done."}'), (3, '{"type": "usage", "tokens_in": 1000, "tokens_out": 500, "cost_usd": 0.0012}'),
            (4, '{"type": "complete", "output": "Done."}') $$, 'pending, usage, complete');

select ok(ai.cancel_agent_run('00000000-0000-0000-0000-0000000072c2'), 'the other run is cancelled');
select results_eq($$ select first from ai.complete_run_with_events('agent', '00000000-0000-0000-0000-0000000072c2', '00000000-0000-0000-0000-000000005e54',
    'Late.', 'answered', 1, '66666666-6666-4666-8666-666666666666', '[]', '{"type": "complete"}') $$,
  $$ values (null::int) $$, 'a process that does not hold the run appends nothing');
select results_eq($$ select status, (select count(*)::int from ai.run_events where agent_run_id = r.id and event ->> 'type' = 'complete') from ai.agent_runs r where id = '00000000-0000-0000-0000-0000000072c2' $$,
  $$ values ('cancelled', 0) $$, 'and a cancelled run stays cancelled');

select * from finish();
rollback;
