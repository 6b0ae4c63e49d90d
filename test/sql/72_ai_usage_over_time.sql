-- Usage by day and model, by agent and by workflow (sql/0109): each call
-- counted in the run it was made in, days in UTC, the earlier keys unchanged.
begin;
select plan(6);

-- The rows made as the owner (ai.usage is written by the server alone), in the project's name.
select set_config('request.jwt.claims', '{"role":"service_role"}', true);
insert into ai.agents (id, name) values ('33333333-3333-4333-8333-333333333333', 'helper');
insert into ai.sessions (id, agent_id, title) values ('22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', 's');
insert into ai.agent_runs (id, session_id, agent_id, input) values ('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', 'hi');
insert into ai.workflows (id, name) values ('44444444-4444-4444-8444-444444444444', 'flow');
insert into ai.workflow_executions (id, workflow_id, trigger) values ('55555555-5555-4555-8555-555555555555', '44444444-4444-4444-8444-444444444444', 'manual');
insert into ai.usage (feature, run_id, model, provider, kind, tokens_in, tokens_out, cost_usd, created_at) values
  ('agent', '11111111-1111-4111-8111-111111111111', 'gpt-4.1-mini', 'openai', 'chat', 100, 10, 0.001, '2026-11-01 23:30+00'),
  ('agent', '11111111-1111-4111-8111-111111111111', 'gpt-4.1-mini', 'openai', 'chat', 50, 5, 0.0005, '2026-11-02 00:30+00'),
  ('workflow', '55555555-5555-4555-8555-555555555555', 'gpt-4.1', 'openai', 'chat', 20, 2, 0.002, '2026-11-02 10:00+00'),
  ('copilot', 'somewhere-else', 'gpt-4.1', 'openai', 'chat', 7, 1, 0.0001, '2026-11-02 11:00+00');

create temp table report as select ai.usage_report('2026-11-01', '2026-11-03', null, null, null, 10) as r;

select results_eq($$ select x ->> 'day', x ->> 'model', (x ->> 'calls')::int, (x ->> 'tokens_in')::int from report, jsonb_array_elements(r -> 'by_day') x $$,
  $$ values ('2026-11-01', 'gpt-4.1-mini', 1, 100), ('2026-11-02', 'gpt-4.1', 2, 27), ('2026-11-02', 'gpt-4.1-mini', 1, 50) $$,
  'by UTC day and model, in order');
select results_eq($$ select x ->> 'name', (x ->> 'calls')::int, (x ->> 'tokens_in')::int, (x ->> 'cost_usd')::numeric from report, jsonb_array_elements(r -> 'by_agent') x $$,
  $$ values ('helper', 2, 150, 0.0015) $$, 'an agent''s calls, by the runs they were made in');
select results_eq($$ select x ->> 'name', (x ->> 'tokens_out')::int from report, jsonb_array_elements(r -> 'by_workflow') x $$,
  $$ values ('flow', 2) $$, 'a workflow''s, likewise');
select is((select (r -> 'totals' ->> 'calls')::int from report), 4, 'the totals count every call, the copilot''s too');
select is((select jsonb_array_length(r -> 'by_model') from report), 2, 'by model as before');
select ok((select r ? 'credits_usd' and r ? 'by_feature' and r ? 'items' from report), 'the credits, and the keys answered before');

select * from finish();
rollback;
