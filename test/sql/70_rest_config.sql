-- PostgREST's in-database configuration: the authenticator role's pgrst.*
-- settings, this database's winning over every database's (sql/0106).
begin;
select plan(5);

select is((select count(*)::int from platform.rest_config()), 0, 'nothing set, nothing read');

alter role authenticator set pgrst.db_max_rows = '10';
alter role authenticator set pgrst.db_aggregates_enabled = 'true';
alter role authenticator set statement_timeout = '5s';
select set_eq('select name, value from platform.rest_config()',
              $$ values ('db_max_rows', '10'), ('db_aggregates_enabled', 'true') $$,
              'the pgrst settings, without their prefix; other settings left out');

select set_config('pgtap.db', current_database(), true);
do $$ begin execute format('alter role authenticator in database %I set pgrst.db_max_rows = %L', current_setting('pgtap.db'), '3'); end $$;
select is((select value from platform.rest_config() where name = 'db_max_rows'), '3', 'this database''s setting wins over every database''s');

alter role authenticator set pgrst.db_pre_request = 'public.check=request';
select is((select value from platform.rest_config() where name = 'db_pre_request'), 'public.check=request', 'a value keeps every = after the first');

alter role anon set pgrst.db_plan_enabled = 'true';
select is((select count(*)::int from platform.rest_config() where name = 'db_plan_enabled'), 0, 'another role''s settings are not read');

select * from finish();
rollback;
