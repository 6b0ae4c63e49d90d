-- Realtime: the functions of every subscription and every batch of
-- changes, cheaper.
--   1. realtime.route_changes computes each subscriber role's policies once
--      per batch, as its comment always said: the planner joined the
--      per-role policies to the subscriptions by a nested loop, which ran
--      realtime.policy_expr and realtime.hoist_context_calls again for every
--      subscriber (6,400 calls for 64 batches to 100 users in
--      bench:realtime, about 0.1 ms each). The rest of the body is as in
--      0016.
--   2. realtime.become, realtime.release, realtime.hoist_context_calls,
--      realtime.valid_role and realtime.published_tables in plpgsql, planned
--      once per connection instead of on every call (why: sql/0083,
--      sql/CONVENTIONS.md "Security"): `become` runs once per subscriber of a
--      batch, `release` as each socket leaves, the last two as each
--      subscription is made (0.3-0.5 ms each as `language sql` with a SET
--      clause). Same arguments, same answers; privileges stay as they were.

-- 1 ---------------------------------------------------------------------------
create or replace function realtime.route_changes(node uuid, changes jsonb)
returns table (change integer, subscription_ids bigint[], record jsonb, old_record jsonb, columns jsonb)
language plpgsql
set search_path = ''
as $$
declare
  ent record;
  sub record;
  rel regclass;
  rows_table text;
  visible integer[];
  routed_change integer[] := '{}';
  routed_id bigint[] := '{}';
  routed_role name[] := '{}';
  routed_rel oid[] := '{}';
begin
  for ent in
    select c ->> 'schema' as sch, c ->> 'table' as tbl
      from jsonb_array_elements(changes) c
     group by 1, 2
  loop
    rel := to_regclass(format('%I.%I', ent.sch, ent.tbl));
    continue when rel is null;
    rows_table := null;
    -- This node's subscriptions to the table, each with its role's policies
    -- (computed once per role).
    for sub in
      with subs as (
        select s.* from realtime.subscription s
         where s.node = route_changes.node and s.schema_name = ent.sch and (s.table_name is null or s.table_name = ent.tbl)
      ), quals as materialized (
        -- Materialized: joined by a nested loop, the policies were computed
        -- again for every subscriber (a rescan re-runs the functions).
        select r.claims_role, realtime.hoist_context_calls(realtime.policy_expr(rel, r.claims_role, 'select')) as role_qual
          from (select distinct claims_role from subs) r
      )
      select subs.*, quals.role_qual from subs join quals using (claims_role)
       order by subs.claims_role, subs.id
    loop
      continue when sub.role_qual = 'false';
      if rows_table is null then
        -- The row each change is checked on (the new row, or the old one
        -- for a delete), typed as the table's columns, built once for all
        -- subscribers in a temporary table dropped at commit. (Rebuilding
        -- the rows from JSON per subscriber cost twice as much.)
        rows_table := 'realtime_rows_' || rel::oid;
        if to_regclass('pg_temp.' || rows_table) is not null then
          execute format('drop table pg_temp.%I', rows_table);
        end if;
        execute format(
          'create temp table %I on commit drop as
             select (jsonb_populate_record(null::%s, coalesce(nullif(c -> ''record'', ''null''), c -> ''old_record''))).*,
                    ord::integer as realtime_ord, c ->> ''type'' as realtime_op
               from jsonb_array_elements($1) with ordinality e(c, ord)
              where c ->> ''schema'' = $2 and c ->> ''table'' = $3', rows_table, rel)
          using changes, ent.sch, ent.tbl;
        execute format('grant select on pg_temp.%I to public', rows_table);
      end if;
      -- As the subscriber: the policies see its role and claims, and any
      -- table a policy reads is read with its rights. The rows are aliased
      -- as the table, so policies that name it resolve.
      perform realtime.become(sub.claims_role, sub.claims);
      execute format(
        'select coalesce(array_agg(realtime_ord order by realtime_ord), ''{}'') from pg_temp.%I as %I
          where ($1 = ''*'' or realtime_op = $1) and (%s) and (%s)',
        rows_table, ent.tbl, sub.role_qual, sub.filter_sql)
        into visible using sub.event;
      -- Back to the caller's own role (the subscriber's may not call realtime.become).
      perform set_config('role', 'none', true);
      if cardinality(visible) > 0 then
        routed_change := routed_change || visible;
        routed_id := routed_id || array_fill(sub.id, array[cardinality(visible)]);
        routed_role := routed_role || array_fill(sub.claims_role, array[cardinality(visible)]);
        routed_rel := routed_rel || array_fill(rel::oid, array[cardinality(visible)]);
      end if;
    end loop;
  end loop;
  perform realtime.become(null, null);

  -- Shape each (change, role): only the columns that role may select, and
  -- the old row as the replica identity shows it.
  return query
    with routed as (
      select * from unnest(routed_change, routed_id, routed_role, routed_rel) r(change, id, role_name, rel)
    ), grouped as (
      select g.change, g.role_name, g.rel::regclass as rel, array_agg(g.id order by g.id) as ids
        from routed g group by g.change, g.role_name, g.rel
    ), allowed as (
      select a.rel, a.role_name, a.cols, jsonb_array_length(a.cols) = a.total as all_columns
        from (
          select distinct g.rel, g.role_name from grouped g
        ) k
        cross join lateral (
          select k.rel, k.role_name,
                 coalesce(jsonb_agg(jsonb_build_object('name', at.attname, 'type', t.typname) order by at.attnum)
                   filter (where pg_catalog.has_column_privilege(k.role_name, k.rel, at.attnum, 'select')), '[]') as cols,
                 count(*) as total
            from pg_catalog.pg_attribute at join pg_catalog.pg_type t on t.oid = at.atttypid
           where at.attrelid = k.rel and at.attnum > 0 and not at.attisdropped
        ) a
    )
    select g.change, g.ids,
           realtime.only_columns(nullif(c -> 'record', 'null'), al.cols, al.all_columns),
           realtime.only_columns(realtime.old_image(g.rel, c ->> 'type', nullif(c -> 'record', 'null'), nullif(c -> 'old_record', 'null')), al.cols, al.all_columns),
           al.cols
      from grouped g
      join allowed al on al.rel = g.rel and al.role_name = g.role_name
      cross join lateral (select changes -> (g.change - 1) as c) ch
     order by g.change, g.role_name;
