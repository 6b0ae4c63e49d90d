-- The run status machine: queued -> running -> succeeded | failed | cancelled,
-- each move one guarded statement that says whether it happened; a run ends
-- once; runs on a process that is gone are failed; users see only the runs
-- they started.
begin;
select plan(10);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');
insert into realtime.nodes (id) values ('55555555-5555-4555-8555-555555555555');
select tests.authenticate_as_service_role();
insert into ai.workflows (id, name) values ('44444444-4444-4444-8444-444444444444', 'runs');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.workflow_executions (id, workflow_id, trigger) values ('66666666-6666-4666-8666-666666666666', '44444444-4444-4444-8444-444444444444', 'manual');
select is((select user_id from ai.workflow_executions), '00000000-0000-0000-0000-0000000000a1'::uuid, 'a run belongs to the user who started it');

select tests.authenticate_as_service_role();
select is(ai.start_execution('66666666-6666-4666-8666-666666666666', '55555555-5555-4555-8555-555555555555'), true, 'queued -> running');
select is(ai.start_execution('66666666-6666-4666-8666-666666666666', '55555555-5555-4555-8555-555555555555'), false, 'a run starts once');
select is(ai.finish_execution('66666666-6666-4666-8666-666666666666', 'succeeded', '{"answer": 42}', null, null), true, 'running -> succeeded');
select is(ai.cancel_execution('66666666-6666-4666-8666-666666666666'), false, 'an ended run cannot be cancelled');
select is(ai.finish_execution('66666666-6666-4666-8666-666666666666', 'failed', null, 'late', 'EXECUTION_FAILED'), false, 'nor end twice');
select is((select status || ' ' || (output ->> 'answer') from ai.workflow_executions where id = '66666666-6666-4666-8666-666666666666'), 'succeeded 42', 'the first end stands');

-- Runs that died three times (a run that can still resume is its resume job's: 46_ai_workflow_resume.sql).
insert into ai.workflow_executions (id, workflow_id, trigger, status, runner, resumes) values
  ('77777777-7777-4777-8777-777777777777', '44444444-4444-4444-8444-444444444444', 'manual', 'running', '55555555-5555-4555-8555-555555555555', 3),
  ('88888888-8888-4888-8888-888888888888', '44444444-4444-4444-8444-444444444444', 'manual', 'running', '99999999-9999-4999-8999-999999999999', 3);
select is(ai.fail_abandoned_runs(), 1, 'only the run whose process is gone is failed');
select is((select status from ai.workflow_executions where id = '77777777-7777-4777-8777-777777777777'), 'running', 'a live process keeps its run');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.workflow_executions), 0, 'another user sees none of these runs');

select * from finish();
rollback;
