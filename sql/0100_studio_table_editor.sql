-- Studio: the table editor's reads and writes, and the SQL its forms run.
-- Rows are read and written through these functions (the control plane's
-- admin login calls them, as Supabase Studio runs as postgres); every name
-- that reaches dynamic SQL is checked against the catalogue and quoted with
-- %I, every value is a %L literal or a parameter. The DDL builders answer
-- the SQL text the Studio shows before it runs it, and the server runs
-- exactly what they answer.
--
--   1. studio.column_of(table, name)                 a column of the table, or 400
--      studio.valid_type(text)                       a type name safe to write into DDL, or 400
--   2. studio.rows(table, filters, order, limit, offset, after)
--                                                    a page of rows: {rows, next, count, estimate}
--      studio.insert_rows(table, rows), studio.update_row(table, key, changes), studio.delete_rows(table, keys)
--   3. studio.create_table_sql(spec), studio.drop_table_sql(table, cascade), studio.alter_table_sql(table, changes),
--      studio.add_column_sql(table, column), studio.alter_column_sql(table, name, changes), studio.drop_column_sql(table, name)
--   4. studio.create_policy_sql(table, policy), studio.drop_policy_sql(table, name), studio.policy_templates(table)
--
-- Filters are PostgREST's operators: eq, neq, gt, gte, lt, lte, like, ilike
-- (on the text of the value), is (null, not_null, true, false), in (a list).
-- Order is [{column, ascending}], the primary key added to break ties; a
-- page after another is read by keyset (`after`: the last row's order and
-- key values) when every order column runs the same way, else by offset.

-- 1 ---------------------------------------------------------------------------
-- auth.raise_error as an expression (a CASE branch): it never returns.
create or replace function studio.fail(p_status int, p_code text, p_message text) returns text
language plpgsql
set search_path = ''
as $$
begin
  perform auth.raise_error(p_status, p_code, p_message);
  return null;
end
$$;

create or replace function studio.column_of(p_table oid, p_name text) returns pg_catalog.pg_attribute
language plpgsql stable
set search_path = ''
as $$
declare
  a pg_catalog.pg_attribute;
begin
  select * into a from pg_catalog.pg_attribute x where x.attrelid = p_table and x.attname = p_name and x.attnum > 0 and not x.attisdropped;
  if not found then perform auth.raise_error(400, 'unknown_column', format('No column %s in %s', p_name, studio.require_table(p_table))); end if;
  return a;
end
$$;

-- A type as written in DDL: a name (schema-qualified or not, words, an
-- optional modifier and array brackets) that PostgreSQL knows.
create or replace function studio.valid_type(p_type text) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  v text := trim(coalesce(p_type, ''));
begin
  if v !~ '^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?( [A-Za-z_][A-Za-z0-9_]*)*( ?\(\d+( ?, ?\d+)?\))?(\[\])*$' or pg_catalog.to_regtype(v) is null then
    perform auth.raise_error(400, 'unknown_type', format('Not a type PostgreSQL knows: %s', v));
  end if;
  return v;
end
$$;

-- The table's name as DDL writes it, always with its schema (public.books, "My Schema"."T"), or 404.
create or replace function studio.require_table(p_table oid) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  v text;
begin
  select format('%I.%I', n.nspname, c.relname) into v from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table and c.relkind in ('r', 'p', 'v', 'm', 'f');
  if v is null then perform auth.raise_error(404, 'not_found', 'No such table'); end if;
  return v;
end
$$;

-- The primary key's columns, in key order ('{}' for none).
create or replace function studio.key_columns(p_table oid) returns text[]
language sql stable
set search_path = ''
as $$
  select coalesce(array_agg(a.attname order by array_position(i.indkey, a.attnum)), '{}')
    from pg_catalog.pg_index i join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any (i.indkey)
   where i.indrelid = p_table and i.indisprimary
$$;

