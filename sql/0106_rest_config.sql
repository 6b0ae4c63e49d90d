-- Row REST: PostgREST's in-database configuration (issue 47, item 8).
--
-- A DBA configures the REST layer as PostgREST is configured: settings on
-- the authenticator role, named pgrst.<setting> with PostgREST's names,
-- then NOTIFY pgrst, 'reload config' to apply them without a restart:
--
--   alter role authenticator set pgrst.db_aggregates_enabled = 'true';
--   alter role authenticator in database app set pgrst.db_max_rows = '100';
--   notify pgrst, 'reload config';
--
-- A setting for the role in this database wins over one for the role in
-- every database (as PostgreSQL applies them). The REST layer reads this
-- function at start, on 'reload config' and when its listening connection
-- comes back, and checks each value (server/rest/settings.ts); the
-- environment variable of a setting wins where both are set (docs/rest.md).
--
--   platform.rest_config()   (name, value) of each pgrst.* setting, name without the prefix

create or replace function platform.rest_config() returns table (name text, value text)
language sql stable
set search_path = ''
as $$
  select distinct on (1) substr(split_part(s.setting, '=', 1), 7), substr(s.setting, strpos(s.setting, '=') + 1)
    from pg_catalog.pg_db_role_setting d
    join pg_catalog.pg_roles r on r.oid = d.setrole and r.rolname = 'authenticator'
    cross join lateral unnest(d.setconfig) as s(setting)
   where d.setdatabase in (0, (select oid from pg_catalog.pg_database where datname = pg_catalog.current_database()))
     and s.setting like 'pgrst.%'
   order by 1, d.setdatabase desc
$$;

comment on function platform.rest_config() is
  'PostgREST''s in-database configuration: the pgrst.* settings of the authenticator role, this database''s winning over every database''s.';
