-- Identity: tell the platform's processes when a user loses access at once,
-- so what they hold open for that user (MCP sessions and their notification
-- streams) ends then, not when a token expires. A user loses access when
-- banned (banned_until moved into the future), soft-deleted (deleted_at
-- set) or deleted. Tokens already issued stay valid until they expire, as in
-- Supabase: this notice is for long-lived connections, not for requests.
--
--   auth.access_revoked(banned before, banned after, deleted before, deleted after)
--                                  whether a change of a user's row takes their access away
--   auth.notify_access_revoked()   trigger on auth.users: NOTIFY auth_access_revoked, '<user id>'

create or replace function auth.access_revoked(p_banned_before timestamptz, p_banned_after timestamptz, p_deleted_before timestamptz, p_deleted_after timestamptz)
returns boolean
language sql stable
set search_path = ''
as $$
  select (p_deleted_after is not null and p_deleted_before is null)
      or coalesce(p_banned_after > now() and p_banned_after is distinct from p_banned_before, false)
$$;

create or replace function auth.notify_access_revoked() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'DELETE' or auth.access_revoked(old.banned_until, new.banned_until, old.deleted_at, new.deleted_at) then
    perform pg_notify('auth_access_revoked', old.id::text);
  end if;
  return null;
end
$$;

revoke execute on function auth.access_revoked(timestamptz, timestamptz, timestamptz, timestamptz), auth.notify_access_revoked() from public;

create trigger access_revoked after update of banned_until, deleted_at or delete on auth.users
  for each row execute function auth.notify_access_revoked();
