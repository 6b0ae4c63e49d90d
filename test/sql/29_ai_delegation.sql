-- Delegation in SQL: a sub-agent must be an agent the caller can see and not
-- the agent itself; orchestration runs and their delegations are private to
-- the user who started them, written by the server, ended once with the
-- ledger's totals.
begin;
select plan(11);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000b0b1', 'bob''s private agent');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a0a1', 'lead'), ('00000000-0000-0000-0000-00000000a0a2', 'helper');
select lives_ok($$ insert into ai.agent_tools (agent_id, tool_name, tool_type, sub_agent_id) values ('00000000-0000-0000-0000-00000000a0a1', 'delegate_to_helper', 'agent', '00000000-0000-0000-0000-00000000a0a2') $$,
  'ann assigns her helper to her lead as a sub-agent');
select throws_ok($$ insert into ai.agent_tools (agent_id, tool_name, tool_type, sub_agent_id) values ('00000000-0000-0000-0000-00000000a0a1', 'delegate_to_bob', 'agent', '00000000-0000-0000-0000-00000000b0b1') $$,
  '42501', null, 'but not an agent she cannot see');
select throws_ok($$ insert into ai.agent_tools (agent_id, tool_name, tool_type, sub_agent_id) values ('00000000-0000-0000-0000-00000000a0a1', 'delegate_to_lead', 'agent', '00000000-0000-0000-0000-00000000a0a1') $$,
  '23514', null, 'nor the agent itself');
select throws_ok($$ insert into ai.agent_tools (agent_id, tool_name, tool_type) values ('00000000-0000-0000-0000-00000000a0a1', 'delegate_to_nobody', 'agent') $$,
  '23514', null, 'an agent tool names its sub-agent');

insert into ai.orchestrations (id, name) values ('00000000-0000-0000-0000-0000000000c1', 'team');
insert into ai.orchestration_runs (id, orchestration_id, input) values ('00000000-0000-0000-0000-0000000000d1', '00000000-0000-0000-0000-0000000000c1', 'go');
select is((select owner_id from ai.orchestration_runs), '00000000-0000-0000-0000-0000000000a1'::uuid, 'a run belongs to the user who starts it');
select throws_ok($$ insert into ai.orchestration_delegations (run_id, agent_name, task) values ('00000000-0000-0000-0000-0000000000d1', 'x', 'y') $$,
  '42501', null, 'delegations are written by the server only');

select tests.authenticate_as_service_role();
insert into ai.orchestration_delegations (id, run_id, agent_id, agent_name, task) values ('00000000-0000-0000-0000-0000000000e1', '00000000-0000-0000-0000-0000000000d1', '00000000-0000-0000-0000-00000000a0a2', 'helper', 'help');
select tests.clear_authentication();
insert into ai.usage (user_id, feature, run_id, step, model, provider, kind, tokens_in, tokens_out, latency_ms, cost_usd, ok)
  values ('00000000-0000-0000-0000-0000000000a1', 'orchestration', '00000000-0000-0000-0000-0000000000d1', 'step-1', 'gpt-4.1-mini', 'openai', 'chat', 10, 4, 5, 0.002, true),
         ('00000000-0000-0000-0000-0000000000a1', 'orchestration', '00000000-0000-0000-0000-0000000000d1', '00000000-0000-0000-0000-0000000000e1/step-1', 'gpt-4.1-mini', 'openai', 'chat', 7, 3, 5, 0.001, true);
select tests.authenticate_as_service_role();
select is((select tokens_in from ai.finish_delegation('00000000-0000-0000-0000-0000000000e1', 'completed', 'done', null, 'answered', 1, '[]')), 7,
  'a delegation''s totals are its own ledger rows');
select ok(ai.finish_orchestration_run('00000000-0000-0000-0000-0000000000d1', 'completed', 'ok', null, 'answered', 2), 'a run ends');
select is((select tokens_in from ai.orchestration_runs), 17, 'with every call of the run, its members'' included');
select ok(not ai.finish_orchestration_run('00000000-0000-0000-0000-0000000000d1', 'failed', null, 'late', null, 3), 'and only once');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.orchestration_runs) + (select count(*)::int from ai.orchestration_delegations), 0, 'bob sees neither ann''s run nor its delegations');

select * from finish();
rollback;
