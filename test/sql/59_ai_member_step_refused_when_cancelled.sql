-- A delegation's member takes no more steps once its run is cancelled,
-- whether or not its process heard the cancel (sql/0091):
-- ai.record_member_message refuses the step and says the run was cancelled;
-- one refused because another process carries the run is not called
-- cancelled. For agent and orchestration runs alike.
begin;
select plan(6);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000e1', 'e@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000e1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9f1', 'lead');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005f01', '00000000-0000-0000-0000-00000000a9f1');
insert into ai.agent_runs (id, session_id, agent_id, input, runner, context) values
  ('00000000-0000-0000-0000-0000000073d1', '00000000-0000-0000-0000-000000005f01', '00000000-0000-0000-0000-00000000a9f1', 'go', '55555555-5555-4555-8555-555555555555', '[]');
insert into ai.orchestrations (id, name) values ('00000000-0000-0000-0000-00000000a9f2', 'crew');
insert into ai.sessions (id, orchestration_id) values ('00000000-0000-0000-0000-000000005f02', '00000000-0000-0000-0000-00000000a9f2');
insert into ai.orchestration_runs (id, session_id, orchestration_id, input, runner) values
  ('00000000-0000-0000-0000-0000000073d2', '00000000-0000-0000-0000-000000005f02', '00000000-0000-0000-0000-00000000a9f2', 'go', '55555555-5555-4555-8555-555555555555');
select tests.authenticate_as_service_role();

select results_eq($$ select stored, cancelled from ai.record_member_message('agent', '00000000-0000-0000-0000-0000000073d1',
    '55555555-5555-4555-8555-555555555555', 'key-1', '{"role": "assistant", "content": "Member step one."}') $$,
  $$ values (true, false) $$, 'a running run''s member step is stored');
select results_eq($$ select stored, cancelled from ai.record_member_message('agent', '00000000-0000-0000-0000-0000000073d1',
    '66666666-6666-4666-8666-666666666666', 'key-1', '{"role": "assistant", "content": "Not mine."}') $$,
  $$ values (false, false) $$, 'another process''s member step is refused, not as cancelled');

reset role;
select ai.cancel_agent_run('00000000-0000-0000-0000-0000000073d1');
select ai.cancel_orchestration_run('00000000-0000-0000-0000-0000000073d2');
select tests.authenticate_as_service_role();
select results_eq($$ select stored, cancelled from ai.record_member_message('agent', '00000000-0000-0000-0000-0000000073d1',
    '55555555-5555-4555-8555-555555555555', 'key-1', '{"role": "assistant", "content": "Member step two."}') $$,
  $$ values (false, true) $$, 'after the cancel, the member''s next step is refused as cancelled');
select results_eq($$ select stored, cancelled from ai.record_member_message('orchestration', '00000000-0000-0000-0000-0000000073d2',
    '55555555-5555-4555-8555-555555555555', 'dlg-1', '{"role": "tool", "content": "done", "tool_call_id": "t1"}') $$,
  $$ values (false, true) $$, 'an orchestration''s member likewise');
select results_eq($$ select content from ai.member_messages where run_id in ('00000000-0000-0000-0000-0000000073d1', '00000000-0000-0000-0000-0000000073d2') order by id $$,
  $$ values ('Member step one.') $$, 'only the step before the cancel is stored');
select throws_ok($$ select * from ai.record_member_message('workflow', '00000000-0000-0000-0000-0000000073d1',
    '55555555-5555-4555-8555-555555555555', 'key-1', '{"role": "assistant"}') $$, '22023', null, 'an unknown run kind is refused');

select * from finish();
rollback;
