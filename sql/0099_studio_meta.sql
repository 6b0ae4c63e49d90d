-- Studio: what the database holds, read from the catalogues in the shapes
-- supabase/postgres-meta answers (so people who know Supabase's management
-- API know these), one function per object kind, each answering a jsonb
-- array. The control plane serves them at /api/platform/pg-meta/{ref}/...
-- A schema the platform owns (auth, storage, realtime, ai, ...) is listed
-- with `protected: true`: shown, but the Studio does not offer to change it.
--
--   studio.protected_schemas()            the platform's own schemas
--   studio.schemas(exposed)               [{id, name, owner, protected, exposed}]
--   studio.tables(schemas, ids, exposed)         [{id, schema, name, rls_enabled, rls_forced, replica_identity,
--                                           bytes, size, live_rows_estimate, dead_rows_estimate, comment,
--                                           primary_keys, relationships, protected, exposed, realtime}]
--   studio.columns(table ids)             [{table_id, schema, table, id, ordinal_position, name, default_value,
--                                           data_type, format, is_identity, identity_generation, is_generated,
--                                           is_nullable, is_updatable, is_unique, enums, check, comment}]
--   studio.policies(table ids)            [{id, schema, table, table_id, name, action, roles, command, definition, check}]
--   studio.indexes(table ids)             [{id, table_id, schema, table, name, columns, is_unique, is_primary, definition, size}]
--   studio.triggers(table ids)            [{id, table_id, enabled_mode, function_id, function_schema, function_name,
--                                           function_args, table, schema, name, condition, orientation, activation, events}]
--   studio.functions(schemas)             [{id, schema, name, language, definition, complete_statement, args,
--                                           argument_types, identity_argument_types, return_type, is_set_returning_function,
--                                           behavior, security_definer, config_params, protected}]
--   studio.roles()                        [{id, name, is_superuser, can_create_db, can_create_role, inherit_role, can_login,
--                                           is_replication_role, can_bypass_rls, active_connections, connection_limit,
--                                           valid_until, config}]
--   studio.extensions()                   [{name, schema, default_version, installed_version, comment}]
--   studio.publications()                 [{id, name, owner, publish_insert, publish_update, publish_delete, publish_truncate, tables}]
--
-- `exposed`: the schema is one REST serves (the server passes its
-- REST_SCHEMAS); `realtime`: the table is in the supabase_realtime
-- publication (Supabase's switch for postgres_changes).

create or replace function studio.protected_schemas() returns text[]
language sql immutable
set search_path = ''
as $$ select array['auth', 'storage', 'realtime', 'ai', 'platform', 'studio', 'extensions', 'graphile_worker', 'graphql', 'graphql_public', 'pgbouncer', 'vault', 'supabase_functions', 'cron', 'net', 'pgmq', 'tests'] $$;

create or replace function studio.schemas(p_exposed text[] default array['public']) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object('id', n.oid, 'name', n.nspname, 'owner', pg_catalog.pg_get_userbyid(n.nspowner),
           'protected', n.nspname = any (studio.protected_schemas()), 'exposed', n.nspname = any (p_exposed)) order by n.nspname), '[]')
    from pg_catalog.pg_namespace n
   where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg\_temp\_%' and n.nspname not like 'pg\_toast\_temp\_%'
$$;

