-- The arm window (spec 3.4): arming opens 10 minutes; the first webhook call
-- uses it (ai.consume_arm, one guarded statement), every later one is
-- refused; an elapsed window is closed. Deploy numbers versions; only the
-- owner (or the service role) changes a workflow.
begin;
select plan(10);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.workflows (id, name) values ('33333333-3333-4333-8333-333333333333', 'armed');
select ok(ai.arm_workflow('33333333-3333-4333-8333-333333333333') between now() + interval '9 minutes 59 seconds' and now() + interval '10 minutes',
  'arming opens a window of 10 minutes');

select tests.authenticate_as_service_role();
select is(ai.consume_arm('33333333-3333-4333-8333-333333333333'), true, 'the first call uses the window');
select is(ai.consume_arm('33333333-3333-4333-8333-333333333333'), false, 'a second call finds it closed');
update ai.workflows set armed_until = now() - interval '1 second' where id = '33333333-3333-4333-8333-333333333333';
select is(ai.consume_arm('33333333-3333-4333-8333-333333333333'), false, 'an elapsed window is closed');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select results_eq($$ select version from ai.deploy_workflow('33333333-3333-4333-8333-333333333333') $$, $$ values (1) $$, 'the first deploy is version 1');
select results_eq($$ select version from ai.deploy_workflow('33333333-3333-4333-8333-333333333333') $$, $$ values (2) $$, 'the next is version 2');
select throws_ok($$ update ai.workflow_versions set graph = '{}' $$, '42501', null, 'versions never change');
select throws_ok($$ select ai.consume_arm('33333333-3333-4333-8333-333333333333') $$, '42501', null, 'only the server uses an arm window');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select ai.arm_workflow('33333333-3333-4333-8333-333333333333') $$, 'PT404', 'Workflow not found', 'another user''s workflow is not found');
select throws_ok($$ select ai.deploy_workflow('33333333-3333-4333-8333-333333333333') $$, 'PT404', 'Workflow not found', 'nor deployed by them');

select * from finish();
rollback;
