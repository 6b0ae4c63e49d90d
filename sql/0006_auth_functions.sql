-- Identity state changes, each one SQL function run by the auth server:
-- sign-up, password sign-in, session issue, refresh-token rotation, sign-out,
-- user updates, audit. Errors are raised with SQLSTATE 'PT' || http status and
-- the GoTrue error code in HINT (PostgREST's convention), so the server maps
-- them without knowing each case.
--
-- Passwords are hashed and checked with pgcrypto's bcrypt, in the database
-- backend: native speed, never on the server's event loop.

create or replace function auth.hash_token(token text) returns text
language sql immutable strict
set search_path = ''
as $$ select encode(extensions.digest(token, 'sha256'), 'hex') $$;

create or replace function auth.new_token() returns text
language sql volatile
set search_path = ''
as $$ select translate(encode(extensions.gen_random_bytes(24), 'base64'), '+/', '-_') $$;

create or replace function auth.raise_error(status int, code text, message text) returns void
language plpgsql
set search_path = ''
as $$
begin
  raise exception using errcode = 'PT' || status::text, message = message, hint = code;
end
$$;

create or replace function auth.audit(action text, actor uuid, actor_username text, traits jsonb default '{}', ip text default '') returns void
language sql
set search_path = ''
as $$
  insert into auth.audit_log_entries (id, payload, created_at, ip_address)
  values (gen_random_uuid(),
          json_build_object('action', action, 'actor_id', actor, 'actor_username', coalesce(actor_username, ''),
                            'log_type', case when action in ('login', 'logout', 'token_refreshed', 'token_revoked') then 'token'
                                             when action like 'user_%' then 'user' else 'account' end,
                            'traits', traits),
          now(), coalesce(ip, ''));
$$;

-- The user as GoTrue returns it.
create or replace function auth.user_json(u auth.users) returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_strip_nulls(jsonb_build_object(
    'id', u.id,
    'aud', coalesce(u.aud, 'authenticated'),
    'role', coalesce(u.role, 'authenticated'),
    'email', coalesce(u.email, ''),
    'email_confirmed_at', u.email_confirmed_at,
    'phone', coalesce(u.phone, ''),
    'phone_confirmed_at', u.phone_confirmed_at,
    'confirmation_sent_at', u.confirmation_sent_at,
    'confirmed_at', u.confirmed_at,
    'recovery_sent_at', u.recovery_sent_at,
    'new_email', nullif(u.email_change, ''),
    'email_change_sent_at', u.email_change_sent_at,
    'invited_at', u.invited_at,
    'last_sign_in_at', u.last_sign_in_at,
    'banned_until', u.banned_until,
    'created_at', u.created_at,
    'updated_at', u.updated_at,
    'is_anonymous', u.is_anonymous
  )) || jsonb_build_object(
    'app_metadata', coalesce(u.raw_app_meta_data, '{}'),
    'user_metadata', coalesce(u.raw_user_meta_data, '{}'),
    'identities', coalesce((
      select jsonb_agg(jsonb_build_object(
        'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id, 'identity_data', i.identity_data,
        'provider', i.provider, 'last_sign_in_at', i.last_sign_in_at, 'created_at', i.created_at,
        'updated_at', i.updated_at, 'email', i.email) order by i.created_at)
      from auth.identities i where i.user_id = u.id), '[]')
  ) || coalesce((
    select jsonb_build_object('factors', jsonb_agg(jsonb_build_object(
      'id', f.id, 'friendly_name', coalesce(f.friendly_name, ''), 'factor_type', f.factor_type,
      'status', f.status, 'created_at', f.created_at, 'updated_at', f.updated_at) order by f.created_at))
    from auth.mfa_factors f where f.user_id = u.id having count(*) > 0), '{}')
$$;

create or replace function auth.normalize_email(email text) returns text
language sql immutable
set search_path = ''
as $$ select nullif(lower(trim(email)), '') $$;

-- A normalised e-mail address, or 400 email_address_invalid. Null stays null.
create or replace function auth.valid_email(p_email text) returns text
language plpgsql immutable
set search_path = ''
as $$
declare
  v text := auth.normalize_email(p_email);
begin
  if v is not null and v !~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' then
    perform auth.raise_error(400, 'email_address_invalid', 'Unable to validate email address: invalid format');
  end if;
  return v;
end
$$;

-- A password check that takes the same time whether or not the user exists.
-- pgcrypto knows bcrypt as $2a$ only; $2b$ (OpenBSD, Node's bcrypt) and $2y$
-- (PHP) hashes compute the same for passwords under 72 bytes, so they are
-- checked under the $2a$ prefix: hashes imported from other systems verify.
create or replace function auth.password_matches(stored text, password text) returns boolean
language plpgsql volatile
set search_path = ''
as $$
declare
  v_hash text := case when stored ~ '^\$2[by]\$' then '$2a$' || substr(stored, 5) else stored end;
begin
  if v_hash is null or v_hash !~ '^\$2[ax]\$\d\d\$' then
    -- no usable hash: burn a bcrypt round anyway (cost 10, like the default hashes)
    perform extensions.crypt(password, '$2a$10$0123456789012345678901uJ8b/DJzo0q8W7wWvoXKpPm9fTtSMrW');
    return false;
  end if;
  return extensions.crypt(password, v_hash) = v_hash;
end
$$;

-- A new user with its first-party identity (e-mail or phone), as GoTrue creates
-- them. Every path that creates a user this way goes through here: sign-up,
-- one-time codes, the admin API and invites.
create or replace function auth.create_user(p_email text, p_phone text, p_encrypted_password text, p_confirmed boolean,
                                            p_user_metadata jsonb, p_app_metadata jsonb default '{}', p_role text default null,
                                            p_banned_until timestamptz default null, p_via text default null)
returns auth.users
language plpgsql
set search_path = ''
as $$
declare
  v_provider text := case when p_email is not null then 'email' else 'phone' end;
  v_user auth.users;
begin
  insert into auth.users (instance_id, id, aud, role, email, phone, encrypted_password, email_confirmed_at, phone_confirmed_at,
                          raw_app_meta_data, raw_user_meta_data, banned_until, is_super_admin, created_at, updated_at)
  values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', coalesce(nullif(p_role, ''), 'authenticated'),
          p_email, case when p_email is null then p_phone end, coalesce(p_encrypted_password, ''),
          case when p_confirmed and p_email is not null then now() end,
          case when p_confirmed and p_email is null then now() end,
          jsonb_build_object('provider', v_provider, 'providers', jsonb_build_array(v_provider)) || coalesce(p_app_metadata, '{}'),
          coalesce(p_user_metadata, '{}'), p_banned_until, false, now(), now())
  returning * into v_user;
  insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
  values (v_user.id::text, v_user.id,
          jsonb_strip_nulls(jsonb_build_object('sub', v_user.id::text, 'email', p_email, 'phone', v_user.phone,
                                               'email_verified', coalesce(p_confirmed, false) and p_email is not null,
                                               'phone_verified', coalesce(p_confirmed, false) and p_email is null)),
          v_provider, now(), now());
  perform auth.audit('user_signedup', v_user.id, coalesce(p_email, p_phone), jsonb_strip_nulls(jsonb_build_object('provider', v_provider, 'via', p_via)));
  return v_user;
end
$$;

-- Sign-up by email or phone. Returns the user; with autoconfirm off the user is
-- left unconfirmed and the caller sends the confirmation.
create or replace function auth.sign_up(
  p_email text, p_phone text, p_password text, p_data jsonb, p_autoconfirm boolean, p_cost int default 10
) returns auth.users
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.valid_email(p_email);
  v_user auth.users;
begin
  if v_email is null and nullif(trim(p_phone), '') is null then
    perform auth.raise_error(400, 'validation_failed', 'To signup, please provide your email');
  end if;

  select * into v_user from auth.users
   where (v_email is not null and email = v_email) or (v_email is null and phone = p_phone)
   for update;
  if found then
    if v_user.confirmed_at is not null or p_autoconfirm then
      perform auth.raise_error(422, 'user_already_exists', 'User already registered');
    end if;
    -- Unconfirmed: sign-up again refreshes password and data and re-sends the confirmation.
    update auth.users set encrypted_password = extensions.crypt(p_password, extensions.gen_salt('bf', p_cost)),
                          raw_user_meta_data = coalesce(p_data, raw_user_meta_data), updated_at = now()
     where id = v_user.id returning * into v_user;
    return v_user;
  end if;

  return auth.create_user(v_email, case when v_email is null then p_phone end,
                          extensions.crypt(p_password, extensions.gen_salt('bf', p_cost)), p_autoconfirm, p_data);
end
$$;

-- A new session for a user, with its first refresh token. Returns the token in
-- clear once; only its hash is kept.
create or replace function auth.issue_session(p_user_id uuid, p_method text, p_user_agent text default null, p_ip text default null)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb)
language plpgsql
set search_path = ''
as $$
declare
  v_session uuid := gen_random_uuid();
  v_token text := auth.new_token();
  v_user auth.users;