create or replace function studio.tables(p_schemas text[] default null, p_ids oid[] default null, p_exposed text[] default array['public']) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', c.oid, 'schema', n.nspname, 'name', c.relname,
           'rls_enabled', c.relrowsecurity, 'rls_forced', c.relforcerowsecurity,
           'replica_identity', case c.relreplident when 'd' then 'DEFAULT' when 'i' then 'INDEX' when 'f' then 'FULL' else 'NOTHING' end,
           'bytes', pg_catalog.pg_total_relation_size(c.oid), 'size', pg_catalog.pg_size_pretty(pg_catalog.pg_total_relation_size(c.oid)),
           'live_rows_estimate', greatest(coalesce(s.n_live_tup, 0), c.reltuples::bigint, 0), 'dead_rows_estimate', coalesce(s.n_dead_tup, 0),
           'comment', pg_catalog.obj_description(c.oid, 'pg_class'),
           'primary_keys', coalesce((select jsonb_agg(jsonb_build_object('schema', n.nspname, 'table_name', c.relname, 'name', a.attname, 'table_id', c.oid) order by array_position(i.indkey, a.attnum))
                                       from pg_catalog.pg_index i join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = any (i.indkey)
                                      where i.indrelid = c.oid and i.indisprimary), '[]'),
           'relationships', coalesce((select jsonb_agg(jsonb_build_object(
                                        'id', k.oid, 'constraint_name', k.conname,
                                        'source_schema', sn.nspname, 'source_table_name', sc.relname,
                                        'source_column_name', (select string_agg(sa.attname, ',' order by sx.ord) from unnest(k.conkey) with ordinality sx(att, ord) join pg_catalog.pg_attribute sa on sa.attrelid = k.conrelid and sa.attnum = sx.att),
                                        'target_table_schema', tn.nspname, 'target_table_name', tc.relname,
                                        'target_column_name', (select string_agg(ta.attname, ',' order by tx.ord) from unnest(k.confkey) with ordinality tx(att, ord) join pg_catalog.pg_attribute ta on ta.attrelid = k.confrelid and ta.attnum = tx.att),
                                        'on_delete', case k.confdeltype when 'a' then 'NO ACTION' when 'r' then 'RESTRICT' when 'c' then 'CASCADE' when 'n' then 'SET NULL' when 'd' then 'SET DEFAULT' end,
                                        'on_update', case k.confupdtype when 'a' then 'NO ACTION' when 'r' then 'RESTRICT' when 'c' then 'CASCADE' when 'n' then 'SET NULL' when 'd' then 'SET DEFAULT' end) order by k.conname)
                                       from pg_catalog.pg_constraint k
                                       join pg_catalog.pg_class sc on sc.oid = k.conrelid join pg_catalog.pg_namespace sn on sn.oid = sc.relnamespace
                                       join pg_catalog.pg_class tc on tc.oid = k.confrelid join pg_catalog.pg_namespace tn on tn.oid = tc.relnamespace
                                      where k.contype = 'f' and (k.conrelid = c.oid or k.confrelid = c.oid)), '[]'),
           'protected', n.nspname = any (studio.protected_schemas()),
           'exposed', n.nspname = any (p_exposed),
           'realtime', exists (select 1 from pg_catalog.pg_publication p join pg_catalog.pg_publication_rel r on r.prpubid = p.oid
                                where p.pubname = 'supabase_realtime' and r.prrelid = c.oid)
                       or exists (select 1 from pg_catalog.pg_publication p where p.pubname = 'supabase_realtime' and p.puballtables)
         ) order by n.nspname, c.relname), '[]')
    from pg_catalog.pg_class c
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    left join pg_catalog.pg_stat_user_tables s on s.relid = c.oid
   where c.relkind in ('r', 'p')
     and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg\_temp\_%'
     and (p_schemas is null or n.nspname = any (p_schemas))
     and (p_ids is null or c.oid = any (p_ids))
$$;

create or replace function studio.columns(p_table_ids oid[]) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'table_id', c.oid, 'schema', n.nspname, 'table', c.relname, 'id', c.oid::text || '.' || a.attnum,
           'ordinal_position', a.attnum, 'name', a.attname,
           'default_value', pg_catalog.pg_get_expr(d.adbin, d.adrelid),
           'data_type', case when t.typtype = 'e' then 'USER-DEFINED' when t.typcategory = 'A' then 'ARRAY' else pg_catalog.format_type(a.atttypid, null) end,
           'format', case when t.typcategory = 'A' then '_' || et.typname else t.typname end,
           'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
           'is_identity', a.attidentity <> '', 'identity_generation', case a.attidentity when 'a' then 'ALWAYS' when 'd' then 'BY DEFAULT' end,
           'is_generated', a.attgenerated <> '', 'is_nullable', not a.attnotnull,
           'is_updatable', c.relkind in ('r', 'p') and a.attgenerated = '',
           'is_unique', exists (select 1 from pg_catalog.pg_index i where i.indrelid = c.oid and i.indisunique and i.indnatts = 1 and i.indkey[0] = a.attnum),
           'is_primary_key', exists (select 1 from pg_catalog.pg_index i where i.indrelid = c.oid and i.indisprimary and a.attnum = any (i.indkey)),
           'enums', coalesce((select jsonb_agg(e.enumlabel order by e.enumsortorder) from pg_catalog.pg_enum e where e.enumtypid = coalesce(nullif(t.typelem, 0), t.oid)), '[]'),
           'check', (select pg_catalog.pg_get_constraintdef(k.oid) from pg_catalog.pg_constraint k where k.conrelid = c.oid and k.contype = 'c' and k.conkey = array[a.attnum] limit 1),
           'foreign_key', (select jsonb_build_object('constraint_name', k.conname, 'schema', tn.nspname, 'table', tc.relname, 'column', ta.attname,
                                                     'on_delete', case k.confdeltype when 'a' then 'NO ACTION' when 'r' then 'RESTRICT' when 'c' then 'CASCADE' when 'n' then 'SET NULL' when 'd' then 'SET DEFAULT' end)
                             from pg_catalog.pg_constraint k join pg_catalog.pg_class tc on tc.oid = k.confrelid join pg_catalog.pg_namespace tn on tn.oid = tc.relnamespace
                             join pg_catalog.pg_attribute ta on ta.attrelid = k.confrelid and ta.attnum = k.confkey[1]
                            where k.conrelid = c.oid and k.contype = 'f' and k.conkey = array[a.attnum] limit 1),
           'comment', pg_catalog.col_description(c.oid, a.attnum)
         ) order by c.oid, a.attnum), '[]')
    from pg_catalog.pg_class c
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    join pg_catalog.pg_type t on t.oid = a.atttypid
    left join pg_catalog.pg_type et on et.oid = t.typelem and t.typcategory = 'A'
    left join pg_catalog.pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
   where c.oid = any (p_table_ids)
