-- AI surface: anonymous users (supabase-js signInAnonymously; their tokens
-- carry `is_anonymous: true`). The server refuses them at the one /api
-- access check unless AI_ANONYMOUS_USERS lets them in (server/ai/auth.ts),
-- and a webhook whose workflow an anonymous user owns does not run then.
-- This helper gives policies the same claim to decide with, inlined as
-- ai.owns is (0089), so a DBA can narrow what anonymous users do where they
-- are let in, as Supabase's guidance has it:
--
--   create policy no_anonymous_workflows on ai.workflows as restrictive
--     for insert to authenticated with check (not ai.caller_is_anonymous());
--
--   ai.caller_is_anonymous()   the request's claims say is_anonymous (false without claims)

create or replace function ai.caller_is_anonymous() returns boolean
language sql stable
begin atomic
  select coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false);
end;

revoke execute on function ai.caller_is_anonymous() from public;
grant execute on function ai.caller_is_anonymous() to authenticated, service_role;
