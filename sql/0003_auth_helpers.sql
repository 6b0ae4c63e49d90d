-- The request context, as PostgREST sets it per transaction:
--   request.jwt.claims  the verified token's claims as JSON
-- These helpers read it with Supabase's names and semantics, so policies such as
--   using (auth.uid() = user_id)
-- work unchanged. The legacy single-claim settings (request.jwt.claim.sub, ...)
-- are honoured first, as Supabase's helpers do, for SQL written against them.
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create or replace function auth.jwt() returns jsonb
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), ''),
    '{}'
  )::jsonb
$$;

create or replace function auth.uid() returns uuid
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    nullif(auth.jwt() ->> 'sub', '')
  )::uuid
$$;

create or replace function auth.role() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    nullif(auth.jwt() ->> 'role', '')
  )::text
$$;

create or replace function auth.email() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    nullif(auth.jwt() ->> 'email', '')
  )::text
$$;

comment on function auth.jwt() is 'Claims of the verified request token (request.jwt.claims), {} outside a request.';
comment on function auth.uid() is 'The user id (sub claim) of the request, or null.';
comment on function auth.role() is 'The role claim of the request: anon, authenticated or service_role.';
comment on function auth.email() is 'The email claim of the request, or null.';

grant execute on function auth.jwt(), auth.uid(), auth.role(), auth.email() to anon, authenticated, service_role;
