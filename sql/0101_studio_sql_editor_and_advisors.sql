-- Studio: the SQL editor's saved snippets and history, the advisors, and the
-- SQL of the remaining forms (extensions, a policy replaced).
--
--   1. studio.snippets, studio.query_history     per operator; the history keeps an operator's last 500 runs
--      studio.record_query(operator, sql, ms, rows, error)
--   2. studio.advisors(exposed schemas)          lints a DBA wants on one page, each with its fix as SQL:
--        rls_disabled_in_exposed_schema   a table REST serves without row level security (anyone with the anon key reads it)
--        security_definer_search_path     a security definer function without a fixed search_path
--        unindexed_foreign_key            a foreign key whose columns no index leads with (deletes of the parent scan the child)
--        auth_call_per_row                a policy calling auth.uid(), auth.jwt() or auth.role() per row, not as (select auth.uid())
--        unused_index                     an index never scanned since statistics were reset (not unique, not a key)
--        duplicate_index                  indexes of the same table on the same columns and predicate
--   3. studio.enable_extension_sql(name, schema), studio.disable_extension_sql(name),
--      studio.replace_policy_sql(table, name, policy)
-- The platform's own schemas are left out of the lints: they are the platform's to change.

-- 1 ---------------------------------------------------------------------------
create table studio.snippets (
  id uuid primary key default gen_random_uuid(),
  operator_id uuid not null references studio.operators (id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  folder text not null default '' check (length(folder) <= 200),
  sql text not null check (length(sql) <= 1000000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (operator_id, folder, name)
);

create table studio.query_history (
  id bigint generated always as identity primary key,
  operator_id uuid references studio.operators (id) on delete cascade,
  sql text not null,
  ran_at timestamptz not null default now(),
  duration_ms int,
  row_count bigint,
  error text
);
create index query_history_operator on studio.query_history (operator_id, id desc);

alter table studio.snippets enable row level security;
alter table studio.query_history enable row level security;

create or replace function studio.record_query(p_operator uuid, p_sql text, p_ms int, p_rows bigint, p_error text) returns void
language plpgsql
set search_path = ''
as $$
begin
  insert into studio.query_history (operator_id, sql, duration_ms, row_count, error) values (p_operator, left(p_sql, 100000), p_ms, p_rows, left(p_error, 2000));
  delete from studio.query_history h where h.operator_id is not distinct from p_operator
     and h.id <= (select x.id from studio.query_history x where x.operator_id is not distinct from p_operator order by x.id desc offset 500 limit 1);
end
$$;

-- 2 ---------------------------------------------------------------------------
-- A policy expression as pg_get_expr writes it: `auth.uid()` bare, or inside `( SELECT auth.uid() AS uid)`.
create or replace function studio.has_bare_auth_call(p_expr text) returns boolean
language sql immutable
set search_path = ''
as $$ select coalesce(regexp_replace(p_expr, 'SELECT auth\.(uid|jwt|role)\(\)', '', 'g') ~ 'auth\.(uid|jwt|role)\(\)', false) $$;

create or replace function studio.wrap_auth_calls(p_expr text) returns text
language sql immutable
set search_path = ''
as $$ select regexp_replace(p_expr, '(?<!SELECT )auth\.(uid|jwt|role)\(\)', '(select auth.\1())', 'g') $$;

create or replace function studio.advisors(p_exposed text[] default array['public']) returns jsonb
language sql stable
set search_path = ''
as $$
  with own_tables as (
    select c.oid, n.nspname, c.relname, c.relrowsecurity
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p') and not (n.nspname = any (studio.protected_schemas()))
       and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg\_temp\_%'
  ),
  lints as (
    select 'rls_disabled_in_exposed_schema' as name, 'error' as level, format('%I.%I', t.nspname, t.relname) as object,
           'Row level security is off on a table the REST API serves' as title,
           'Anyone holding the anon key can read and change every row. Enable row level security, then add policies for who may do what.' as detail,
           format('alter table %I.%I enable row level security;', t.nspname, t.relname) as fix
      from own_tables t where not t.relrowsecurity and t.nspname = any (p_exposed)
    union all
    select 'security_definer_search_path', 'warn', p.oid::regprocedure::text,
           'A security definer function has no fixed search_path',
           'It runs with its owner''s rights and resolves names through the caller''s search_path, which the caller may point at objects of their own.',
           format('alter function %s set search_path = '''';', p.oid::regprocedure)
      from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where p.prosecdef and not (n.nspname = any (studio.protected_schemas())) and n.nspname not in ('pg_catalog', 'information_schema')
       and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) s where s like 'search_path=%')
    union all
    select 'unindexed_foreign_key', 'info', format('%I.%I (%s)', t.nspname, t.relname, k.conname),
           'A foreign key has no index',
           'Deleting or changing a referenced row reads the whole table to find the rows that point at it.',
           format('create index on %I.%I (%s);', t.nspname, t.relname,
                  (select string_agg(format('%I', a.attname), ', ' order by x.ord) from unnest(k.conkey) with ordinality x(att, ord) join pg_catalog.pg_attribute a on a.attrelid = k.conrelid and a.attnum = x.att))
      from pg_catalog.pg_constraint k join own_tables t on t.oid = k.conrelid
     where k.contype = 'f'
       and not exists (select 1 from pg_catalog.pg_index i where i.indrelid = k.conrelid
                          and (i.indkey::int2[])[0:cardinality(k.conkey) - 1] @> k.conkey and (i.indkey::int2[])[0:cardinality(k.conkey) - 1] <@ k.conkey)
    union all
    select 'auth_call_per_row', 'warn', format('%I.%I: %s', t.nspname, t.relname, p.polname),
           'A policy calls an auth function for every row',
           'auth.uid(), auth.jwt() and auth.role() written bare are evaluated once per row; wrapped as (select auth.uid()) they are evaluated once per statement.',
           format('alter policy %I on %I.%I%s%s;', p.polname, t.nspname, t.relname,
                  case when p.polqual is not null then format(' using (%s)', studio.wrap_auth_calls(pg_catalog.pg_get_expr(p.polqual, p.polrelid))) else '' end,
                  case when p.polwithcheck is not null then format(' with check (%s)', studio.wrap_auth_calls(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid))) else '' end)
      from pg_catalog.pg_policy p join own_tables t on t.oid = p.polrelid
     where studio.has_bare_auth_call(pg_catalog.pg_get_expr(p.polqual, p.polrelid)) or studio.has_bare_auth_call(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid))
    union all
    select 'unused_index', 'info', format('%I.%I', t.nspname, ic.relname),
           'An index has never been used',
           'It costs every write and its space, and no query has read it since statistics were last reset.',
           format('drop index %I.%I;', t.nspname, ic.relname)
      from pg_catalog.pg_index i join own_tables t on t.oid = i.indrelid join pg_catalog.pg_class ic on ic.oid = i.indexrelid
      join pg_catalog.pg_stat_user_indexes s on s.indexrelid = i.indexrelid
     where s.idx_scan = 0 and not i.indisunique and not i.indisprimary
       and not exists (select 1 from pg_catalog.pg_constraint k where k.conindid = i.indexrelid)
    union all
    select 'duplicate_index', 'warn', format('%I.%I', t.nspname, ic.relname),
           'An index repeats another',
           format('It indexes the same columns of %I.%I as %I, with the same predicate.', t.nspname, t.relname, other.relname),
           format('drop index %I.%I;', t.nspname, ic.relname)
      from pg_catalog.pg_index i join own_tables t on t.oid = i.indrelid join pg_catalog.pg_class ic on ic.oid = i.indexrelid
      join pg_catalog.pg_index j on j.indrelid = i.indrelid and j.indexrelid < i.indexrelid and j.indkey = i.indkey and j.indclass = i.indclass
           and coalesce(pg_catalog.pg_get_expr(j.indexprs, j.indrelid), '') = coalesce(pg_catalog.pg_get_expr(i.indexprs, i.indrelid), '')
           and coalesce(pg_catalog.pg_get_expr(j.indpred, j.indrelid), '') = coalesce(pg_catalog.pg_get_expr(i.indpred, i.indrelid), '')
      join pg_catalog.pg_class other on other.oid = j.indexrelid
     where not i.indisprimary and not exists (select 1 from pg_catalog.pg_constraint k where k.conindid = i.indexrelid)
  )
  select coalesce(jsonb_agg(to_jsonb(l) order by case l.level when 'error' then 0 when 'warn' then 1 else 2 end, l.name, l.object), '[]') from lints l
$$;

-- 3 ---------------------------------------------------------------------------
create or replace function studio.enable_extension_sql(p_name text, p_schema text default 'extensions') returns text
language plpgsql stable
set search_path = ''
as $$
begin
  if not exists (select 1 from pg_catalog.pg_available_extensions a where a.name = p_name) then perform auth.raise_error(404, 'not_found', format('No extension %s is available on this server', p_name)); end if;
  return format('create extension if not exists %I with schema %I;', p_name, coalesce(nullif(p_schema, ''), 'extensions'));
end
$$;

create or replace function studio.disable_extension_sql(p_name text) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  if not exists (select 1 from pg_catalog.pg_extension e where e.extname = p_name) then perform auth.raise_error(404, 'not_found', format('The extension %s is not enabled', p_name)); end if;
  return format('drop extension %I;', p_name);
end
$$;

-- An edited policy: dropped and made again, in one transaction (alter policy cannot change its command or kind).
create or replace function studio.replace_policy_sql(p_table oid, p_name text, p_policy jsonb) returns text
language sql stable
set search_path = ''
as $$ select studio.drop_policy_sql(p_table, p_name) || E'\n' || studio.create_policy_sql(p_table, p_policy) $$;
