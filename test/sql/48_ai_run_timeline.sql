-- A run's timeline (sql/0072) and its trace (sql/0071): a run made while a
-- request carries a traceparent keeps it (a malformed one is not kept, and a
-- caller cannot set the column); the timeline nests each step's model and
-- tool calls with their starts, durations, tokens and cost, and a step's
-- extent and totals come from its children; metrics_snapshot counts runs in
-- progress.
begin;
select plan(9);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e1', 'timed');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1');
select set_config('request.headers', '{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}', true);
insert into ai.agent_runs (id, session_id, agent_id, input) values
  ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'hi');
select is((select traceparent from ai.agent_runs where id = '00000000-0000-0000-0000-0000000072a1'), '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'a run keeps the request''s traceparent');
select set_config('request.headers', '{"traceparent": "00-not-a-trace"}', true);
insert into ai.agent_runs (id, session_id, agent_id, input) values ('00000000-0000-0000-0000-0000000072a2', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'hi');
select is((select traceparent from ai.agent_runs where id = '00000000-0000-0000-0000-0000000072a2'), null, 'a malformed traceparent is not kept');
select throws_ok($$insert into ai.agent_runs (session_id, agent_id, input, traceparent) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'x', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')$$,
  '42501', null, 'a caller cannot set it');

-- Two steps: a model call that asked for a tool, the tool's result, then the answer (written as the server writes them).
reset role;
insert into ai.session_messages (session_id, run_id, role, content, tool_calls, latency_ms, created_at) values
  ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-0000000072a1', 'user', 'hi', null, null, '2026-01-01 00:00:00+00'),
  ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-0000000072a1', 'assistant', null, '[{"id": "c1", "name": "look"}]', 100, '2026-01-01 00:00:00.100+00');
insert into ai.session_messages (session_id, run_id, role, content, tool_call_id, name, is_error, latency_ms, created_at) values
  ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-0000000072a1', 'tool', 'Error: no luck', 'c1', 'look', true, 50, '2026-01-01 00:00:00.150+00');
insert into ai.session_messages (session_id, run_id, role, content, latency_ms, created_at) values
  ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-0000000072a1', 'assistant', 'done', 200, '2026-01-01 00:00:00.400+00');
insert into ai.usage (user_id, feature, run_id, step, model, provider, kind, tokens_in, tokens_out, latency_ms, cost_usd, created_at) values
  ('00000000-0000-0000-0000-0000000000a1', 'agent', '00000000-0000-0000-0000-0000000072a1', 'step-1', 'gpt-4.1-mini', 'openai', 'chat', 10, 2, 100, 0.5, '2026-01-01 00:00:00.100+00'),
  ('00000000-0000-0000-0000-0000000000a1', 'agent', '00000000-0000-0000-0000-0000000072a1', 'step-2', 'gpt-4.1-mini', 'openai', 'chat', 20, 4, 200, 1.5, '2026-01-01 00:00:00.400+00');
update ai.agent_runs set status = 'completed', started_at = '2026-01-01 00:00:00+00', finished_at = '2026-01-01 00:00:00.450+00', tokens_in = 30, tokens_out = 6, cost_usd = 2 where id = '00000000-0000-0000-0000-0000000072a1';

-- Read as the run's user: the timeline is the caller's view.
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select is((select jsonb_path_query_array(tree, '$.children[*].name') from (select ai.conversation_timeline('agent', '00000000-0000-0000-0000-0000000072a1') as tree) t), '["step 1", "step 2"]', 'a node per step, in order');
select is((select jsonb_path_query_array(tree, '$.children[0].children[*].name') from (select ai.conversation_timeline('agent', '00000000-0000-0000-0000-0000000072a1') as tree) t), '["chat gpt-4.1-mini", "execute_tool look"]', 'the step''s model call, then its tool call');
select is((select (tree #> '{children,0,children,1}') - 'children' - 'start' from (select ai.conversation_timeline('agent', '00000000-0000-0000-0000-0000000072a1') as tree) t),
  '{"name": "execute_tool look", "kind": "tool_call", "tool_call_id": "c1", "duration_ms": 50, "ok": false, "error": "no luck"}', 'the tool call with its duration and error');
select is((select jsonb_build_object('start', tree #>> '{children,0,start}', 'duration_ms', tree #> '{children,0,duration_ms}', 'tokens_in', tree #> '{children,0,tokens_in}', 'cost_usd', tree #> '{children,0,cost_usd}') from (select ai.conversation_timeline('agent', '00000000-0000-0000-0000-0000000072a1') as tree) t),
  jsonb_build_object('start', to_jsonb('2026-01-01 00:00:00+00'::timestamptz) #>> '{}', 'duration_ms', 150, 'tokens_in', 10, 'cost_usd', 0.5), 'a step spans its children and adds up their tokens and cost');
select is((select tree - 'children' - 'start' from (select ai.conversation_timeline('agent', '00000000-0000-0000-0000-0000000072a1') as tree) t),
  '{"name": "agent run", "kind": "run", "status": "completed", "error": null, "duration_ms": 450, "tokens_in": 30, "tokens_out": 6, "cost_usd": 2}', 'the run with the totals it recorded');

reset role;
select is((select r from jsonb_array_elements(platform.metrics_snapshot() -> 'runs') r where r ->> 'kind' = 'agent'),
  '{"kind": "agent", "status": "running", "n": 1}', 'metrics_snapshot counts the run still running');

select * from finish();
rollback;