-- One filter as SQL, on a checked column with a literal cast to its type.
create or replace function studio.filter_sql(p_table oid, p_filter jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  a pg_catalog.pg_attribute := studio.column_of(p_table, p_filter ->> 'column');
  v_type text := pg_catalog.format_type(a.atttypid, a.atttypmod);
  v_op text := p_filter ->> 'op';
  v_value jsonb := p_filter -> 'value';
  v_text text := case jsonb_typeof(p_filter -> 'value') when 'string' then p_filter ->> 'value' else (p_filter -> 'value')::text end;
begin
  return case v_op
    when 'eq' then format('%I = %L::%s', a.attname, v_text, v_type)
    when 'neq' then format('%I is distinct from %L::%s', a.attname, v_text, v_type)
    when 'gt' then format('%I > %L::%s', a.attname, v_text, v_type)
    when 'gte' then format('%I >= %L::%s', a.attname, v_text, v_type)
    when 'lt' then format('%I < %L::%s', a.attname, v_text, v_type)
    when 'lte' then format('%I <= %L::%s', a.attname, v_text, v_type)
    when 'like' then format('%I::text like %L', a.attname, v_text)
    when 'ilike' then format('%I::text ilike %L', a.attname, v_text)
    when 'is' then format('%I is %s', a.attname, case v_text when 'null' then 'null' when 'not_null' then 'not null' when 'true' then 'true' when 'false' then 'false'
                                                  else studio.fail(400, 'bad_filter', 'is takes null, not_null, true or false') end)
    when 'in' then format('%I = any (%L::%s[])', a.attname,
                          (select coalesce(array_agg(case jsonb_typeof(x) when 'string' then x #>> '{}' else x::text end), '{}') from jsonb_array_elements(case jsonb_typeof(v_value) when 'array' then v_value else '[]' end) x)::text,
                          v_type)
    else studio.fail(400, 'bad_filter', format('Unknown filter operator %s: eq, neq, gt, gte, lt, lte, like, ilike, is or in', v_op))
  end;
end
$$;

-- 2 ---------------------------------------------------------------------------
create or replace function studio.rows(p_table oid, p_filters jsonb default '[]', p_order jsonb default '[]', p_limit int default 100, p_offset int default 0, p_after jsonb default null)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_rel text := studio.require_table(p_table);
  v_key text[] := studio.key_columns(p_table);
  v_where text := coalesce((select string_agg(studio.filter_sql(p_table, f), ' and ') from jsonb_array_elements(coalesce(p_filters, '[]')) f), 'true');
  v_cols text[] := '{}';
  v_dirs boolean[] := '{}';
  v_order text;
  v_keyset boolean;
  v_after text := 'true';
  v_limit int := least(greatest(coalesce(p_limit, 100), 1), 1000);
  v_rows jsonb;
  v_estimate bigint;
  v_count bigint;
  o jsonb;
begin
  for o in select * from jsonb_array_elements(coalesce(p_order, '[]')) loop
    v_cols := v_cols || (studio.column_of(p_table, o ->> 'column')).attname::text;
    v_dirs := v_dirs || coalesce((o ->> 'ascending')::boolean, true);
  end loop;
  -- The key breaks ties (a table without one is read in its physical order, by offset only).
  for i in 1 .. coalesce(array_length(v_key, 1), 0) loop
    if not v_key[i] = any (v_cols) then
      v_cols := v_cols || v_key[i];
      v_dirs := v_dirs || coalesce(v_dirs[array_length(v_dirs, 1)], true);
    end if;
  end loop;
  v_order := coalesce((select string_agg(format('%I %s', c, case when d then 'asc' else 'desc' end), ', ' order by n) from unnest(v_cols, v_dirs) with ordinality x(c, d, n)), 'ctid');
  v_keyset := array_length(v_key, 1) > 0 and (select count(distinct d) from unnest(v_dirs) d) = 1;
  if p_after is not null and v_keyset then
    v_after := format('(%s) %s (%s)',
      (select string_agg(format('%I', c), ', ' order by n) from unnest(v_cols) with ordinality x(c, n)),
      case when v_dirs[1] then '>' else '<' end,
      (select string_agg(format('%L::%s', p_after ->> c, pg_catalog.format_type((studio.column_of(p_table, c)).atttypid, (studio.column_of(p_table, c)).atttypmod)), ', ' order by n) from unnest(v_cols) with ordinality x(c, n)));
  end if;
  -- One pass: each row as JSON beside its place in the order (apart, so a column of any name is kept).
  execute format('select coalesce(jsonb_agg(x.j order by x.n), ''[]'') from (select to_jsonb(t) as j, row_number() over () as n from (select * from %s where %s and %s order by %s limit %s offset %s) t) x',
                 v_rel, v_where, v_after, v_order, v_limit, case when p_after is not null and v_keyset then 0 else greatest(coalesce(p_offset, 0), 0) end)
    into v_rows;
  select greatest(c.reltuples::bigint, 0) into v_estimate from pg_catalog.pg_class c where c.oid = p_table;
  -- An exact count where it is cheap: a table estimated under 100,000 rows.
  if v_estimate < 100000 then
    execute format('select count(*) from %s where %s', v_rel, v_where) into v_count;
  end if;
  return jsonb_build_object(
    'rows', v_rows,
    'keyset', v_keyset, 'order', to_jsonb(v_cols),
    'count', v_count, 'estimate', v_estimate);
end
$$;

-- Rows from JSON objects: the keys of the first are the columns written (the
-- others take their defaults); every row must have the same keys.
create or replace function studio.insert_rows(p_table oid, p_rows jsonb) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_rel text := studio.require_table(p_table);
  v_cols text[];
  v_list text;
  v_out jsonb;
begin
  if jsonb_typeof(p_rows) <> 'array' or jsonb_array_length(p_rows) = 0 then perform auth.raise_error(400, 'bad_rows', 'rows must be a non-empty array of objects'); end if;
  select array_agg(k order by k) into v_cols from jsonb_object_keys(p_rows -> 0) k;
  if exists (select 1 from jsonb_array_elements(p_rows) r where jsonb_typeof(r) <> 'object' or (select array_agg(k order by k) from jsonb_object_keys(r) k) is distinct from v_cols) then
    perform auth.raise_error(400, 'bad_rows', 'every row must have the same columns');
  end if;
  if v_cols is null then
    execute format('insert into %s as t default values returning to_jsonb(t.*)', v_rel) into v_out;
    return jsonb_build_array(v_out);
  end if;
  v_list := (select string_agg(format('%I', (studio.column_of(p_table, c)).attname), ', ') from unnest(v_cols) c);
  execute format('with ins as (insert into %s (%s) select %s from jsonb_populate_recordset(null::%s, $1) returning *) select coalesce(jsonb_agg(to_jsonb(ins)), ''[]'') from ins',
                 v_rel, v_list, v_list, v_rel) using p_rows into v_out;
  return v_out;
end
$$;

-- One row by its primary key: the changed columns only.
create or replace function studio.update_row(p_table oid, p_key jsonb, p_changes jsonb) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_rel text := studio.require_table(p_table);
  v_key text[] := studio.key_columns(p_table);
  v_set text;
  v_out jsonb;
begin
  if array_length(v_key, 1) is null then perform auth.raise_error(400, 'no_primary_key', 'A table without a primary key cannot be edited row by row: add one, or use the SQL editor'); end if;
  if jsonb_typeof(p_changes) <> 'object' or p_changes = '{}' then perform auth.raise_error(400, 'bad_rows', 'changes must name at least one column'); end if;
  v_set := (select string_agg(format('%1$I = c.%1$I', (studio.column_of(p_table, k)).attname), ', ') from jsonb_object_keys(p_changes) k);
  execute format('update %s t set %s from jsonb_populate_record(null::%s, $1) c, jsonb_populate_record(null::%s, $2) k where %s returning to_jsonb(t)',
                 v_rel, v_set, v_rel, v_rel, (select string_agg(format('t.%1$I = k.%1$I', c), ' and ') from unnest(v_key) c))
    using p_changes, p_key into v_out;
  if v_out is null then perform auth.raise_error(404, 'not_found', 'No row with that key (it may have been changed or deleted)'); end if;
  return v_out;
end
$$;

create or replace function studio.delete_rows(p_table oid, p_keys jsonb) returns int
language plpgsql
set search_path = ''
as $$
declare
  v_rel text := studio.require_table(p_table);
  v_key text[] := studio.key_columns(p_table);
  v_count int;
begin
  if array_length(v_key, 1) is null then perform auth.raise_error(400, 'no_primary_key', 'A table without a primary key cannot be edited row by row: add one, or use the SQL editor'); end if;
  execute format('delete from %s t using jsonb_populate_recordset(null::%s, $1) k where %s', v_rel, v_rel,
                 (select string_agg(format('t.%1$I = k.%1$I', c), ' and ') from unnest(v_key) c))
    using p_keys;
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

-- 3 ---------------------------------------------------------------------------
-- One column's definition: name type [generated ... as identity] [default ...] [not null] [unique] [check (...)] [references ...].
create or replace function studio.column_sql(p_column jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  r jsonb := p_column -> 'references';
begin
  if coalesce(p_column ->> 'name', '') = '' then perform auth.raise_error(400, 'bad_column', 'A column needs a name'); end if;
  return concat_ws(' ',
    format('%I', p_column ->> 'name'), studio.valid_type(p_column ->> 'type'),
    case lower(p_column ->> 'identity') when 'always' then 'generated always as identity' when 'by default' then 'generated by default as identity' end,
    case when nullif(p_column ->> 'default', '') is not null then 'default ' || (p_column ->> 'default') end,
    case when (p_column ->> 'nullable')::boolean is false and not coalesce((p_column ->> 'primary_key')::boolean, false) then 'not null' end,
    case when (p_column ->> 'unique')::boolean then 'unique' end,
    case when nullif(p_column ->> 'check', '') is not null then format('check (%s)', p_column ->> 'check') end,
    case when r is not null and r <> 'null' then format('references %I.%I (%I) on delete %s', coalesce(r ->> 'schema', 'public'), r ->> 'table', r ->> 'column',
      case upper(coalesce(r ->> 'on_delete', 'NO ACTION')) when 'CASCADE' then 'cascade' when 'SET NULL' then 'set null' when 'SET DEFAULT' then 'set default' when 'RESTRICT' then 'restrict' when 'NO ACTION' then 'no action'
        else studio.fail(400, 'bad_column', 'on_delete is CASCADE, SET NULL, SET DEFAULT, RESTRICT or NO ACTION') end) end);
end
$$;

-- create table with its columns, primary key and comment; row level security on unless `rls` is false (Supabase's default for new tables).
create or replace function studio.create_table_sql(p_spec jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  v_schema text := coalesce(nullif(p_spec ->> 'schema', ''), 'public');
  v_name text := p_spec ->> 'name';
  v_pk text;
begin
  if coalesce(v_name, '') = '' then perform auth.raise_error(400, 'bad_table', 'A table needs a name'); end if;
  if length(v_name) > 63 then perform auth.raise_error(400, 'bad_table', 'A table name is at most 63 characters'); end if;
  if jsonb_typeof(p_spec -> 'columns') <> 'array' or jsonb_array_length(p_spec -> 'columns') = 0 then perform auth.raise_error(400, 'bad_table', 'A table needs at least one column'); end if;
  v_pk := (select string_agg(format('%I', c ->> 'name'), ', ') from jsonb_array_elements(p_spec -> 'columns') c where (c ->> 'primary_key')::boolean);
  return format('create table %I.%I (%s%s);', v_schema, v_name,
           (select string_agg(E'\n  ' || studio.column_sql(c), ',') from jsonb_array_elements(p_spec -> 'columns') c),
           case when v_pk is not null then E',\n  primary key (' || v_pk || ')' else '' end || E'\n')
    || case when coalesce((p_spec ->> 'rls')::boolean, true) then format(E'\nalter table %I.%I enable row level security;', v_schema, v_name) else '' end
    || case when nullif(p_spec ->> 'comment', '') is not null then format(E'\ncomment on table %I.%I is %L;', v_schema, v_name, p_spec ->> 'comment') else '' end;
end
$$;

create or replace function studio.drop_table_sql(p_table oid, p_cascade boolean default false) returns text
language sql stable
set search_path = ''
as $$ select format('drop table %s%s;', studio.require_table(p_table), case when p_cascade then ' cascade' else '' end) $$;

-- changes: {name?, comment?, rls_enabled?, rls_forced?, realtime?} (realtime: in the supabase_realtime publication or not).
create or replace function studio.alter_table_sql(p_table oid, p_changes jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  v_rel text := studio.require_table(p_table);
  v_out text[] := '{}';
begin
  if p_changes ? 'rls_enabled' then v_out := v_out || format('alter table %s %s row level security;', v_rel, case when (p_changes ->> 'rls_enabled')::boolean then 'enable' else 'disable' end); end if;
  if p_changes ? 'rls_forced' then v_out := v_out || format('alter table %s %s row level security;', v_rel, case when (p_changes ->> 'rls_forced')::boolean then 'force' else 'no force' end); end if;
  if p_changes ? 'comment' then v_out := v_out || format('comment on table %s is %L;', v_rel, nullif(p_changes ->> 'comment', '')); end if;
  if p_changes ? 'realtime' then
    if not exists (select 1 from pg_catalog.pg_publication where pubname = 'supabase_realtime') then v_out := v_out || 'create publication supabase_realtime;'::text; end if;
    v_out := v_out || format('alter publication supabase_realtime %s table %s;', case when (p_changes ->> 'realtime')::boolean then 'add' else 'drop' end, v_rel);
  end if;
  if nullif(p_changes ->> 'name', '') is not null then v_out := v_out || format('alter table %s rename to %I;', v_rel, p_changes ->> 'name'); end if;
  if cardinality(v_out) = 0 then perform auth.raise_error(400, 'nothing_to_change', 'Nothing to change'); end if;
  return array_to_string(v_out, E'\n');
end
$$;

create or replace function studio.add_column_sql(p_table oid, p_column jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  return format('alter table %s add column %s;', studio.require_table(p_table), studio.column_sql(p_column))
    || case when (p_column ->> 'primary_key')::boolean then format(E'\nalter table %s add primary key (%I);', studio.require_table(p_table), p_column ->> 'name') else '' end
    || case when nullif(p_column ->> 'comment', '') is not null then format(E'\ncomment on column %s.%I is %L;', studio.require_table(p_table), p_column ->> 'name', p_column ->> 'comment') else '' end;
end
$$;

-- changes: {name?, type?, default? (null drops it), nullable?, unique?, comment?}
create or replace function studio.alter_column_sql(p_table oid, p_name text, p_changes jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  v_rel text := studio.require_table(p_table);
  a pg_catalog.pg_attribute := studio.column_of(p_table, p_name);
  v_out text[] := '{}';
  v_col text := format('%I', a.attname);
begin
  if nullif(p_changes ->> 'type', '') is not null then
    v_out := v_out || format('alter table %s alter column %s type %s using %s::%s;', v_rel, v_col, studio.valid_type(p_changes ->> 'type'), v_col, studio.valid_type(p_changes ->> 'type'));
  end if;
  if p_changes ? 'default' then
    v_out := v_out || case when nullif(p_changes ->> 'default', '') is null then format('alter table %s alter column %s drop default;', v_rel, v_col)
                           else format('alter table %s alter column %s set default %s;', v_rel, v_col, p_changes ->> 'default') end;
  end if;
  if p_changes ? 'nullable' then v_out := v_out || format('alter table %s alter column %s %s not null;', v_rel, v_col, case when (p_changes ->> 'nullable')::boolean then 'drop' else 'set' end); end if;
  if (p_changes ->> 'unique')::boolean then v_out := v_out || format('alter table %s add unique (%s);', v_rel, v_col); end if;
  if p_changes ? 'comment' then v_out := v_out || format('comment on column %s.%s is %L;', v_rel, v_col, nullif(p_changes ->> 'comment', '')); end if;
  if nullif(p_changes ->> 'name', '') is not null and p_changes ->> 'name' <> a.attname then v_out := v_out || format('alter table %s rename column %s to %I;', v_rel, v_col, p_changes ->> 'name'); end if;
  if cardinality(v_out) = 0 then perform auth.raise_error(400, 'nothing_to_change', 'Nothing to change'); end if;
  return array_to_string(v_out, E'\n');
end
$$;

create or replace function studio.drop_column_sql(p_table oid, p_name text) returns text
language sql stable
set search_path = ''
as $$ select format('alter table %s drop column %I;', studio.require_table(p_table), (studio.column_of(p_table, p_name)).attname) $$;

-- 4 ---------------------------------------------------------------------------
-- policy: {name, action (PERMISSIVE | RESTRICTIVE), command (ALL, SELECT, INSERT, UPDATE, DELETE), roles [...], using?, check?}
create or replace function studio.create_policy_sql(p_table oid, p_policy jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  v_command text := upper(coalesce(p_policy ->> 'command', 'ALL'));
  v_roles text;
begin
  if coalesce(p_policy ->> 'name', '') = '' then perform auth.raise_error(400, 'bad_policy', 'A policy needs a name'); end if;
  if v_command not in ('ALL', 'SELECT', 'INSERT', 'UPDATE', 'DELETE') then perform auth.raise_error(400, 'bad_policy', 'command is ALL, SELECT, INSERT, UPDATE or DELETE'); end if;
  if v_command = 'INSERT' and nullif(p_policy ->> 'using', '') is not null then perform auth.raise_error(400, 'bad_policy', 'An INSERT policy has only a check (with check)'); end if;
  if v_command in ('SELECT', 'DELETE') and nullif(p_policy ->> 'check', '') is not null then perform auth.raise_error(400, 'bad_policy', format('A %s policy has only a condition (using)', v_command)); end if;
  v_roles := coalesce((select string_agg(case when r = 'public' then 'public' else format('%I', r) end, ', ')
                         from jsonb_array_elements_text(case when jsonb_typeof(p_policy -> 'roles') = 'array' and jsonb_array_length(p_policy -> 'roles') > 0 then p_policy -> 'roles' else '["public"]' end) r
                        where r = 'public' or exists (select 1 from pg_catalog.pg_roles x where x.rolname = r)), 'public');
  return concat_ws(E'\n',
    format('create policy %I on %s', p_policy ->> 'name', studio.require_table(p_table)),
    format('as %s', case upper(coalesce(p_policy ->> 'action', 'PERMISSIVE')) when 'RESTRICTIVE' then 'restrictive' else 'permissive' end),
    format('for %s', lower(v_command)),
    format('to %s', v_roles),
    case when nullif(p_policy ->> 'using', '') is not null then format('using (%s)', p_policy ->> 'using') end,
    case when nullif(p_policy ->> 'check', '') is not null then format('with check (%s)', p_policy ->> 'check') end) || ';';
end
$$;

create or replace function studio.drop_policy_sql(p_table oid, p_name text) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  if not exists (select 1 from pg_catalog.pg_policy p where p.polrelid = p_table and p.polname = p_name) then perform auth.raise_error(404, 'not_found', 'No such policy'); end if;
  return format('drop policy %I on %s;', p_name, studio.require_table(p_table));
end
$$;

-- Policies people start from, for this table: each {id, title, policy}. The
-- "own rows" ones need a uuid column that names the user (user_id, owner_id,
-- created_by, or one referencing auth.users); they use (select auth.uid()),
-- evaluated once per statement instead of once per row.
create or replace function studio.policy_templates(p_table oid) returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  v_rel text := studio.require_table(p_table);
  v_name text := (select c.relname from pg_catalog.pg_class c where c.oid = p_table);
  v_owner text;
  v_out jsonb;
begin
  select a.attname into v_owner from pg_catalog.pg_attribute a
   where a.attrelid = p_table and a.attnum > 0 and not a.attisdropped and a.atttypid = 'uuid'::regtype
     and (a.attname in ('user_id', 'owner_id', 'created_by', 'profile_id')
          or exists (select 1 from pg_catalog.pg_constraint k where k.conrelid = p_table and k.contype = 'f' and k.conkey = array[a.attnum] and k.confrelid = 'auth.users'::regclass))
   order by (a.attname = 'user_id') desc, a.attnum limit 1;
  v_out := jsonb_build_array(
    jsonb_build_object('id', 'public-read', 'title', 'Anyone can read',
      'policy', jsonb_build_object('name', format('Anyone can read %s', v_name), 'command', 'SELECT', 'roles', '["anon", "authenticated"]'::jsonb, 'using', 'true')),
    jsonb_build_object('id', 'authenticated-read', 'title', 'Signed-in users can read',
      'policy', jsonb_build_object('name', format('Signed-in users can read %s', v_name), 'command', 'SELECT', 'roles', '["authenticated"]'::jsonb, 'using', 'true')));
  if v_owner is not null then
    v_out := v_out || jsonb_build_array(
      jsonb_build_object('id', 'own-read', 'title', 'Users read their own rows',
        'policy', jsonb_build_object('name', 'Users read their own rows', 'command', 'SELECT', 'roles', '["authenticated"]'::jsonb, 'using', format('(select auth.uid()) = %I', v_owner))),
      jsonb_build_object('id', 'own-insert', 'title', 'Users add their own rows',
        'policy', jsonb_build_object('name', 'Users add their own rows', 'command', 'INSERT', 'roles', '["authenticated"]'::jsonb, 'check', format('(select auth.uid()) = %I', v_owner))),
      jsonb_build_object('id', 'own-update', 'title', 'Users change their own rows',
        'policy', jsonb_build_object('name', 'Users change their own rows', 'command', 'UPDATE', 'roles', '["authenticated"]'::jsonb, 'using', format('(select auth.uid()) = %I', v_owner), 'check', format('(select auth.uid()) = %I', v_owner))),
      jsonb_build_object('id', 'own-delete', 'title', 'Users delete their own rows',
        'policy', jsonb_build_object('name', 'Users delete their own rows', 'command', 'DELETE', 'roles', '["authenticated"]'::jsonb, 'using', format('(select auth.uid()) = %I', v_owner))));
  end if;
  return v_out;
end
$$;