$$;

create or replace function studio.policies(p_table_ids oid[] default null) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', p.oid, 'schema', n.nspname, 'table', c.relname, 'table_id', c.oid, 'name', p.polname,
           'action', case when p.polpermissive then 'PERMISSIVE' else 'RESTRICTIVE' end,
           'roles', case when p.polroles = '{0}' then '["public"]'::jsonb
                         else (select jsonb_agg(r.rolname order by r.rolname) from pg_catalog.pg_roles r where r.oid = any (p.polroles)) end,
           'command', case p.polcmd when 'r' then 'SELECT' when 'a' then 'INSERT' when 'w' then 'UPDATE' when 'd' then 'DELETE' else 'ALL' end,
           'definition', pg_catalog.pg_get_expr(p.polqual, p.polrelid), 'check', pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid)
         ) order by n.nspname, c.relname, p.polname), '[]')
    from pg_catalog.pg_policy p join pg_catalog.pg_class c on c.oid = p.polrelid join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where p_table_ids is null or c.oid = any (p_table_ids)
$$;

create or replace function studio.indexes(p_table_ids oid[] default null) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', ic.oid, 'table_id', c.oid, 'schema', n.nspname, 'table', c.relname, 'name', ic.relname,
           'columns', (select coalesce(jsonb_agg(pg_catalog.pg_get_indexdef(i.indexrelid, k.ord::int, true) order by k.ord), '[]') from generate_subscripts(i.indkey, 1) k(ord) where k.ord < i.indnkeyatts),
           'is_unique', i.indisunique, 'is_primary', i.indisprimary,
           'definition', pg_catalog.pg_get_indexdef(i.indexrelid), 'size', pg_catalog.pg_size_pretty(pg_catalog.pg_relation_size(i.indexrelid)),
           'scans', coalesce(s.idx_scan, 0)
         ) order by n.nspname, c.relname, ic.relname), '[]')
    from pg_catalog.pg_index i
    join pg_catalog.pg_class ic on ic.oid = i.indexrelid
    join pg_catalog.pg_class c on c.oid = i.indrelid join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    left join pg_catalog.pg_stat_user_indexes s on s.indexrelid = i.indexrelid
   where (p_table_ids is null and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')) or c.oid = any (p_table_ids)
$$;

create or replace function studio.triggers(p_table_ids oid[] default null) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', tg.oid, 'table_id', c.oid,
           'enabled_mode', case tg.tgenabled when 'O' then 'ORIGIN' when 'D' then 'DISABLED' when 'R' then 'REPLICA' when 'A' then 'ALWAYS' end,
           'function_id', f.oid, 'function_schema', fn.nspname, 'function_name', f.proname,
           'function_args', coalesce((select jsonb_agg(x) from unnest(string_to_array(nullif(encode(tg.tgargs, 'escape'), ''), '\000')) x where x <> ''), '[]'),
           'table', c.relname, 'schema', n.nspname, 'name', tg.tgname,
           'condition', substring(pg_catalog.pg_get_triggerdef(tg.oid) from 'WHEN \((.*)\) EXECUTE'),
           'orientation', case when tg.tgtype & 1 = 1 then 'ROW' else 'STATEMENT' end,
           'activation', case when tg.tgtype & 2 = 2 then 'BEFORE' when tg.tgtype & 64 = 64 then 'INSTEAD OF' else 'AFTER' end,
           'events', (select jsonb_agg(e) from (values (4, 'INSERT'), (8, 'DELETE'), (16, 'UPDATE'), (32, 'TRUNCATE')) v(bit, e) where tg.tgtype & v.bit = v.bit),
           'definition', pg_catalog.pg_get_triggerdef(tg.oid, true)
         ) order by n.nspname, c.relname, tg.tgname), '[]')
    from pg_catalog.pg_trigger tg
    join pg_catalog.pg_class c on c.oid = tg.tgrelid join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    join pg_catalog.pg_proc f on f.oid = tg.tgfoid join pg_catalog.pg_namespace fn on fn.oid = f.pronamespace
   where not tg.tgisinternal and ((p_table_ids is null and n.nspname not in ('pg_catalog', 'information_schema')) or c.oid = any (p_table_ids))
