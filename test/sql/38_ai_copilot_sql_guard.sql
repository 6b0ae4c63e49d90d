-- The copilot's SQL allow-list (sql/0055): functions in public and
-- side-effect-free built-ins pass; functions that run SQL of their own, take
-- locks, change settings, sleep or touch files are refused, and so are
-- relations outside public, wherever they hide in the query.
begin;
select plan(7);

create function public.double_it(n int) returns int language sql as $$ select n * 2 $$;
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
create temporary view ok_probe as select public.double_it(2), lower('X'), now(), count(*) over (), gen_random_uuid() from (values (1)) v(a) where 'a' ~ 'a';
select is(ai.copilot_sql_refusals('pg_temp.ok_probe'::regclass), '{}'::text[], 'public functions, operators, aggregates and pure built-ins pass');
create temporary view xml_probe as select query_to_xml('select rolname from pg_roles', true, true, '');
select is(ai.copilot_sql_refusals('pg_temp.xml_probe'::regclass), array['function pg_catalog.query_to_xml'], 'a function that runs SQL of its own is refused');
create temporary view lock_probe as select 1 where exists (select pg_advisory_lock(1)) and 1 = any (select pg_sleep(0)::text::int);
select is(ai.copilot_sql_refusals('pg_temp.lock_probe'::regclass), array['function pg_catalog.pg_advisory_lock', 'function pg_catalog.pg_sleep'], 'locks and sleeps, even in subqueries');
create temporary view setting_probe as select set_config('role', 'service_role', false), current_setting('request.jwt.claims', true);
select is(ai.copilot_sql_refusals('pg_temp.setting_probe'::regclass), array['function pg_catalog.current_setting', 'function pg_catalog.set_config'], 'settings are neither read nor changed');
create temporary view catalog_probe as select (select count(*) from pg_roles) as n;
select is(ai.copilot_sql_refusals('pg_temp.catalog_probe'::regclass), array['relation pg_catalog.pg_roles'], 'relations outside public are refused');
select ok(not ai.copilot_sql_allows('extensions.gen_random_bytes(int)'::regprocedure), 'functions of other schemas are refused');
select ok(ai.copilot_sql_allows('public.double_it(int)'::regprocedure), 'functions in public pass');

select * from finish();
rollback;
