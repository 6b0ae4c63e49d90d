-- The row REST layer keeps a cache of tables, columns and keys. It reloads on
-- NOTIFY pgrst, 'reload schema' (as PostgREST does) and, so that a DBA never
-- has to remember, after every DDL statement through this event trigger.
create or replace function platform.notify_schema_reload() returns event_trigger
language plpgsql
set search_path = ''
as $$
begin
  perform pg_notify('pgrst', 'reload schema');
end
$$;

drop event trigger if exists pgbase_schema_reload_ddl;
create event trigger pgbase_schema_reload_ddl on ddl_command_end execute function platform.notify_schema_reload();
drop event trigger if exists pgbase_schema_reload_drop;
create event trigger pgbase_schema_reload_drop on sql_drop execute function platform.notify_schema_reload();
