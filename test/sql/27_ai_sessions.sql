-- Sessions are private to their owner, with their messages and runs; a
-- service-role session is not a project resource users can read; a run ends
-- once, with the usage ledger's totals.
begin;
select plan(9);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.sessions (id, title) values ('00000000-0000-0000-0000-000000005e51', 'ann''s chat');
insert into ai.agent_runs (id, session_id, input) values ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', 'hello');
insert into ai.session_messages (session_id, run_id, role, content) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-0000000072a1', 'user', 'hello');
select is((select owner_id from ai.sessions), '00000000-0000-0000-0000-0000000000a1'::uuid, 'a session belongs to the user who starts it');
select throws_ok($$ update ai.agent_runs set status = 'completed' $$, '42501', null, 'a user cannot end a run by hand');

select tests.authenticate_as_service_role();
insert into ai.sessions (id, title) values ('00000000-0000-0000-0000-000000005e52', 'project chat');
-- The ledger is written by the router (ai.record_usage); rows made directly here.
select tests.clear_authentication();
insert into ai.usage (user_id, feature, run_id, step, model, provider, kind, tokens_in, tokens_out, latency_ms, cost_usd, ok)
  values ('00000000-0000-0000-0000-0000000000a1', 'agent', '00000000-0000-0000-0000-0000000072a1', 'step-1', 'gpt-4.1-mini', 'openai', 'chat', 10, 4, 5, 0.002, true),
         ('00000000-0000-0000-0000-0000000000a1', 'agent', '00000000-0000-0000-0000-0000000072a1', 'step-2', 'gpt-4.1-mini', 'openai', 'chat', 7, 3, 5, 0.001, true);
select tests.authenticate_as_service_role();
select ok(ai.finish_agent_run('00000000-0000-0000-0000-0000000072a1', 'completed', 'hi', null, 'answered', 2), 'a running run ends');
select results_eq($$ select status, tokens_in, tokens_out, cost_usd from ai.agent_runs $$, $$ values ('completed', 17, 7, 0.003::numeric(14, 6)) $$,
  'with the ledger''s totals');
select ok(not ai.finish_agent_run('00000000-0000-0000-0000-0000000072a1', 'failed', null, 'late', null, 3), 'and only once');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.sessions), 0, 'bob sees neither ann''s session nor the project''s');
select is((select count(*)::int from ai.session_messages) + (select count(*)::int from ai.agent_runs), 0, 'nor their messages and runs');
select throws_ok($$ insert into ai.session_messages (session_id, role, content) values ('00000000-0000-0000-0000-000000005e51', 'user', 'planted') $$,
  '42501', null, 'nor writes into ann''s session');
delete from ai.sessions;
select tests.authenticate_as_service_role();
select is((select count(*)::int from ai.sessions), 2, 'nor deletes it');

select * from finish();
rollback;
