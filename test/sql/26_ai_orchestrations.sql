-- Orchestrations: the access model through the orchestration for entities and
-- hooks; an entity's type and reference fixed once made; hooks immutable.
begin;
select plan(8);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.orchestrations (id, name) values ('00000000-0000-0000-0000-0000000000e1', 'team');
insert into ai.orchestration_entities (orchestration_id, entity_type, entity_ref_id) values ('00000000-0000-0000-0000-0000000000e1', 'agent', 'x');
select is((select strategy from ai.orchestrations), 'coordinator', 'the default strategy is coordinator');
update ai.orchestration_entities set position = 3, role_description = 'lead';
select is((select position from ai.orchestration_entities), 3, 'the owner changes a member''s position and role');
select throws_ok($$ update ai.orchestration_entities set entity_type = 'tool' $$, '42501', null, 'but not its type');
select throws_ok($$ update ai.orchestration_entities set entity_ref_id = 'y' $$, '42501', null, 'nor what it refers to');
select throws_ok($$ insert into ai.orchestration_hooks (orchestration_id, event, type, config) values ('00000000-0000-0000-0000-0000000000e1', 'OnRunStart', 'pigeon', '{}') $$,
  '23514', null, 'an orchestration hook''s type is http, rule or approval');
insert into ai.orchestration_hooks (orchestration_id, event, type, config) values ('00000000-0000-0000-0000-0000000000e1', 'OnRunStart', 'rule', '{}');
select throws_ok($$ update ai.orchestration_hooks set enabled = false $$, '42501', null, 'hooks are immutable');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.orchestration_entities) + (select count(*)::int from ai.orchestration_hooks), 0,
  'bob sees neither the members nor the hooks of ann''s orchestration');
select throws_ok($$ insert into ai.orchestration_entities (orchestration_id, entity_type, entity_ref_id) values ('00000000-0000-0000-0000-0000000000e1', 'agent', 'z') $$,
  '42501', null, 'nor adds members to it');

select * from finish();
rollback;
