-- A run that waits for its client (sql/0107): let go of only by its own
-- process; taken up only with results for exactly the calls it waits on,
-- once; cancellable while it waits. Its message's attachments (sql/0108)
-- are named once, on its own user message.
begin;
select plan(11);

select tests.authenticate_as_service_role();
insert into ai.agents (id, name) values ('33333333-3333-4333-8333-333333333333', 'helper');
insert into ai.sessions (id, agent_id, title) values ('22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', 's');
insert into ai.agent_runs (id, session_id, agent_id, input, runner) values
  ('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', 'weather?', '55555555-5555-4555-8555-555555555555');
insert into ai.session_messages (session_id, run_id, role, content) values
  ('22222222-2222-4222-8222-222222222222', '11111111-1111-4111-8111-111111111111', 'user', 'weather?');
-- The model called the agent's own tool (answered) and two of the client's.
insert into ai.session_messages (session_id, run_id, role, content, tool_calls) values
  ('22222222-2222-4222-8222-222222222222', '11111111-1111-4111-8111-111111111111', 'assistant', null,
   '[{"id": "own", "name": "code_execute", "arguments": "{}"}, {"id": "c1", "name": "get_weather", "arguments": "{}"}, {"id": "c2", "name": "get_time", "arguments": "{}"}]');
insert into ai.session_messages (session_id, run_id, role, content, tool_call_id, name) values
  ('22222222-2222-4222-8222-222222222222', '11111111-1111-4111-8111-111111111111', 'tool', '42', 'own', 'code_execute');

select ai.set_run_client('11111111-1111-4111-8111-111111111111', '{"tools": []}');
select ai.set_run_client('11111111-1111-4111-8111-111111111111', '{"tools": [1]}');
select is((select client from ai.agent_runs where id = '11111111-1111-4111-8111-111111111111'), '{"tools": []}'::jsonb, 'what the client brought is kept once');

select throws_ok($$ select * from ai.await_client('11111111-1111-4111-8111-111111111111', '66666666-6666-4666-8666-666666666666') $$, '55000', null, 'another process cannot let go of the run');
select results_eq($$ select tokens_in, tokens_out from ai.await_client('11111111-1111-4111-8111-111111111111', '55555555-5555-4555-8555-555555555555') $$,
  $$ values (0, 0) $$, 'its own process lets go of it, told its totals');
select results_eq($$ select status, runner from ai.agent_runs where id = '11111111-1111-4111-8111-111111111111' $$,
  $$ values ('waiting_client', null::uuid) $$, 'it waits, held by no process');
select is(ai.resume_abandoned_agent_runs(), 0, 'the sweep leaves a waiting run alone');

select throws_ok($$ select ai.answer_client('11111111-1111-4111-8111-111111111111', '77777777-7777-4777-8777-777777777777', '[{"tool_call_id": "c1", "content": "sunny"}]') $$,
  '22023', null, 'results for only some of the calls are refused');
select is(ai.answer_client('11111111-1111-4111-8111-111111111111', '77777777-7777-4777-8777-777777777777',
  '[{"tool_call_id": "c2", "content": "noon"}, {"tool_call_id": "c1", "content": "sunny"}]'), true, 'results for exactly the waiting calls take it up');
select results_eq($$ select tool_call_id, name, content from ai.session_messages where run_id = '11111111-1111-4111-8111-111111111111' and role = 'tool' order by id $$,
  $$ values ('own', 'code_execute', '42'), ('c2', 'get_time', 'noon'), ('c1', 'get_weather', 'sunny') $$, 'stored as its tool messages, in the order sent, named by the calls');
select results_eq($$ select status, runner, resumes from ai.agent_runs where id = '11111111-1111-4111-8111-111111111111' $$,
  $$ values ('running', '77777777-7777-4777-8777-777777777777'::uuid, 1) $$, 'running again, held by the answering process');
select is(ai.answer_client('11111111-1111-4111-8111-111111111111', '88888888-8888-4888-8888-888888888888', '[]'), false, 'a second answer finds nothing waiting');

select ai.set_message_attachments('11111111-1111-4111-8111-111111111111', '[{"type": "image", "bucket": "ai-attachments", "path": "p/1", "mime": "image/png", "bytes": 3}]');
select ai.set_message_attachments('11111111-1111-4111-8111-111111111111', '[]');
select is((select jsonb_array_length(attachments) from ai.session_messages where run_id = '11111111-1111-4111-8111-111111111111' and role = 'user'), 1, 'attachments are named on the run''s user message, once');

select * from finish();
rollback;
