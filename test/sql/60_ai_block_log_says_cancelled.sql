-- A workflow run's block log says when the run was cancelled (sql/0092), so
-- a process that did not hear the cancel starts no more blocks: the log is
-- still stored (the block ran, or was cut off), and one from a process that
-- no longer carries the run is refused, not called cancelled.
begin;
select plan(6);

select tests.authenticate_as_service_role();
insert into ai.workflows (id, name) values ('00000000-0000-0000-0000-00000000f60a', 'flow');
insert into ai.workflow_executions (id, workflow_id, trigger, status, runner)
  values ('00000000-0000-0000-0000-0000000e6001', '00000000-0000-0000-0000-00000000f60a', 'manual', 'running', '00000000-0000-0000-0000-00000000006a');

select results_eq($$ select stored, cancelled from ai.record_block_log('00000000-0000-0000-0000-0000000e6001', '00000000-0000-0000-0000-00000000006a',
    '{"block_id": "start", "block_type": "starter", "status": "succeeded", "input": null, "output": {"n": 1}, "error": null, "attempts": 1,
      "logs": ["hi"], "started_at": "2026-11-26T10:00:00.000Z", "finished_at": "2026-11-26T10:00:00.020Z", "taken": null, "path": ""}') $$,
  $$ values (true, false) $$, 'the runner''s log of a running run is stored');
select results_eq($$ select block_id, status, input, output, logs, taken is null, path, finished_at - started_at from ai.workflow_block_logs where execution_id = '00000000-0000-0000-0000-0000000e6001' $$,
  $$ values ('start', 'succeeded', 'null'::jsonb, '{"n": 1}'::jsonb, '["hi"]'::jsonb, true, '', interval '20 milliseconds') $$, 'stored as the engine handed it over');
select results_eq($$ select stored, cancelled from ai.record_block_log('00000000-0000-0000-0000-0000000e6001', '00000000-0000-0000-0000-00000000006b',
    '{"block_id": "next", "block_type": "code", "status": "succeeded", "attempts": 1, "started_at": "2026-11-26T10:00:01Z", "finished_at": "2026-11-26T10:00:01Z"}') $$,
  $$ values (false, false) $$, 'another process''s log is refused, not as cancelled');

reset role;
select ai.cancel_execution('00000000-0000-0000-0000-0000000e6001');
select tests.authenticate_as_service_role();
select results_eq($$ select stored, cancelled from ai.record_block_log('00000000-0000-0000-0000-0000000e6001', '00000000-0000-0000-0000-00000000006a',
    '{"block_id": "call", "block_type": "general_api", "status": "succeeded", "output": {"ok": true}, "attempts": 1,
      "started_at": "2026-11-26T10:00:02Z", "finished_at": "2026-11-26T10:00:02Z", "taken": ["a"], "path": "split[0]/"}') $$,
  $$ values (true, true) $$, 'after the cancel, the block that ran unaware is logged, and the log says the run was cancelled');
select results_eq($$ select block_id, taken, path from ai.workflow_block_logs where execution_id = '00000000-0000-0000-0000-0000000e6001' order by id $$,
  $$ values ('start', null::jsonb, ''), ('call', '["a"]'::jsonb, 'split[0]/') $$, 'both logs, none from the other process');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select throws_ok($$ select * from ai.record_block_log('00000000-0000-0000-0000-0000000e6001', '00000000-0000-0000-0000-00000000006a', '{}') $$, '42501', null, 'not callable by a user');

select * from finish();
rollback;
