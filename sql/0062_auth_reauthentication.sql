-- /reauthenticate and the nonce a secure password change asks for, and manual identity linking, as GoTrue
-- (identity fidelity, item 10).
--
--   1. auth.request_reauthentication  a 6-digit nonce to the user's e-mail
--                                     (else phone), kept hashed as GoTrue keeps it
--   2. auth.require_reauthentication  with AUTH_SECURE_PASSWORD_CHANGE on, a
--                                     password change needs the nonce when the
--                                     session is older than 24 hours (400
--                                     reauthentication_needed); a nonce given is
--                                     always checked (400 reauthentication_not_valid)
--                                     and spent

-- 1 ---------------------------------------------------------------------------
create or replace function auth.request_reauthentication(p_user uuid) returns void
language plpgsql
set search_path = ''
as $$
declare
  v_user auth.users;
begin
  select * into v_user from auth.users where id = p_user and deleted_at is null;
  if v_user.id is null then
    perform auth.raise_error(404, 'user_not_found', 'User not found');
  end if;
  if v_user.email is not null then
    perform auth.queue_mail('reauthentication', v_user.email, auth.issue_one_time_token(v_user.id, 'reauthentication_token', v_user.email), '', 'reauthentication', null);
  elsif v_user.phone is not null then
    perform auth.queue_sms(v_user.phone, auth.issue_one_time_token(v_user.id, 'reauthentication_token', v_user.phone), 'reauthentication');
  else
    perform auth.raise_error(400, 'validation_failed', 'Reauthentication requires the user to have an email or a phone number');
  end if;
end
$$;

-- 2 ---------------------------------------------------------------------------
create or replace function auth.require_reauthentication(p_user uuid, p_session uuid, p_nonce text, p_expiry interval) returns void
language plpgsql
set search_path = ''
as $$
declare
  v_token auth.one_time_tokens;
begin
  if p_nonce is null or p_nonce = '' then
    if exists (select 1 from auth.sessions s where s.id = p_session and s.created_at > now() - interval '24 hours') then
      return;
    end if;
    perform auth.raise_error(400, 'reauthentication_needed', 'Password update requires reauthentication');
  end if;
  select * into v_token from auth.one_time_tokens t
   where t.user_id = p_user and t.token_type = 'reauthentication_token'
     and t.token_hash = auth.hash_token(t.relates_to || p_nonce) and t.created_at > now() - p_expiry;
  if v_token.id is null then
    perform auth.raise_error(400, 'reauthentication_not_valid', 'Requires reauthentication');
  end if;
  delete from auth.one_time_tokens t where t.id = v_token.id;
  update auth.users set reauthentication_token = '', updated_at = now() where id = p_user;
end
$$;

revoke execute on function auth.request_reauthentication(uuid), auth.require_reauthentication(uuid, uuid, text, interval)
  from public, anon, authenticated, service_role;

-- Manual identity linking (GoTrue's GOTRUE_SECURITY_MANUAL_LINKING_ENABLED):
--   auth.link_identity    the provider's identity added to a signed-in user;
--                         one that belongs to another user is 422 identity_already_exists
--   auth.unlink_identity  one of the user's identities removed, never the last
--                         (422 single_identity_not_deletable); another's is 404
-- app_metadata.providers as the user's identities now say.
create or replace function auth.refresh_providers(p_user uuid) returns void
language sql
set search_path = ''
as $$
  update auth.users set raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'), '{providers}',
           (select coalesce(jsonb_agg(distinct i.provider), '[]') from auth.identities i where i.user_id = p_user)), updated_at = now()
   where id = p_user
$$;

create or replace function auth.link_identity(p_user uuid, p_provider text, p_provider_id text, p_identity_data jsonb) returns uuid
language plpgsql
set search_path = ''
as $$
declare
  v_identity auth.identities;
  v_data jsonb := p_identity_data || jsonb_build_object('provider_id', p_provider_id, 'sub', p_provider_id);
begin
  select * into v_identity from auth.identities where provider = p_provider and provider_id = p_provider_id for update;
  if v_identity.id is not null and v_identity.user_id <> p_user then
    perform auth.raise_error(422, 'identity_already_exists', 'Identity is already linked to another user');
  end if;
  if v_identity.id is not null then
    update auth.identities set identity_data = v_data, last_sign_in_at = now(), updated_at = now() where id = v_identity.id;
  else
    insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
    values (p_provider_id, p_user, v_data, p_provider, now(), now(), now());
  end if;
  perform auth.refresh_providers(p_user);
  return p_user;
end
$$;

create or replace function auth.unlink_identity(p_user uuid, p_identity text) returns void
language plpgsql
set search_path = ''
as $$
begin
  if not exists (select 1 from auth.identities i where i.user_id = p_user and i.id::text = p_identity) then
    perform auth.raise_error(404, 'identity_not_found', 'Identity doesn''t exist');
  end if;
  if (select count(*) from auth.identities i where i.user_id = p_user) <= 1 then
    perform auth.raise_error(422, 'single_identity_not_deletable', 'User must have at least 1 identity after unlinking');
  end if;
  delete from auth.identities i where i.user_id = p_user and i.id::text = p_identity;
  perform auth.refresh_providers(p_user);
end
$$;

revoke execute on function auth.refresh_providers(uuid), auth.link_identity(uuid, text, text, jsonb), auth.unlink_identity(uuid, text) from public, anon, authenticated, service_role;