begin
  update auth.users set last_sign_in_at = now(), updated_at = now() where id = p_user_id returning * into v_user;
  insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, ip, refreshed_at)
  values (v_session, p_user_id, now(), now(), 'aal1', p_user_agent, case when p_ip ~ '^[0-9a-fA-F:.]+$' then p_ip::inet end, null);
  insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id)
  values (v_session, now(), now(), p_method, gen_random_uuid());
  insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
  values (v_user.instance_id, auth.hash_token(v_token), p_user_id::text, false, now(), now(), null, v_session);
  return query select v_session, v_token, 'aal1'::auth.aal_level,
    jsonb_build_array(jsonb_build_object('method', p_method, 'timestamp', extract(epoch from now())::bigint)),
    auth.user_json(v_user);
end
$$;

-- grant_type=password
create or replace function auth.grant_password(p_email text, p_phone text, p_password text, p_user_agent text default null, p_ip text default null)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb)
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.normalize_email(p_email);
  v_user auth.users;
begin
  select * into v_user from auth.users u
   where u.deleted_at is null and ((v_email is not null and u.email = v_email) or (v_email is null and u.phone = p_phone));
  if not auth.password_matches(v_user.encrypted_password, p_password) or v_user.id is null then
    perform auth.raise_error(400, 'invalid_credentials', 'Invalid login credentials');
  end if;
  if v_email is not null and v_user.email_confirmed_at is null then
    perform auth.raise_error(400, 'email_not_confirmed', 'Email not confirmed');
  end if;
  if v_email is null and v_user.phone_confirmed_at is null then
    perform auth.raise_error(400, 'phone_not_confirmed', 'Phone not confirmed');
  end if;
  if v_user.banned_until is not null and v_user.banned_until > now() then
    perform auth.raise_error(400, 'user_banned', 'User is banned');
  end if;
  perform auth.audit('login', v_user.id, coalesce(v_user.email, v_user.phone), jsonb_build_object('provider', case when v_email is null then 'phone' else 'email' end), p_ip);
  return query select * from auth.issue_session(v_user.id, 'password', p_user_agent, p_ip);
