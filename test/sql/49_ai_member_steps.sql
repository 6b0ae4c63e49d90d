-- A delegation's member stores its steps beside its run, only while the
-- process storing them carries the run; its owner reads them, others do not.
begin;
select plan(6);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000b1', 'b@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'c@example.com');
insert into realtime.nodes (id) values ('55555555-5555-4555-8555-555555555551');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000b1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000b9e1', 'lead');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005eb1', '00000000-0000-0000-0000-00000000b9e1');
insert into ai.agent_runs (id, session_id, agent_id, input, runner) values
  ('00000000-0000-0000-0000-0000000072b1', '00000000-0000-0000-0000-000000005eb1', '00000000-0000-0000-0000-00000000b9e1', 'go', '55555555-5555-4555-8555-555555555551');

select tests.authenticate_as_service_role();
select ok((select stored from ai.record_member_message('agent', '00000000-0000-0000-0000-0000000072b1', '55555555-5555-4555-8555-555555555551', 'key-1',
  '{"role": "assistant", "content": null, "tool_calls": [{"id": "m1", "name": "record", "arguments": "{\"n\":1}"}], "latency_ms": 12}')), 'the process carrying the run stores a step');
select ok(not (select stored from ai.record_member_message('agent', '00000000-0000-0000-0000-0000000072b1', '66666666-6666-4666-8666-666666666666', 'key-1',
  '{"role": "tool", "content": "done", "tool_call_id": "m1", "name": "record", "latency_ms": 3}')), 'a process that no longer carries it stores nothing');
select results_eq($$select delegation, role, tool_calls -> 0 ->> 'arguments', latency_ms from ai.member_messages$$,
  $$values ('key-1', 'assistant', '{"n":1}', 12)$$, 'one step, as the loop handed it over');
select throws_ok($$insert into ai.member_messages (delegation, role) values ('key-1', 'tool')$$, '23502', null, 'a step belongs to a run');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b1');
select is((select count(*)::int from ai.member_messages), 1, 'the run''s owner reads its members'' steps');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.member_messages), 0, 'another user does not');

select * from finish();
rollback;
