-- The copilot's execute_public_sql reads `public` only (containment item 5).
--
-- The plan the earlier check read (EXPLAIN) does not show SQL run inside a
-- function: `select query_to_xml('select rolname from pg_roles', ...)` read
-- pg_catalog, and `select pg_advisory_lock(...)` held a lock past the
-- rollback. Now the query is first made a temporary view (parsed, not run)
-- and everything its rule depends on is checked:
--   1. ai.copilot_sql_allows    a function the copilot's SQL may call:
--                               functions in public, and built-ins that have
--                               no side effects and run no SQL of their own;
--                               never the *_to_xml / xpath family, pg_* (locks,
--                               sleep, files, backends, catalog definitions),
--                               set_config / current_setting, large objects,
--                               sequences, dblink
--   2. ai.copilot_sql_refusals  what a probe view uses that is refused:
--                               functions (and the functions behind
--                               operators) outside the allow-list, relations
--                               outside public
-- The server also runs the query on a connection it then discards, so no
-- session state (locks, settings) can outlive the call.

-- 1 ---------------------------------------------------------------------------
create or replace function ai.copilot_sql_allows(p_function oid) returns boolean
language sql stable
set search_path = ''
as $$
  select coalesce((
    select case
      when n.nspname = 'public' then true
      when n.nspname <> 'pg_catalog' then false
      when p.proname ~ '(xml|xpath)'
        or p.proname ~ '^(pg_|has_|lo_|loread|lowrite|dblink|current_setting|set_config|txid_|version$|inet_(server|client)_|nextval|setval|currval|lastval|query_to|cursor_to|table_to|schema_to|database_to)'
        then false
      -- Volatile built-ins may change something; these few only draw numbers or read the clock.
      when p.provolatile = 'v' then p.proname in ('random', 'random_normal', 'gen_random_uuid', 'uuidv4', 'uuidv7', 'clock_timestamp', 'timeofday')
      else true
    end
    from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
   where p.oid = p_function), false)
$$;

-- 2 ---------------------------------------------------------------------------
-- Read from the view's stored query tree (pg_rewrite.ev_action): built-in
-- functions and relations are pinned, so pg_depend does not list them. Every
-- call is a node with its function's oid (FuncExpr :funcid, Aggref
-- :aggfnoid, WindowFunc :winfnoid) or its operator's (OpExpr and kin :opno),
-- every relation a range-table entry with :relid.
create or replace function ai.copilot_sql_refusals(p_view regclass) returns text[]
language sql stable
set search_path = ''
as $$
  with tree as (
    select r.ev_action::text as nodes from pg_catalog.pg_rewrite r where r.ev_class = p_view
  ), refs as (
    select m[1] as kind, m[2]::oid as id from tree t, regexp_matches(t.nodes, ':(funcid|aggfnoid|winfnoid|opno|opfuncid|relid) (\d+)', 'g') m
  ), functions as (
    select f.id as fn from refs f where f.kind in ('funcid', 'aggfnoid', 'winfnoid', 'opfuncid') and f.id <> 0
    union
    select o.oprcode::oid from refs f join pg_catalog.pg_operator o on o.oid = f.id where f.kind = 'opno'
  )
  select coalesce(array_agg(distinct x.name order by x.name), '{}') from (
    select format('function %s.%s', n.nspname, p.proname) as name
      from functions f join pg_catalog.pg_proc p on p.oid = f.fn join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where not ai.copilot_sql_allows(f.fn)
    union all
    select format('relation %s.%s', n.nspname, c.relname)
      from refs f join pg_catalog.pg_class c on c.oid = f.id join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where f.kind = 'relid' and c.oid <> p_view and n.nspname <> 'public'
  ) x
$$;
grant execute on function ai.copilot_sql_allows(oid), ai.copilot_sql_refusals(regclass) to authenticated, service_role;