$$;

create or replace function studio.functions(p_schemas text[] default null) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', p.oid, 'schema', n.nspname, 'name', p.proname, 'language', l.lanname,
           'definition', case when l.lanname in ('c', 'internal') then null else p.prosrc end,
           'complete_statement', case when p.prokind in ('f', 'p') then pg_catalog.pg_get_functiondef(p.oid) end,
           'args', coalesce((select jsonb_agg(jsonb_build_object('mode', case m when 'o' then 'out' when 'b' then 'inout' when 'v' then 'variadic' when 't' then 'table' else 'in' end,
                                                                 'name', coalesce(an, ''), 'type_id', ty, 'has_default', false) order by ord)
                               from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]), p.proargmodes, p.proargnames) with ordinality x(ty, m, an, ord)), '[]'),
           'argument_types', pg_catalog.pg_get_function_arguments(p.oid),
           'identity_argument_types', pg_catalog.pg_get_function_identity_arguments(p.oid),
           'return_type', pg_catalog.pg_get_function_result(p.oid),
           'is_set_returning_function', p.proretset,
           'behavior', case p.provolatile when 'i' then 'IMMUTABLE' when 's' then 'STABLE' else 'VOLATILE' end,
           'security_definer', p.prosecdef,
           'config_params', (select jsonb_object_agg(split_part(cfg, '=', 1), substr(cfg, strpos(cfg, '=') + 1)) from unnest(p.proconfig) cfg),
           'kind', case p.prokind when 'p' then 'procedure' when 'a' then 'aggregate' when 'w' then 'window' else 'function' end,
           'protected', n.nspname = any (studio.protected_schemas())
         ) order by n.nspname, p.proname, p.oid), '[]')
    from pg_catalog.pg_proc p
    join pg_catalog.pg_namespace n on n.oid = p.pronamespace
    join pg_catalog.pg_language l on l.oid = p.prolang
   where n.nspname not in ('pg_catalog', 'information_schema')
     and not exists (select 1 from pg_catalog.pg_depend d where d.objid = p.oid and d.deptype = 'e')
     and (p_schemas is null or n.nspname = any (p_schemas))
$$;

create or replace function studio.roles() returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', r.oid, 'name', r.rolname, 'is_superuser', r.rolsuper, 'can_create_db', r.rolcreatedb, 'can_create_role', r.rolcreaterole,
           'inherit_role', r.rolinherit, 'can_login', r.rolcanlogin, 'is_replication_role', r.rolreplication, 'can_bypass_rls', r.rolbypassrls,
           'active_connections', (select count(*) from pg_catalog.pg_stat_activity a where a.usename = r.rolname),
           'connection_limit', r.rolconnlimit, 'valid_until', r.rolvaliduntil,
           'config', (select jsonb_object_agg(split_part(cfg, '=', 1), substr(cfg, strpos(cfg, '=') + 1)) from unnest(r.rolconfig) cfg),
           'member_of', coalesce((select jsonb_agg(g.rolname order by g.rolname) from pg_catalog.pg_auth_members m join pg_catalog.pg_roles g on g.oid = m.roleid where m.member = r.oid), '[]')
         ) order by r.rolname), '[]')
    from pg_catalog.pg_roles r
   where r.rolname not like 'pg\_%'
$$;

create or replace function studio.extensions() returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'name', a.name, 'schema', n.nspname, 'default_version', a.default_version, 'installed_version', a.installed_version, 'comment', a.comment
         ) order by a.name), '[]')
    from pg_catalog.pg_available_extensions a
    left join pg_catalog.pg_extension e on e.extname = a.name
    left join pg_catalog.pg_namespace n on n.oid = e.extnamespace
$$;

create or replace function studio.publications() returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', p.oid, 'name', p.pubname, 'owner', pg_catalog.pg_get_userbyid(p.pubowner),
           'publish_insert', p.pubinsert, 'publish_update', p.pubupdate, 'publish_delete', p.pubdelete, 'publish_truncate', p.pubtruncate,
           'tables', case when p.puballtables then null else
             coalesce((select jsonb_agg(jsonb_build_object('id', c.oid, 'name', c.relname, 'schema', n.nspname) order by n.nspname, c.relname)
                         from pg_catalog.pg_publication_rel r join pg_catalog.pg_class c on c.oid = r.prrelid join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                        where r.prpubid = p.oid), '[]') end
         ) order by p.pubname), '[]')
    from pg_catalog.pg_publication p
$$;
