-- The table editor's SQL (sql/0099, 0100): introspection in postgres-meta's
-- shapes, rows by filter and keyset, the DDL a form runs with every name
-- quoted and every type checked, policy templates.
begin;
select plan(14);

create table public.t66 (id int primary key, "Odd Name" text, doc jsonb, owner_id uuid);
insert into public.t66 select g, 'row ' || g, jsonb_build_object('g', g), null from generate_series(1, 30) g;

select is((select t ->> 'name' from jsonb_array_elements(studio.tables(array['public'])) t where t ->> 'name' = 't66'), 't66', 'a table is listed');
select is((select jsonb_agg(c ->> 'name' order by (c ->> 'ordinal_position')::int) from jsonb_array_elements(studio.columns(array['public.t66'::regclass::oid])) c),
  '["id", "Odd Name", "doc", "owner_id"]'::jsonb, 'its columns, in order');
select is(jsonb_array_length(studio.rows('public.t66'::regclass, '[{"column": "Odd Name", "op": "like", "value": "row 1%"}]') -> 'rows'), 11, 'a like filter on a quoted name');
select is((studio.rows('public.t66'::regclass, '[]', '[{"column": "id", "ascending": false}]', 5, 0, '{"id": 10}') -> 'rows' -> 0 ->> 'id')::int, 9, 'keyset: the page after id 10, descending');
create table public.t66n (n int primary key, j text);
insert into public.t66n values (2, 'b'), (1, 'a');
select is(studio.rows('public.t66n'::regclass) -> 'rows', '[{"n": 1, "j": "a"}, {"n": 2, "j": "b"}]'::jsonb, 'rows in key order, a column named n kept');
select throws_ok($$ select studio.rows('public.t66'::regclass, '[{"column": "id; drop table t66", "op": "eq", "value": 1}]') $$, 'PT400', null, 'an unknown column is refused, not run');
select throws_ok($$ select studio.rows('public.t66'::regclass, '[{"column": "id", "op": "between", "value": 1}]') $$, 'PT400', null, 'an unknown operator is refused');
select is(studio.update_row('public.t66'::regclass, '{"id": 3}', '{"doc": {"x": 1}}') -> 'doc', '{"x": 1}'::jsonb, 'a row edited by its key');
select is(studio.delete_rows('public.t66'::regclass, '[{"id": 1}, {"id": 2}]'), 2, 'rows deleted by their keys');
select is(studio.create_table_sql('{"name": "x\"y", "columns": [{"name": "a b", "type": "numeric(10, 2)", "default": "0"}], "rls": false}'),
  E'create table public."x""y" (\n  "a b" numeric(10, 2) default 0\n);', 'names are quoted');
select throws_ok($$ select studio.create_table_sql('{"name": "x", "columns": [{"name": "a", "type": "text) ; drop table t66 --"}]}') $$, 'PT400', null, 'a type that is not one is refused');
select is(studio.alter_table_sql('public.t66'::regclass, '{"rls_enabled": true, "realtime": true}'),
  E'alter table public.t66 enable row level security;\nalter publication supabase_realtime add table public.t66;', 'row level security and the realtime publication');
select is((select t -> 'policy' ->> 'using' from jsonb_array_elements(studio.policy_templates('public.t66'::regclass)) t where t ->> 'id' = 'own-read'),
  '(select auth.uid()) = owner_id', 'an own-rows template on the owner column, auth.uid() once per statement');
select is(studio.create_policy_sql('public.t66'::regclass, '{"name": "mine", "command": "UPDATE", "roles": ["authenticated", "no_such_role"], "using": "true", "check": "true"}'),
  E'create policy mine on public.t66\nas permissive\nfor update\nto authenticated\nusing (true)\nwith check (true);', 'a policy, unknown roles left out');

select * from finish();
rollback;