end
$$;

-- grant_type=refresh_token, with rotation:
--   * each refresh token is single use: using it revokes it and issues a child;
--   * a revoked token used again within p_grace of its revocation (concurrent
--     refreshes from several tabs) gets a fresh child too;
--   * used again after that, it is treated as stolen: every token of the
--     session is revoked and the session ends. The function then returns no
--     row (the revocation must commit, so it cannot raise), which the server
--     answers with refresh_token_already_used.
-- The revocation is one guarded UPDATE, so two concurrent refreshes cannot both
-- take the 'first use' branch.
create or replace function auth.grant_refresh(p_token text, p_grace interval default interval '10 seconds', p_ip text default null)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb)
language plpgsql
set search_path = ''
as $$
declare
  v_hash text := auth.hash_token(p_token);
  v_row auth.refresh_tokens;
  v_session auth.sessions;
  v_user auth.users;
  v_new text := auth.new_token();
begin
  update auth.refresh_tokens t set revoked = true, updated_at = now()
   where t.token = v_hash and not t.revoked
  returning * into v_row;

  if v_row.id is null then
    select * into v_row from auth.refresh_tokens t where t.token = v_hash;
    if v_row.id is null then
      perform auth.raise_error(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    end if;
    if v_row.updated_at < now() - p_grace then
      -- Reuse after the grace window: revoke the whole family.
      update auth.refresh_tokens t set revoked = true, updated_at = now() where t.session_id = v_row.session_id and not t.revoked;
      delete from auth.sessions s where s.id = v_row.session_id;
      perform auth.audit('token_revoked', v_row.user_id::uuid, null, jsonb_build_object('reason', 'refresh_token_reuse', 'session_id', v_row.session_id), p_ip);
      -- No row back means 'already used'. Raising would roll the revocation back.
      return;
    end if;
  end if;

  select * into v_session from auth.sessions s where s.id = v_row.session_id;
  if v_session.id is null or (v_session.not_after is not null and v_session.not_after < now()) then
    perform auth.raise_error(400, 'session_expired', 'Invalid Refresh Token: Session Expired');
  end if;
  select * into v_user from auth.users u where u.id = v_session.user_id;
  if v_user.id is null or v_user.deleted_at is not null then
    perform auth.raise_error(400, 'user_not_found', 'User from sub claim in JWT does not exist');
  end if;
  if v_user.banned_until is not null and v_user.banned_until > now() then
    perform auth.raise_error(400, 'user_banned', 'User is banned');
  end if;

  insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
  values (v_row.instance_id, auth.hash_token(v_new), v_row.user_id, false, now(), now(), v_row.token, v_session.id);
  update auth.sessions s set refreshed_at = now()::timestamp, updated_at = now() where s.id = v_session.id;
  perform auth.audit('token_refreshed', v_user.id, coalesce(v_user.email, v_user.phone), '{}', p_ip);

  return query select v_session.id, v_new, coalesce(v_session.aal, 'aal1'::auth.aal_level),
    coalesce((select jsonb_agg(jsonb_build_object('method', c.authentication_method, 'timestamp', extract(epoch from c.updated_at)::bigint) order by c.updated_at desc)
              from auth.mfa_amr_claims c where c.session_id = v_session.id), '[]'),
    auth.user_json(v_user);
end
$$;

-- /logout: scope local (this session), global (all of the user's), others (all but this).
create or replace function auth.sign_out(p_session_id uuid, p_scope text default 'global') returns void
language plpgsql
set search_path = ''
as $$
declare
  v_user uuid;
begin
  select s.user_id into v_user from auth.sessions s where s.id = p_session_id;
  if v_user is null then
    return; -- already signed out: logout is idempotent
  end if;
  if p_scope = 'local' then
    delete from auth.sessions s where s.id = p_session_id;
  elsif p_scope = 'others' then
    delete from auth.sessions s where s.user_id = v_user and s.id <> p_session_id;
  elsif p_scope = 'global' then
    delete from auth.sessions s where s.user_id = v_user;
  else
    perform auth.raise_error(400, 'validation_failed', 'Unsupported logout scope "' || p_scope || '"');
  end if;
  perform auth.audit('logout', v_user, null, jsonb_build_object('scope', p_scope));
end
$$;

-- The user behind an access token, if its session still exists.
create or replace function auth.session_user(p_user_id uuid, p_session_id uuid) returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  v_user auth.users;
begin
  select * into v_user from auth.users u where u.id = p_user_id and u.deleted_at is null;
  if v_user.id is null then
    perform auth.raise_error(403, 'user_not_found', 'User from sub claim in JWT does not exist');
  end if;
  if p_session_id is not null and not exists (select 1 from auth.sessions s where s.id = p_session_id and s.user_id = p_user_id) then
    perform auth.raise_error(403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
  end if;
  return auth.user_json(v_user);
end
$$;

revoke all on all functions in schema auth from public;
grant execute on function auth.uid(), auth.role(), auth.jwt(), auth.email() to public;
