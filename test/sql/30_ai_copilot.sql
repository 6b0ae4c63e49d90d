-- The copilot in SQL: one session per user and workflow, private to that
-- user and only for a workflow they can see; snapshots and actions change
-- only through their functions, once; the model is one of the allowed list,
-- set by the service role.
begin;
select plan(10);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.workflows (id, name) values ('00000000-0000-0000-0000-00000000f001', 'ann''s flow');
insert into ai.copilot_sessions (id, workflow_id) values ('00000000-0000-0000-0000-00000000c001', '00000000-0000-0000-0000-00000000f001');
select throws_ok($$ insert into ai.copilot_sessions (workflow_id) values ('00000000-0000-0000-0000-00000000f001') $$, '23505', null, 'one session per user and workflow');
insert into ai.copilot_messages (id, session_id, role, content, proposed_state, pending_action) values
  ('00000000-0000-0000-0000-00000000e001', '00000000-0000-0000-0000-00000000c001', 'assistant', 'proposal', '{"blocks": []}', '{"id": "x", "status": "pending"}');
select throws_ok($$ update ai.copilot_messages set content = 'rewritten' $$, '42501', null, 'messages are not rewritten by hand');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.copilot_sessions) + (select count(*)::int from ai.copilot_messages), 0, 'bob sees neither ann''s session nor its messages');
select throws_ok($$ insert into ai.copilot_sessions (workflow_id) values ('00000000-0000-0000-0000-00000000f001') $$, '42501', null, 'nor opens one on a workflow he cannot see');
select throws_ok($$ select ai.save_copilot_snapshot('00000000-0000-0000-0000-00000000c001', '00000000-0000-0000-0000-00000000e001', '{}') $$, 'PT404', 'Message not found', 'nor snapshots her message');
select ok(not ai.settle_copilot_action('00000000-0000-0000-0000-00000000e001', 'done', null), 'nor settles her pending action');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select is((select post_snapshot from ai.save_copilot_snapshot('00000000-0000-0000-0000-00000000c001', '00000000-0000-0000-0000-00000000e001', '{"blocks": [1]}')), '{"blocks": []}'::jsonb,
  'a snapshot keeps the proposal beside the graph before it');
select ok(ai.settle_copilot_action('00000000-0000-0000-0000-00000000e001', 'done', '{"id": 1}') and not ai.settle_copilot_action('00000000-0000-0000-0000-00000000e001', 'dropped', null),
  'a pending action is settled once');
select throws_ok($$ select ai.set_copilot_model('gpt-4.1-mini') $$, 'PT403', null, 'a user cannot change the copilot model');

select tests.authenticate_as_service_role();
select throws_ok($$ select ai.set_copilot_model('text-davinci-003') $$, 'PT400', null, 'only an allowed function-calling model');

select * from finish();
rollback;
