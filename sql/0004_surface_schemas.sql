-- One schema per surface; each surface's migrations fill its own.
create schema if not exists storage;
create schema if not exists realtime;
create schema if not exists ai;
grant usage on schema storage, realtime to anon, authenticated, service_role;
-- The AI surface is reached through the server only; its rows are owned per
-- user and guarded by policies written with that surface.
grant usage on schema ai to authenticated, service_role;

-- public: reachable through the API roles the way Supabase's is. Row-level
-- security, not grants, is the line a DBA draws: a table created without RLS
-- is readable and writable with the anonymous key, as on Supabase.
grant usage on schema public to anon, authenticated, service_role;
grant all on all tables in schema public to anon, authenticated, service_role;
grant all on all sequences in schema public to anon, authenticated, service_role;
grant all on all routines in schema public to anon, authenticated, service_role;

-- For objects that the migrating user (the DBA's login) creates from now on.
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on routines to anon, authenticated, service_role;
