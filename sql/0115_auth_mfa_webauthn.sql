-- Passkeys as an MFA factor (issue 49, item 3), in Supabase Auth's columns:
-- a WebAuthn factor keeps its credential (id, public key, signature
-- counter, transports) in web_authn_credential once its registration is
-- verified; a challenge keeps what the ceremony expects (its random
-- challenge, create or request) in web_authn_session_data. The ceremony's
-- checks (the client data, the origin, the relying party, the signature)
-- are the server's, with @simplewebauthn/server (server/auth/webauthn.ts);
-- what a passed ceremony changes is here, as for TOTP (sql/0009): the
-- challenge spent once, the factor verified, the session raised to aal2.

alter table auth.mfa_factors add column web_authn_credential jsonb;
alter table auth.mfa_factors add column web_authn_aaguid uuid;
alter table auth.mfa_factors add column last_webauthn_challenge_data jsonb;
alter table auth.mfa_challenges add column web_authn_session_data jsonb;
-- One credential is one factor: the same authenticator cannot be enrolled twice.
create unique index mfa_factors_web_authn_credential_id on auth.mfa_factors ((web_authn_credential->>'id')) where web_authn_credential is not null;

-- Enrollment of either kind: restated from 0009 with the factor's type (a
-- WebAuthn factor has no secret; its credential comes with verification).
drop function auth.mfa_enroll(uuid, text, text);
create or replace function auth.mfa_enroll(p_user_id uuid, p_friendly_name text, p_secret text, p_factor_type auth.factor_type default 'totp')
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  v_id uuid := gen_random_uuid();
begin
  -- Unverified factors left behind by abandoned enrollments are replaced.
  delete from auth.mfa_factors where user_id = p_user_id and status = 'unverified' and created_at < now() - interval '1 minute';
  if (select count(*) from auth.mfa_factors where user_id = p_user_id) >= 10 then
    perform auth.raise_error(422, 'too_many_enrolled_mfa_factors', 'Maximum number of enrolled factors reached');
  end if;
  if exists (select 1 from auth.mfa_factors where user_id = p_user_id and friendly_name = p_friendly_name and trim(p_friendly_name) <> '') then
    perform auth.raise_error(422, 'mfa_factor_name_conflict', 'A factor with the friendly name "' || p_friendly_name || '" for this user already exists');
  end if;
  insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
  values (v_id, p_user_id, p_friendly_name, p_factor_type, 'unverified', now(), now(), case when p_factor_type = 'totp' then p_secret end);
  perform auth.audit('factor_in_progress', p_user_id, null, jsonb_build_object('factor_id', v_id, 'factor_type', p_factor_type));
  return v_id;
end
$$;

-- What a challenge of this factor needs: its kind; for a passkey, whether
-- it registers (unverified) or authenticates (verified), its credential, and
-- the user's other passkeys (a registration excludes them, so one
-- authenticator is one factor).
create or replace function auth.mfa_factor_for_challenge(p_user_id uuid, p_factor_id uuid)
returns table (factor_type auth.factor_type, status auth.factor_status, credential jsonb, other_credentials jsonb, user_name text)
language plpgsql stable
set search_path = ''
as $$
begin
  return query
    select f.factor_type, f.status, f.web_authn_credential,
      coalesce((select jsonb_agg(o.web_authn_credential) from auth.mfa_factors o
                 where o.user_id = p_user_id and o.id <> f.id and o.web_authn_credential is not null), '[]'),
      coalesce(u.email, u.phone, u.id::text)::text
    from auth.mfa_factors f join auth.users u on u.id = f.user_id
    where f.id = p_factor_id and f.user_id = p_user_id;
  if not found then
    perform auth.raise_error(404, 'mfa_factor_not_found', 'Factor not found');
  end if;
end
$$;

-- A challenge with what its ceremony expects.
create or replace function auth.mfa_webauthn_challenge(p_user_id uuid, p_factor_id uuid, p_ip text, p_session_data jsonb)
returns table (id uuid, expires_at bigint)
language plpgsql
set search_path = ''
as $$
declare
  v record;
begin
  select * into v from auth.mfa_challenge(p_user_id, p_factor_id, p_ip);
  update auth.mfa_challenges c set web_authn_session_data = p_session_data where c.id = v.id;
  return query select v.id, v.expires_at;
end
$$;

-- A challenge of this factor that may still be answered: there, unspent,
-- under 300 s old. The one place these rules live, for codes and passkeys.
create or replace function auth.mfa_open_challenge(p_factor_id uuid, p_challenge_id uuid) returns auth.mfa_challenges
language plpgsql stable
set search_path = ''
as $$
declare
  v auth.mfa_challenges;
begin
  select * into v from auth.mfa_challenges c where c.id = p_challenge_id and c.factor_id = p_factor_id;
  if v.id is null then
    perform auth.raise_error(404, 'mfa_challenge_not_found', 'Challenge not found');
  end if;
  if v.verified_at is not null then
    perform auth.raise_error(422, 'mfa_challenge_expired', 'Challenge has already been used');
  end if;
  if v.created_at < now() - interval '300 seconds' then
    perform auth.raise_error(422, 'mfa_challenge_expired', 'MFA challenge ' || p_challenge_id || ' has expired, verify against another challenge or create a new challenge.');
  end if;
  return v;
end
$$;

