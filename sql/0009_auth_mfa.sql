-- Multi-factor authentication (TOTP): enroll, challenge, verify, unenroll.
-- The code itself is checked by the server (RFC 6238); what a verified code
-- changes is here: the challenge is spent, the factor verified, the session
-- raised to aal2 with a 'totp' amr claim, and a fresh refresh token issued.

create or replace function auth.mfa_enroll(p_user_id uuid, p_friendly_name text, p_secret text)
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
  values (v_id, p_user_id, p_friendly_name, 'totp', 'unverified', now(), now(), p_secret);
  perform auth.audit('factor_in_progress', p_user_id, null, jsonb_build_object('factor_id', v_id));
  return v_id;
end
$$;

create or replace function auth.mfa_challenge(p_user_id uuid, p_factor_id uuid, p_ip text)
returns table (id uuid, expires_at bigint)
language plpgsql
set search_path = ''
as $$
declare
  v_id uuid := gen_random_uuid();
begin
  if not exists (select 1 from auth.mfa_factors f where f.id = p_factor_id and f.user_id = p_user_id) then
    perform auth.raise_error(404, 'mfa_factor_not_found', 'Factor not found');
  end if;
  insert into auth.mfa_challenges (id, factor_id, created_at, ip_address)
  values (v_id, p_factor_id, now(), coalesce(case when p_ip ~ '^[0-9a-fA-F:.]+$' then p_ip::inet end, '0.0.0.0'::inet));
  update auth.mfa_factors set last_challenged_at = now() where mfa_factors.id = p_factor_id;
  return query select v_id, extract(epoch from now() + interval '300 seconds')::bigint;
end
$$;

-- The factor's secret, for the server to check a code against, if the
-- challenge is the factor's, unspent and less than 300 s old.
create or replace function auth.mfa_secret_for_challenge(p_user_id uuid, p_factor_id uuid, p_challenge_id uuid)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_challenge auth.mfa_challenges;
  v_secret text;
begin
  select f.secret into v_secret from auth.mfa_factors f where f.id = p_factor_id and f.user_id = p_user_id;
  if v_secret is null then
    perform auth.raise_error(404, 'mfa_factor_not_found', 'Factor not found');
  end if;
  select * into v_challenge from auth.mfa_challenges c where c.id = p_challenge_id and c.factor_id = p_factor_id;
  if v_challenge.id is null then
    perform auth.raise_error(404, 'mfa_challenge_not_found', 'Challenge not found');
  end if;
  if v_challenge.verified_at is not null then
    perform auth.raise_error(422, 'mfa_challenge_expired', 'Challenge has already been used');
  end if;
  if v_challenge.created_at < now() - interval '300 seconds' then
    perform auth.raise_error(422, 'mfa_challenge_expired', 'MFA challenge ' || p_challenge_id || ' has expired, verify against another challenge or create a new challenge.');
  end if;
  return v_secret;
end
$$;

-- A code was right: spend the challenge (once, under a guard), verify the
-- factor, raise the session to aal2 and issue it a new refresh token.
create or replace function auth.mfa_verified(p_user_id uuid, p_factor_id uuid, p_challenge_id uuid, p_session_id uuid)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb)
language plpgsql
set search_path = ''
as $$
declare
  v_token text := auth.new_token();
  v_user auth.users;
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
  values (p_session_id, now(), now(), 'totp', gen_random_uuid())
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

-- Unenroll: a verified factor can only be removed from an aal2 session.
create or replace function auth.mfa_unenroll(p_user_id uuid, p_factor_id uuid, p_session_id uuid)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_factor auth.mfa_factors;
begin
  select * into v_factor from auth.mfa_factors f where f.id = p_factor_id and f.user_id = p_user_id;
  if v_factor.id is null then
    perform auth.raise_error(404, 'mfa_factor_not_found', 'Factor not found');
  end if;
  if v_factor.status = 'verified' and coalesce((select s.aal from auth.sessions s where s.id = p_session_id), 'aal1') <> 'aal2' then
    perform auth.raise_error(403, 'insufficient_aal', 'AAL2 required to unenroll verified factor');
  end if;
  delete from auth.mfa_factors f where f.id = p_factor_id;
  perform auth.audit('factor_deleted', p_user_id, null, jsonb_build_object('factor_id', p_factor_id));
end
$$;

revoke all on all functions in schema auth from public;
grant execute on function auth.uid(), auth.role(), auth.jwt(), auth.email() to public;