end
$$;

-- 2 ---------------------------------------------------------------------------
-- Act as a subscriber for the rest of the transaction: its role and its claims, as the REST path sets them.
create or replace function realtime.become(role_name name, claims jsonb) returns void
language plpgsql
set search_path = ''
as $$
begin
  perform set_config('request.jwt.claims', coalesce(claims::text, ''), true),
          set_config('request.jwt.claim.sub', coalesce(claims ->> 'sub', ''), true),
          set_config('request.jwt.claim.role', coalesce(claims ->> 'role', ''), true),
          set_config('request.jwt.claim.email', coalesce(claims ->> 'email', ''), true),
          set_config('role', coalesce(role_name, 'none'), true);
end
$$;

-- A socket's presence and subscriptions, on one channel or all of them.
create or replace function realtime.release(node uuid, socket text, channel text default null) returns void
language plpgsql
set search_path = ''
as $$
begin
  delete from realtime.presence p
   where p.node = release.node and p.socket = release.socket and (release.channel is null or p.channel = release.channel);
  delete from realtime.subscription s
   where s.node = release.node and s.socket = release.socket and (release.channel is null or s.channel = release.channel);
end
$$;

-- A policy's calls of auth.uid(), auth.jwt(), auth.role(), auth.email() and realtime.topic() written as
-- subqueries, so each runs once per query rather than once per row; text inside quotes is left alone.
create or replace function realtime.hoist_context_calls(expr text) returns text
language plpgsql immutable
set search_path = ''
as $$
begin
  return (select string_agg(
                   case when n % 2 = 1
                        then regexp_replace(part, '(^|[^.\w])(auth\.(uid|jwt|role|email)\(\)|realtime\.topic\(\))', '\1(select \2)', 'g')
                        else part end,
                   '''' order by n)
            from unnest(string_to_array(expr, '''')) with ordinality as t(part, n));
end
$$;

-- Whether a subscriber may act as this role: one the authenticator login may switch to, never a superuser.
create or replace function realtime.valid_role(role_name text) returns boolean
language plpgsql stable
set search_path = ''
as $$
begin
  return exists (
    select 1 from pg_catalog.pg_roles r
     where r.rolname = role_name and not r.rolsuper
       and exists (select 1 from pg_catalog.pg_roles a where a.rolname = 'authenticator')
       and pg_catalog.pg_has_role('authenticator', r.oid, 'member'));
end
$$;

-- The tables of the supabase_realtime publication that changes are captured from.
create or replace function realtime.published_tables() returns table (entity regclass, schema_name name, table_name name)
language plpgsql stable
set search_path = ''
as $$
begin
  return query
  select format('%I.%I', pt.schemaname, pt.tablename)::regclass, pt.schemaname, pt.tablename
    from pg_catalog.pg_publication_tables pt
   where pt.pubname = 'supabase_realtime'
     and pt.schemaname not in ('realtime', 'platform', 'graphile_worker', 'pg_catalog', 'information_schema');
end
$$;
