-- Test-only helpers for pgTAP files (loaded into the pgTAP database by
-- test/run.ts, never by a migration). They set the request context the way
-- db/as-role.ts does, local to the test's transaction.
create schema if not exists tests;
grant usage on schema tests to anon, authenticated, service_role;

create or replace function tests.authenticate_as(user_id uuid, extra_claims jsonb default '{}')
returns void language plpgsql as $$
begin
  perform set_config('request.jwt.claims',
    (jsonb_build_object('sub', user_id, 'role', 'authenticated', 'aud', 'authenticated') || extra_claims)::text, true);
  perform set_config('role', 'authenticated', true);
end
$$;

create or replace function tests.authenticate_as_anon()
returns void language plpgsql as $$
begin
  perform set_config('request.jwt.claims', '{"role":"anon"}', true);
  perform set_config('role', 'anon', true);
end
$$;

create or replace function tests.authenticate_as_service_role()
returns void language plpgsql as $$
begin
  perform set_config('request.jwt.claims', '{"role":"service_role"}', true);
  perform set_config('role', 'service_role', true);
end
$$;

create or replace function tests.clear_authentication()
returns void language plpgsql as $$
begin
  perform set_config('request.jwt.claims', '', true);
  perform set_config('role', 'none', true);
end
$$;

grant execute on all functions in schema tests to anon, authenticated, service_role;
