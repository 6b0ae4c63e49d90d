-- Every workflow run says whom it acts as (sql/0051): a webhook or arm run
-- acts as the workflow's owner, recorded as the run's user; a project
-- workflow's as the project; no insert gets an actor it did not state or
-- could not have; the runs of a workflow the caller cannot see are 404.
begin;
select plan(8);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.workflows (id, name) values ('a1a1a1a1-0000-4000-8000-000000000001', 'ann''s');
select tests.authenticate_as_service_role();
insert into ai.workflows (id, name) values ('b0b0b0b0-0000-4000-8000-000000000002', 'project''s');

select results_eq($$ select user_id, acts_as from ai.record_webhook_execution('a1a1a1a1-0000-4000-8000-000000000001', '{}', null) $$,
  $$ values ('00000000-0000-0000-0000-0000000000a1'::uuid, 'user') $$, 'a user''s webhook run acts as its owner');
select results_eq($$ select user_id, acts_as from ai.record_webhook_execution('b0b0b0b0-0000-4000-8000-000000000002', '{}', null) $$,
  $$ values (null::uuid, 'project') $$, 'a project workflow''s webhook run acts as the project');
select throws_ok($$ insert into ai.workflow_executions (workflow_id, user_id, acts_as, trigger) values ('b0b0b0b0-0000-4000-8000-000000000002', null, 'user', 'manual') $$,
  '23514', null, 'a user run names its user');
select is((select acts_as from ai.workflow_executions where workflow_id = 'b0b0b0b0-0000-4000-8000-000000000002' and trigger = 'webhook'), 'project', 'recorded');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.workflow_executions (workflow_id, trigger) values ('a1a1a1a1-0000-4000-8000-000000000001', 'manual');
select results_eq($$ select trigger, acts_as from ai.workflow_executions_for('a1a1a1a1-0000-4000-8000-000000000001', 10) order by trigger $$,
  $$ values ('manual', 'user'), ('webhook', 'user') $$, 'the owner sees both the runs they started and their webhook''s');
select throws_ok($$ insert into ai.workflow_executions (workflow_id, user_id, acts_as, trigger) values ('a1a1a1a1-0000-4000-8000-000000000001', null, 'project', 'manual') $$,
  '42501', null, 'a user cannot record a run that acts as the project');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select * from ai.workflow_executions_for('a1a1a1a1-0000-4000-8000-000000000001', 10) $$,
  'PT404', 'Workflow not found', 'another user''s workflow has no runs to list: 404');
select throws_ok($$ select ai.record_webhook_execution('a1a1a1a1-0000-4000-8000-000000000001', '{}', null) $$,
  '42501', null, 'only the server records webhook runs');

select * from finish();
rollback;
