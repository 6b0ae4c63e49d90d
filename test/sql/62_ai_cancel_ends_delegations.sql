-- Cancelling an orchestration run ends its delegations in flight as failed,
-- with their usage so far (sql/0094); finished ones stay as they were, and a
-- member finishing after the cancel changes nothing.
begin;
select plan(4);

insert into ai.orchestration_runs (id, input, runner) values ('00000000-0000-0000-0000-0000000062c1', 'team', '00000000-0000-0000-0000-00000000062a');
insert into ai.orchestration_delegations (id, run_id, agent_name, task, status, output, finished_at) values
  ('00000000-0000-0000-0000-0000000062d1', '00000000-0000-0000-0000-0000000062c1', 'researcher', 'find', 'completed', 'found it', now()),
  ('00000000-0000-0000-0000-0000000062d2', '00000000-0000-0000-0000-0000000062c1', 'writer', 'write', 'running', null, null);
select ai.record_usage(null, 'orchestration', '00000000-0000-0000-0000-0000000062c1', '00000000-0000-0000-0000-0000000062d2/step-1',
  'gpt-4.1-mini', 'openai', 'chat', 1000, 500, 40, true);
select tests.authenticate_as_service_role();

select ok(ai.cancel_orchestration_run('00000000-0000-0000-0000-0000000062c1'), 'the run is cancelled');
select results_eq($$ select agent_name, status, error, finished_at is not null, tokens_in, tokens_out from ai.orchestration_delegations
                      where run_id = '00000000-0000-0000-0000-0000000062c1' order by agent_name $$,
  $$ values ('researcher', 'completed', null::text, true, 0, 0), ('writer', 'failed', 'The run was cancelled', true, 1000, 500) $$,
  'the delegation in flight ends failed with its usage so far; the finished one is untouched');
select is((select status from ai.finish_delegation('00000000-0000-0000-0000-0000000062d2', 'completed', 'late', null, 'answered', 2, '[]')), null,
  'a member finishing after the cancel changes nothing');
select is((select status from ai.orchestration_delegations where id = '00000000-0000-0000-0000-0000000062d2'), 'failed', '... it stays failed');

select * from finish();
rollback;
