-- Passkeys as a first factor (issue 49, item 3; auth-js's `auth.passkey`):
-- a signed-in user registers discoverable credentials; anyone may then sign
-- in with one, the authenticator naming the credential (no e-mail asked).
-- A challenge is taken once (one guarded DELETE), by the ceremony it was made
-- for and, for a registration, by its user; a sign-in moves the credential's
-- signature counter on under a guard, so a cloned authenticator, or two
-- sign-ins with one assertion, cannot both pass. The ceremony's checks are
-- server/auth/webauthn.ts's (@simplewebauthn/server).

create table auth.webauthn_credentials (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  credential_id text not null unique check (char_length(credential_id) between 1 and 1400),
  public_key text not null,
  sign_count bigint not null default 0 check (sign_count >= 0),
  transports text[] not null default '{}',
  aaguid uuid,
  friendly_name text check (char_length(friendly_name) <= 120),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index webauthn_credentials_user_id_idx on auth.webauthn_credentials (user_id);
comment on column auth.webauthn_credentials.credential_id is 'the authenticator''s credential id, base64url';

create table auth.webauthn_challenges (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete cascade,
  challenge_type text not null check (challenge_type in ('registration', 'authentication')),
  session_data jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index webauthn_challenges_user_id_idx on auth.webauthn_challenges (user_id);
create index webauthn_challenges_expires_at_idx on auth.webauthn_challenges (expires_at);

alter table auth.webauthn_credentials enable row level security;
alter table auth.webauthn_challenges enable row level security;
revoke all on auth.webauthn_credentials, auth.webauthn_challenges from public, anon, authenticated, service_role;

-- A passkey as auth-js lists it.
create or replace function auth.passkey_json(c auth.webauthn_credentials) returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_strip_nulls(jsonb_build_object('id', c.id, 'friendly_name', c.friendly_name, 'created_at', c.created_at, 'last_used_at', c.last_used_at))
$$;

-- Who is registering, and the credentials a new one must not repeat.
create or replace function auth.passkey_registrant(p_user_id uuid)
returns table (user_name text, credentials jsonb)
language plpgsql stable
set search_path = ''
as $$
begin
  return query select coalesce(u.email, u.phone, u.id::text)::text,
    coalesce((select jsonb_agg(jsonb_build_object('id', c.credential_id, 'transports', to_jsonb(c.transports))) from auth.webauthn_credentials c where c.user_id = u.id), '[]')
  from auth.users u where u.id = p_user_id and u.deleted_at is null;
  if not found then
    perform auth.raise_error(404, 'user_not_found', 'User not found');
  end if;
end
$$;

-- A challenge for a ceremony; expired ones are swept as new ones are made.
create or replace function auth.passkey_challenge(p_user_id uuid, p_type text, p_session_data jsonb, p_lifetime interval default interval '5 minutes')
returns table (challenge_id uuid, expires_at bigint)
language plpgsql
set search_path = ''
as $$
declare
  v auth.webauthn_challenges;
begin
  delete from auth.webauthn_challenges c where c.expires_at < now() - interval '1 hour';
  insert into auth.webauthn_challenges (user_id, challenge_type, session_data, expires_at)
  values (p_user_id, p_type, p_session_data, now() + p_lifetime) returning * into v;
  return query select v.id, extract(epoch from v.expires_at)::bigint;
end
$$;

-- The challenge, taken (deleted) once, if it is this ceremony's and in time.
create or replace function auth.passkey_take_challenge(p_challenge_id uuid, p_type text, p_user_id uuid) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v auth.webauthn_challenges;
begin
  delete from auth.webauthn_challenges c
   where c.id = p_challenge_id and c.challenge_type = p_type and c.user_id is not distinct from p_user_id
  returning * into v;
  if v.id is null then
    perform auth.raise_error(404, 'webauthn_challenge_not_found', 'WebAuthn challenge not found');
  end if;
  if v.expires_at < now() then
    perform auth.raise_error(400, 'webauthn_challenge_expired', 'WebAuthn challenge has expired');
  end if;
  return v.session_data;
end
$$;

-- A verified registration: the credential is the user's (one credential, one passkey; at most 25 each).
create or replace function auth.passkey_register(p_user_id uuid, p_credential jsonb, p_aaguid uuid) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v auth.webauthn_credentials;
begin
  if (select count(*) from auth.webauthn_credentials c where c.user_id = p_user_id) >= 25 then
    perform auth.raise_error(422, 'too_many_passkeys', 'Maximum number of passkeys reached, delete one to continue');
  end if;
  insert into auth.webauthn_credentials (user_id, credential_id, public_key, sign_count, transports, aaguid)
  values (p_user_id, p_credential->>'id', p_credential->>'public_key', (p_credential->>'counter')::bigint,
          array(select jsonb_array_elements_text(coalesce(p_credential->'transports', '[]'))), p_aaguid)
  returning * into v;
  perform auth.audit('passkey_registered', p_user_id, null, jsonb_build_object('passkey_id', v.id));
  return auth.passkey_json(v);
exception when unique_violation then
  perform auth.raise_error(422, 'webauthn_credential_exists', 'This passkey is already registered');
end
$$;

-- The credential an assertion names, for the server to check its signature
-- with. A discoverable credential answers with its user handle too (the
-- user id, as registration set it): it must be the credential's own user.
create or replace function auth.passkey_credential(p_credential_id text, p_user_handle text default null) returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  v auth.webauthn_credentials;
begin
  select * into v from auth.webauthn_credentials c where c.credential_id = p_credential_id;
  if v.id is null then
    perform auth.raise_error(400, 'webauthn_verification_failed', 'WebAuthn verification failed: this passkey is not registered');
  end if;
  if nullif(p_user_handle, '') is not null
     and p_user_handle <> rtrim(translate(encode(convert_to(v.user_id::text, 'utf8'), 'base64'), '+/', '-_'), '=') then
    perform auth.raise_error(400, 'webauthn_verification_failed', 'WebAuthn verification failed: the user handle is not the passkey''s user');
  end if;
  return jsonb_build_object('id', v.credential_id, 'public_key', v.public_key, 'counter', v.sign_count, 'transports', to_jsonb(v.transports));
end
$$;

-- A verified assertion signs its user in: the counter moves on under a guard
-- (a counter of 0 is an authenticator that keeps none), then a session.
create or replace function auth.passkey_signed_in(p_credential_id text, p_counter bigint, p_user_agent text default null, p_ip text default null)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb)
language plpgsql
set search_path = ''
as $$
declare
  v auth.webauthn_credentials;
  v_user auth.users;
begin
  update auth.webauthn_credentials c set sign_count = p_counter, last_used_at = now(), updated_at = now()
   where c.credential_id = p_credential_id and (p_counter > c.sign_count or (p_counter = 0 and c.sign_count = 0))
  returning * into v;
  if v.id is null then
    perform auth.raise_error(400, 'webauthn_verification_failed', 'WebAuthn verification failed: the signature counter did not move on (a cloned authenticator, or an assertion used twice)');
  end if;
  select * into v_user from auth.users u where u.id = v.user_id;
  if v_user.deleted_at is not null then
    perform auth.raise_error(400, 'webauthn_verification_failed', 'WebAuthn verification failed: the passkey''s user is gone');
  end if;
  if v_user.banned_until is not null and v_user.banned_until > now() then
    perform auth.raise_error(400, 'user_banned', 'User is banned');
  end if;
  perform auth.audit('login', v_user.id, coalesce(v_user.email, v_user.phone), jsonb_build_object('provider', 'passkey', 'passkey_id', v.id), p_ip);
  return query select * from auth.issue_session(v_user.id, 'passkey', p_user_agent, p_ip);
end
$$;

create or replace function auth.passkey_list(p_user_id uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(auth.passkey_json(c) order by c.created_at), '[]') from auth.webauthn_credentials c where c.user_id = p_user_id
$$;

create or replace function auth.passkey_rename(p_user_id uuid, p_id uuid, p_name text) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v auth.webauthn_credentials;
begin
  update auth.webauthn_credentials c set friendly_name = nullif(trim(p_name), ''), updated_at = now()
   where c.id = p_id and c.user_id = p_user_id returning * into v;
  if v.id is null then
    perform auth.raise_error(404, 'webauthn_credential_not_found', 'Passkey not found');
  end if;
  return auth.passkey_json(v);
end
$$;

create or replace function auth.passkey_delete(p_user_id uuid, p_id uuid) returns void
language plpgsql
set search_path = ''
as $$
begin
  delete from auth.webauthn_credentials c where c.id = p_id and c.user_id = p_user_id;
  if not found then
    perform auth.raise_error(404, 'webauthn_credential_not_found', 'Passkey not found');
  end if;
  perform auth.audit('passkey_deleted', p_user_id, null, jsonb_build_object('passkey_id', p_id));
end
$$;

revoke all on function auth.passkey_json(auth.webauthn_credentials), auth.passkey_registrant(uuid), auth.passkey_challenge(uuid, text, jsonb, interval),
  auth.passkey_take_challenge(uuid, text, uuid), auth.passkey_register(uuid, jsonb, uuid), auth.passkey_credential(text, text),
  auth.passkey_signed_in(text, bigint, text, text), auth.passkey_list(uuid), auth.passkey_rename(uuid, uuid, text), auth.passkey_delete(uuid, uuid)
  from public, anon, authenticated, service_role;
