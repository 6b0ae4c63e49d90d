-- Extensions live in schema "extensions", as on Supabase, and that schema is on
-- the database search_path so uuid_generate_v4(), gen_random_uuid(), crypt()
-- and friends resolve unqualified in existing Supabase SQL.
create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;

create extension if not exists "uuid-ossp" with schema extensions;
create extension if not exists pgcrypto with schema extensions;

do $$
begin
  execute format('alter database %I set search_path = "$user", public, extensions', current_database());
end
$$;
