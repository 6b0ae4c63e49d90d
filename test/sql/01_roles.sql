-- The API roles exist with Supabase's attributes, and the server's login role
-- can become them and nothing more.
begin;
select plan(12);

select has_role('anon', 'role anon exists');
select has_role('authenticated', 'role authenticated exists');
select has_role('service_role', 'role service_role exists');
select has_role('authenticator', 'role authenticator exists');

select is((select rolbypassrls from pg_roles where rolname = 'service_role'), true, 'service_role bypasses row-level security');
select is((select bool_or(rolbypassrls) from pg_roles where rolname in ('anon', 'authenticated')), false, 'anon and authenticated are subject to row-level security');
select is((select bool_or(rolcanlogin) from pg_roles where rolname in ('anon', 'authenticated', 'service_role')), false, 'no API role can log in directly');
select is((select rolinherit from pg_roles where rolname = 'authenticator'), false, 'authenticator does not inherit: it has no privileges until it switches role');
select is((select rolsuper or rolcreaterole or rolcreatedb from pg_roles where rolname = 'authenticator'), false, 'authenticator holds no administrative attribute');

select ok(pg_has_role('authenticator', 'anon', 'member'), 'authenticator can switch to anon');
select ok(pg_has_role('authenticator', 'service_role', 'member'), 'authenticator can switch to service_role');
select ok(not pg_has_role('authenticator', 'postgres', 'member'), 'authenticator cannot switch to the superuser');

select * from finish();
rollback;
