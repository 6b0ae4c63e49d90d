-- The AI access model on ai.tools (every owned ai table follows it): project
-- rows (owner_id null) readable by every signed-in user and changed by the
-- service role only; a user's rows are theirs alone; anon has no access.
begin;
select plan(11);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');

select tests.authenticate_as_service_role();
insert into ai.tools (name, description, type, input_schema) values ('project', 'a project tool', 'http', '{}');
select is((select owner_id from ai.tools where name = 'project'), null, 'a tool made with the service-role key is a project resource');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.tools (name, description, type, input_schema) values ('ann', 'ann''s tool', 'http', '{}');
select is((select owner_id from ai.tools where name = 'ann'), '00000000-0000-0000-0000-0000000000a1'::uuid, 'a user''s tool is theirs');
select results_eq($$ select name from ai.tools order by name $$, $$ values ('ann'), ('project') $$, 'ann reads the project tool and her own');
select throws_ok($$ insert into ai.tools (owner_id, name, description, type, input_schema) values (null, 'sneaky', 'x', 'x', '{}') $$, '42501', null,
  'ann cannot make a project tool');
update ai.tools set name = 'changed' where name = 'project';
select is((select count(*)::int from ai.tools where name = 'changed'), 0, 'ann cannot change the project tool');
delete from ai.tools where name = 'project';
select is((select count(*)::int from ai.tools where name = 'project'), 1, 'nor delete it');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select results_eq($$ select name from ai.tools order by name $$, $$ values ('project') $$, 'bob does not see ann''s tool');
update ai.tools set name = 'stolen' where name = 'ann';
delete from ai.tools where name = 'ann';
select tests.authenticate_as_service_role();
select is((select count(*)::int from ai.tools where name = 'ann'), 1, 'bob could neither change nor delete it');

select tests.authenticate_as_anon();
select throws_ok($$ select * from ai.tools $$, '42501', null, 'anon has no access to schema ai');

select tests.clear_authentication();
select is(ai.mask('sk-abcdefghijklmnop'), 'sk-...mnop', 'masks keep three leading and four trailing characters');
select is(ai.mask('short'), '••••••••', 'short secrets are all dots');

select * from finish();
rollback;
