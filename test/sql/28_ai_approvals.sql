-- An approval pauses its run and is answered once: by the session's owner,
-- before its deadline; a timeout denies it, and never after an answer.
begin;
select plan(11);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e1', 'careful');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1');
insert into ai.agent_runs (id, session_id, agent_id, input) values ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'go');

select tests.authenticate_as_service_role();
select is((select status from ai.request_approval('00000000-0000-0000-0000-0000000072a1', null, 'PreToolUse', 'c1', 'code_execute', '{"code": "1"}', 'ok?', 300)),
  'pending', 'the server opens an approval');
select is((select status from ai.agent_runs), 'waiting_approval', 'and its run waits');
select ai.request_approval('00000000-0000-0000-0000-0000000072a1', null, 'PreToolUse', 'c2', 'code_execute', '{}', null, 1);
update ai.agent_run_approvals set expires_at = now() - interval '1 second' where tool_call_id = 'c2';

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select ai.decide_approval('00000000-0000-0000-0000-00000000a9e1', '00000000-0000-0000-0000-0000000072a1',
  (select id from ai.agent_run_approvals where tool_call_id = 'c1'), 'approve', null) $$, 'PT404', 'Approval not found', 'another user cannot see it to answer');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select throws_ok($$ insert into ai.agent_run_approvals (run_id, event, expires_at) values ('00000000-0000-0000-0000-0000000072a1', 'PreToolUse', now()) $$,
  '42501', null, 'the owner cannot open approvals by hand');
select throws_ok($$ select ai.decide_approval('00000000-0000-0000-0000-00000000a9e1', '00000000-0000-0000-0000-0000000072a1',
  (select id from ai.agent_run_approvals where tool_call_id = 'c1'), 'perhaps', null) $$, 'PT400', null, 'a decision is approve or deny');
select is((select status || ':' || (decided_arguments ->> 'code') from ai.decide_approval('00000000-0000-0000-0000-00000000a9e1', '00000000-0000-0000-0000-0000000072a1',
  (select id from ai.agent_run_approvals where tool_call_id = 'c1'), 'approve', '{"code": "2"}')), 'approved:2', 'the owner approves, with new arguments');
select throws_ok($$ select ai.decide_approval('00000000-0000-0000-0000-00000000a9e1', '00000000-0000-0000-0000-0000000072a1',
  (select id from ai.agent_run_approvals where tool_call_id = 'c1'), 'deny', null) $$, 'PT409', null, 'once');
select throws_ok($$ select ai.decide_approval('00000000-0000-0000-0000-00000000a9e1', '00000000-0000-0000-0000-0000000072a1',
  (select id from ai.agent_run_approvals where tool_call_id = 'c2'), 'approve', null) $$, 'PT409', 'This approval timed out and the call was denied', 'not after its deadline');

select tests.authenticate_as_service_role();
select is((select status from ai.agent_runs), 'waiting_approval', 'the run waits while one approval is pending');
select ok(ai.expire_approval((select id from ai.agent_run_approvals where tool_call_id = 'c2')) and not ai.expire_approval((select id from ai.agent_run_approvals where tool_call_id = 'c1')),
  'the deadline denies the unanswered one, never the answered one');
select is((select status from ai.agent_runs), 'running', 'and with nothing pending the run goes on');

select * from finish();
rollback;
