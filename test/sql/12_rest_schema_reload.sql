-- DDL tells the row REST layer to reload its schema cache (NOTIFY pgrst).
begin;
select plan(4);

select has_function('platform', 'notify_schema_reload', 'the notifying function exists');
select is((select evtevent from pg_event_trigger where evtname = 'pgbase_schema_reload_ddl'), 'ddl_command_end', 'it runs after every DDL command');
select is((select evtevent from pg_event_trigger where evtname = 'pgbase_schema_reload_drop'), 'sql_drop', 'and after drops');
select is((select evtenabled from pg_event_trigger where evtname = 'pgbase_schema_reload_ddl'), 'O', 'the trigger is enabled');

select * from finish();
rollback;