-- Restated from 0009: the factor's secret, for the server to check a code
-- against, if the challenge is open (the rules are mfa_open_challenge's).
create or replace function auth.mfa_secret_for_challenge(p_user_id uuid, p_factor_id uuid, p_challenge_id uuid)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_secret text;
begin
  select f.secret into v_secret from auth.mfa_factors f where f.id = p_factor_id and f.user_id = p_user_id;
  if v_secret is null then
    perform auth.raise_error(404, 'mfa_factor_not_found', 'Factor not found');
  end if;
  perform auth.mfa_open_challenge(p_factor_id, p_challenge_id);
  return v_secret;
end
$$;

-- The expected ceremony of an open challenge and the factor's credential,
-- for the server to check a passkey's response against.
create or replace function auth.mfa_webauthn_for_challenge(p_user_id uuid, p_factor_id uuid, p_challenge_id uuid)
returns table (session_data jsonb, credential jsonb)
language plpgsql
set search_path = ''
as $$
declare
  v_challenge auth.mfa_challenges;
  v_factor auth.mfa_factors;
begin
  select * into v_factor from auth.mfa_factors f where f.id = p_factor_id and f.user_id = p_user_id and f.factor_type = 'webauthn';
  if v_factor.id is null then
    perform auth.raise_error(404, 'mfa_factor_not_found', 'Factor not found');
  end if;
  v_challenge := auth.mfa_open_challenge(p_factor_id, p_challenge_id);
  if v_challenge.web_authn_session_data is null then
    perform auth.raise_error(404, 'mfa_challenge_not_found', 'Challenge not found');
  end if;
  return query select v_challenge.web_authn_session_data, v_factor.web_authn_credential;
end
$$;

-- A ceremony passed: the credential (new, or its counter moved on) is kept
-- with the challenge spent in the same transaction, then as TOTP (0009).
create or replace function auth.mfa_webauthn_verified(p_user_id uuid, p_factor_id uuid, p_challenge_id uuid, p_session_id uuid, p_credential jsonb, p_aaguid uuid)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb)
language plpgsql
set search_path = ''
as $$
begin
  update auth.mfa_factors f
     set web_authn_credential = p_credential, web_authn_aaguid = coalesce(p_aaguid, f.web_authn_aaguid),
         last_webauthn_challenge_data = jsonb_build_object('challenge_id', p_challenge_id, 'at', now()), updated_at = now()
   where f.id = p_factor_id and f.user_id = p_user_id
     -- An authentication may only move the counter of the credential registered, never swap it.
     and (f.web_authn_credential is null or f.web_authn_credential->>'id' = p_credential->>'id');
  if not found then
    perform auth.raise_error(422, 'mfa_verification_failed', 'WebAuthn credential does not belong to this factor');
  end if;
  return query select * from auth.mfa_verified(p_user_id, p_factor_id, p_challenge_id, p_session_id);
exception when unique_violation then
  perform auth.raise_error(422, 'mfa_verified_factor_exists', 'This passkey is already enrolled');
end
$$;

-- Restated from 0009: the amr claim names the factor's kind (GoTrue's
-- 'totp' and 'mfa/webauthn'), everything else as it was.
create or replace function auth.mfa_verified(p_user_id uuid, p_factor_id uuid, p_challenge_id uuid, p_session_id uuid)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb)
language plpgsql
set search_path = ''
as $$
declare
  v_token text := auth.new_token();
  v_user auth.users;
  v_method text := (select case f.factor_type when 'webauthn' then 'mfa/webauthn' else f.factor_type::text end from auth.mfa_factors f where f.id = p_factor_id);
begin
  update auth.mfa_challenges c set verified_at = now() where c.id = p_challenge_id and c.factor_id = p_factor_id and c.verified_at is null;
  if not found then
    perform auth.raise_error(422, 'mfa_challenge_expired', 'Challenge has already been used');
  end if;
  if not exists (select 1 from auth.sessions s where s.id = p_session_id and s.user_id = p_user_id) then
    perform auth.raise_error(403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
  end if;
  update auth.mfa_factors f set status = 'verified', updated_at = now() where f.id = p_factor_id;
  update auth.sessions s set aal = 'aal2', factor_id = p_factor_id, updated_at = now() where s.id = p_session_id;
  insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id)
  values (p_session_id, now(), now(), v_method, gen_random_uuid())
  on conflict on constraint mfa_amr_claims_session_id_authentication_method_pkey do update set updated_at = now();
  -- The session's earlier refresh tokens carried aal1: retire them.
  update auth.refresh_tokens t set revoked = true, updated_at = now() where t.session_id = p_session_id and not t.revoked;
  insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
  values ('00000000-0000-0000-0000-000000000000', auth.hash_token(v_token), p_user_id::text, false, now(), now(), null, p_session_id);
  select * into v_user from auth.users u where u.id = p_user_id;
  perform auth.audit('verification_attempted', p_user_id, v_user.email, jsonb_build_object('factor_id', p_factor_id, 'status', 'verified'));
  return query select p_session_id, v_token, 'aal2'::auth.aal_level,
    (select jsonb_agg(jsonb_build_object('method', c.authentication_method, 'timestamp', extract(epoch from c.updated_at)::bigint) order by c.updated_at desc)
       from auth.mfa_amr_claims c where c.session_id = p_session_id),
    auth.user_json(v_user);
end
$$;

revoke all on function auth.mfa_enroll(uuid, text, text, auth.factor_type), auth.mfa_factor_for_challenge(uuid, uuid), auth.mfa_webauthn_challenge(uuid, uuid, text, jsonb),
  auth.mfa_open_challenge(uuid, uuid), auth.mfa_secret_for_challenge(uuid, uuid, uuid), auth.mfa_webauthn_for_challenge(uuid, uuid, uuid), auth.mfa_webauthn_verified(uuid, uuid, uuid, uuid, jsonb, uuid), auth.mfa_verified(uuid, uuid, uuid, uuid)
  from public, anon, authenticated, service_role;
