-- The OAuth 2.1 / OpenID Connect server (issue 49, item 4), as Supabase Auth
-- keeps it: clients (registered by an operator or dynamically, RFC 7591),
-- authorization requests that wait for the user's consent, the consents
-- given, and sessions that remember the client they were issued to (its
-- client_id goes into every access token of the session). Each move of an
-- authorization (pending -> approved | denied | expired, the code taken once)
-- is one guarded statement, so two tabs or a replayed code cannot both win.
-- The server (server/auth/oauth-server.ts) validates URLs and shapes the
-- answers; what may happen, and when, is decided here.

create table auth.oauth_clients (
  id uuid primary key default gen_random_uuid(),
  client_secret_hash text,
  registration_type text not null check (registration_type in ('dynamic', 'manual')),
  client_type text not null check (client_type in ('public', 'confidential')),
  token_endpoint_auth_method text not null check (token_endpoint_auth_method in ('none', 'client_secret_basic', 'client_secret_post')),
  redirect_uris text[] not null check (cardinality(redirect_uris) between 1 and 20),
  grant_types text[] not null default '{authorization_code,refresh_token}'
    check (grant_types <@ '{authorization_code,refresh_token}' and 'authorization_code' = any (grant_types)),
  client_name text check (char_length(client_name) <= 256),
  client_uri text check (char_length(client_uri) <= 2048),
  logo_uri text check (char_length(logo_uri) <= 2048),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- A public client holds no secret and authenticates with none; a confidential one always has one.
  check ((client_type = 'public') = (client_secret_hash is null)),
  check ((client_type = 'public') = (token_endpoint_auth_method = 'none'))
);
comment on column auth.oauth_clients.client_secret_hash is 'sha256 of the client secret, hex: the secret is shown once';

create table auth.oauth_authorizations (
  id uuid primary key default gen_random_uuid(),
  authorization_id text not null unique,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  user_id uuid references auth.users (id) on delete cascade,
  redirect_uri text not null,
  scope text not null,
  state text,
  resource text,
  nonce text,
  code_challenge text not null,
  code_challenge_method text not null check (code_challenge_method = 's256'),
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied', 'expired')),
  authorization_code_hash text unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  approved_at timestamptz
);
create index oauth_authorizations_expires_at_idx on auth.oauth_authorizations (expires_at);
-- Deleting a client or a user reaches these rows by their keys.
create index oauth_authorizations_client_id_idx on auth.oauth_authorizations (client_id);
create index oauth_authorizations_user_id_idx on auth.oauth_authorizations (user_id);
comment on column auth.oauth_authorizations.authorization_code_hash is 'sha256 of the code handed to the client, cleared when it is exchanged';

create table auth.oauth_consents (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  scopes text[] not null,
  granted_at timestamptz not null default now(),
  revoked_at timestamptz,
  unique (user_id, client_id)
);
create index oauth_consents_client_id_idx on auth.oauth_consents (client_id);

alter table auth.sessions add column oauth_client_id uuid references auth.oauth_clients (id) on delete cascade;
alter table auth.sessions add column scopes text;
create index sessions_oauth_client_id_idx on auth.sessions (oauth_client_id) where oauth_client_id is not null;

alter table auth.oauth_clients enable row level security;
alter table auth.oauth_authorizations enable row level security;
alter table auth.oauth_consents enable row level security;
revoke all on auth.oauth_clients, auth.oauth_authorizations, auth.oauth_consents from public, anon, authenticated, service_role;

-- The scopes this server knows; anything else is refused at the authorization endpoint.
create or replace function auth.oauth_scopes() returns text[]
language sql immutable
set search_path = ''
as $$ select '{openid,email,profile,phone}'::text[] $$;

-- A client as GoTrue answers it (the secret only where the caller adds it).
create or replace function auth.oauth_client_json(c auth.oauth_clients) returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_strip_nulls(jsonb_build_object(
    'client_id', c.id, 'client_type', c.client_type, 'token_endpoint_auth_method', c.token_endpoint_auth_method,
    'registration_type', c.registration_type, 'redirect_uris', to_jsonb(c.redirect_uris), 'grant_types', to_jsonb(c.grant_types),
    'response_types', jsonb_build_array('code'), 'client_name', c.client_name, 'client_uri', c.client_uri, 'logo_uri', c.logo_uri,
    'scope', array_to_string(auth.oauth_scopes(), ' '), 'created_at', c.created_at, 'updated_at', c.updated_at))
$$;

-- Every client, newest first (the admin API's list and the Studio's).
create or replace function auth.oauth_client_list() returns jsonb
language sql stable
set search_path = ''
as $$ select coalesce(jsonb_agg(auth.oauth_client_json(c) order by c.created_at desc), '[]') from auth.oauth_clients c $$;

-- One client, or GoTrue's 404.
create or replace function auth.oauth_client_get(p_id uuid) returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  v auth.oauth_clients;
begin
  select * into v from auth.oauth_clients c where c.id = p_id;
  if v.id is null then
    perform auth.raise_error(404, 'oauth_client_not_found', 'OAuth client not found');
  end if;
  return auth.oauth_client_json(v);
end
$$;

-- Registration, by an operator (manual) or by the client itself (dynamic). The
-- method decides the type: 'none' is a public client, the others confidential
-- (RFC 7591's default is client_secret_basic). The secret is answered once.
create or replace function auth.oauth_register_client(p jsonb, p_registration_type text) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_method text := coalesce(p->>'token_endpoint_auth_method', 'client_secret_basic');
  v_secret text := case when v_method = 'none' then null else 'sb_oauth_' || auth.new_token() end;
  v_client auth.oauth_clients;
begin
  if v_method not in ('none', 'client_secret_basic', 'client_secret_post') then
    perform auth.raise_error(400, 'validation_failed', 'token_endpoint_auth_method must be none, client_secret_basic or client_secret_post');
  end if;
  if jsonb_typeof(p->'redirect_uris') is distinct from 'array' or jsonb_array_length(p->'redirect_uris') = 0 then
    perform auth.raise_error(400, 'validation_failed', 'redirect_uris is required');
  end if;
  insert into auth.oauth_clients (client_secret_hash, registration_type, client_type, token_endpoint_auth_method, redirect_uris, grant_types, client_name, client_uri, logo_uri)
  values (auth.hash_token(v_secret), p_registration_type, case when v_method = 'none' then 'public' else 'confidential' end, v_method,
          array(select jsonb_array_elements_text(p->'redirect_uris')),
          case when p ? 'grant_types' then array(select jsonb_array_elements_text(p->'grant_types')) else '{authorization_code,refresh_token}' end,
          p->>'client_name', p->>'client_uri', p->>'logo_uri')
  returning * into v_client;
  return auth.oauth_client_json(v_client) || case when v_secret is null then '{}' else jsonb_build_object('client_secret', v_secret) end;
exception when check_violation then
  perform auth.raise_error(400, 'validation_failed', 'grant_types must include authorization_code and name only authorization_code and refresh_token; at most 20 redirect_uris');
end
$$;

-- PUT /admin/oauth/clients/{id}: the fields given change, the rest stay.
create or replace function auth.oauth_update_client(p_id uuid, p jsonb) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_client auth.oauth_clients;
  v_method text := p->>'token_endpoint_auth_method';
begin
  select * into v_client from auth.oauth_clients c where c.id = p_id for update;
  if v_client.id is null then
    perform auth.raise_error(404, 'oauth_client_not_found', 'OAuth client not found');
  end if;
  if v_method is not null and (v_method = 'none') <> (v_client.client_type = 'public') then
    perform auth.raise_error(400, 'validation_failed', 'token_endpoint_auth_method cannot change a client between public and confidential');
  end if;
  update auth.oauth_clients c set
    client_name = coalesce(p->>'client_name', c.client_name),
    client_uri = coalesce(p->>'client_uri', c.client_uri),
    logo_uri = coalesce(p->>'logo_uri', c.logo_uri),
    redirect_uris = coalesce(case when p ? 'redirect_uris' then array(select jsonb_array_elements_text(p->'redirect_uris')) end, c.redirect_uris),
    grant_types = coalesce(case when p ? 'grant_types' then array(select jsonb_array_elements_text(p->'grant_types')) end, c.grant_types),
    token_endpoint_auth_method = coalesce(v_method, c.token_endpoint_auth_method),
    updated_at = now()
  where c.id = p_id returning * into v_client;
  return auth.oauth_client_json(v_client);
exception when check_violation then
  perform auth.raise_error(400, 'validation_failed', 'grant_types must include authorization_code and name only authorization_code and refresh_token; 1 to 20 redirect_uris');
end
$$;

create or replace function auth.oauth_regenerate_client_secret(p_id uuid) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_secret text := 'sb_oauth_' || auth.new_token();
  v_client auth.oauth_clients;
begin
  update auth.oauth_clients c set client_secret_hash = auth.hash_token(v_secret), updated_at = now()
   where c.id = p_id and c.client_type = 'confidential' returning * into v_client;
  if v_client.id is null then
    if exists (select from auth.oauth_clients c where c.id = p_id) then
      perform auth.raise_error(400, 'validation_failed', 'Cannot regenerate secret for public client');
    end if;
    perform auth.raise_error(404, 'oauth_client_not_found', 'OAuth client not found');
  end if;
  return auth.oauth_client_json(v_client) || jsonb_build_object('client_secret', v_secret);
end
$$;

-- A client removed takes its sessions (so their refresh tokens), consents and pending requests with it.
create or replace function auth.oauth_delete_client(p_id uuid) returns void
language plpgsql
set search_path = ''
as $$
begin
  delete from auth.oauth_clients c where c.id = p_id;
  if not found then
    perform auth.raise_error(404, 'oauth_client_not_found', 'OAuth client not found');
  end if;
end
$$;

-- The token endpoint's client authentication: a public client names itself;
-- a confidential one proves its secret (in the Basic header or the body:
-- either is taken, as clients differ in which they send).
create or replace function auth.oauth_authenticate_client(p_client_id text, p_secret text) returns uuid
language plpgsql stable
set search_path = ''
as $$
declare
  v_client auth.oauth_clients;
begin
  if p_client_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v_client from auth.oauth_clients c where c.id = p_client_id::uuid;
  end if;
  if v_client.id is null
     or (v_client.client_type = 'confidential' and (p_secret is null or v_client.client_secret_hash <> auth.hash_token(p_secret)))
     or (v_client.client_type = 'public' and p_secret is not null) then
    perform auth.raise_error(401, 'invalid_client', 'Client authentication failed');
  end if;
  return v_client.id;
end
$$;

-- GET /oauth/authorize: the request is kept, waiting for a user, for p_lifetime.
create or replace function auth.oauth_begin_authorization(
  p_client_id text, p_redirect_uri text, p_scope text, p_state text, p_code_challenge text, p_code_challenge_method text,
  p_resource text, p_nonce text, p_lifetime interval default interval '10 minutes'
) returns text
language plpgsql
set search_path = ''
as $$
declare
  v_client auth.oauth_clients;
  v_id text := auth.new_token();
  v_scopes text[] := array(select distinct s from unnest(regexp_split_to_array(trim(coalesce(nullif(p_scope, ''), 'email')), '\s+')) s where s <> '' order by 1);
begin
  if p_client_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v_client from auth.oauth_clients c where c.id = p_client_id::uuid;
  end if;
  if v_client.id is null then
    perform auth.raise_error(400, 'oauth_client_not_found', 'invalid client_id');
  end if;
  if not (p_redirect_uri = any (v_client.redirect_uris)) then
    perform auth.raise_error(400, 'validation_failed', 'invalid redirect_uri');
  end if;
  if coalesce(p_code_challenge, '') = '' or coalesce(p_code_challenge_method, '') = '' then
    perform auth.raise_error(400, 'validation_failed', 'PKCE flow requires both code_challenge and code_challenge_method');
  end if;
  if lower(p_code_challenge_method) <> 's256' then
    perform auth.raise_error(400, 'validation_failed', 'code_challenge_method must be S256');
  end if;
  if p_code_challenge !~ '^[A-Za-z0-9._~-]{43,128}$' then
    perform auth.raise_error(400, 'validation_failed', 'code_challenge must be between 43 and 128 characters');
  end if;
  if not (v_scopes <@ auth.oauth_scopes()) then
    perform auth.raise_error(400, 'invalid_scope', 'Unsupported scope: ' || array_to_string(array(select unnest(v_scopes) except select unnest(auth.oauth_scopes())), ' '));
  end if;
  insert into auth.oauth_authorizations (authorization_id, client_id, redirect_uri, scope, state, resource, nonce, code_challenge, code_challenge_method, expires_at)
  values (v_id, v_client.id, p_redirect_uri, array_to_string(v_scopes, ' '), p_state, p_resource, p_nonce, p_code_challenge, 's256', now() + p_lifetime);
  return v_id;
end
$$;

-- A pending request, still in time, or GoTrue's 404 (an expired one is marked so).
create or replace function auth.oauth_pending_authorization(p_authorization_id text) returns auth.oauth_authorizations
language plpgsql
set search_path = ''
as $$
declare
  v auth.oauth_authorizations;
begin
  select * into v from auth.oauth_authorizations a where a.authorization_id = p_authorization_id for update;
  if v.id is null or v.status = 'expired' then
    perform auth.raise_error(404, 'oauth_authorization_not_found', 'authorization not found');
  end if;
  if v.expires_at < now() then
    update auth.oauth_authorizations a set status = 'expired' where a.id = v.id and a.status = 'pending';
    perform auth.raise_error(404, 'oauth_authorization_not_found', 'authorization not found');
  end if;
  if v.status <> 'pending' then
    perform auth.raise_error(400, 'validation_failed', 'authorization request cannot be processed');
  end if;
  return v;
end
$$;

-- Approve (a code for the client, the consent remembered) or deny; answers where the browser goes next.
create or replace function auth.oauth_settle_authorization(p_authorization_id text, p_user_id uuid, p_approve boolean) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v auth.oauth_authorizations := auth.oauth_pending_authorization(p_authorization_id);
  v_code text := auth.new_token();
begin
  if v.user_id is distinct from p_user_id then
    perform auth.raise_error(404, 'oauth_authorization_not_found', 'authorization not found');
  end if;
  if not p_approve then
    update auth.oauth_authorizations a set status = 'denied' where a.id = v.id and a.status = 'pending';
    return jsonb_strip_nulls(jsonb_build_object('redirect_uri', v.redirect_uri, 'error', 'access_denied', 'error_description', 'User denied the request', 'state', v.state));
  end if;
  -- The code must be exchanged within the request's own ten minutes of approval.
  update auth.oauth_authorizations a set status = 'approved', approved_at = now(), authorization_code_hash = auth.hash_token(v_code), expires_at = now() + interval '10 minutes'
   where a.id = v.id and a.status = 'pending';
  insert into auth.oauth_consents (user_id, client_id, scopes)
  values (p_user_id, v.client_id, regexp_split_to_array(v.scope, ' '))
  on conflict (user_id, client_id) do update
    set scopes = case when auth.oauth_consents.revoked_at is null
                      then array(select distinct s from unnest(auth.oauth_consents.scopes || excluded.scopes) s order by 1)
                      else excluded.scopes end,
        granted_at = now(), revoked_at = null;
  return jsonb_strip_nulls(jsonb_build_object('redirect_uri', v.redirect_uri, 'code', v_code, 'state', v.state));
end
$$;

-- GET /oauth/authorizations/{id}: the first signed-in user to open it owns it;
-- a consent already covering its scopes approves it at once (GoTrue's way).
create or replace function auth.oauth_authorization_details(p_authorization_id text, p_user_id uuid) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v auth.oauth_authorizations := auth.oauth_pending_authorization(p_authorization_id);
  v_client auth.oauth_clients;
  v_user auth.users;
begin
  if v.user_id is null then
    update auth.oauth_authorizations a set user_id = p_user_id where a.id = v.id;
    if exists (select from auth.oauth_consents c where c.user_id = p_user_id and c.client_id = v.client_id and c.revoked_at is null
                 and regexp_split_to_array(v.scope, ' ') <@ c.scopes) then
      return jsonb_build_object('redirect', auth.oauth_settle_authorization(p_authorization_id, p_user_id, true));
    end if;
  elsif v.user_id <> p_user_id then
    perform auth.raise_error(404, 'oauth_authorization_not_found', 'authorization not found');
  end if;
  select * into v_client from auth.oauth_clients c where c.id = v.client_id;
  select * into v_user from auth.users u where u.id = p_user_id;
  return jsonb_build_object('details', jsonb_build_object(
    'authorization_id', v.authorization_id, 'redirect_uri', v.redirect_uri, 'scope', v.scope,
    'client', jsonb_build_object('id', v_client.id, 'name', coalesce(v_client.client_name, ''), 'uri', coalesce(v_client.client_uri, ''), 'logo_uri', coalesce(v_client.logo_uri, '')),
    'user', jsonb_build_object('id', v_user.id, 'email', coalesce(v_user.email, ''))));
end
$$;

-- The session an OAuth grant hands out: the client and scopes stay on the session, so refreshes keep them.
create or replace function auth.oauth_session(p_session_id uuid) returns table (client_id uuid, scope text)
language sql stable
set search_path = ''
as $$ select s.oauth_client_id, s.scopes from auth.sessions s where s.id = p_session_id $$;

-- grant_type=authorization_code: the code is taken once (one guarded UPDATE),
-- by the client it was issued to, with the verifier of its challenge.
create or replace function auth.oauth_grant_code(p_client_id uuid, p_code text, p_verifier text, p_redirect_uri text, p_resource text, p_user_agent text default null, p_ip text default null)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb, scope text, nonce text, auth_time bigint)
language plpgsql
set search_path = ''
as $$
declare
  v auth.oauth_authorizations;
  v_user auth.users;
  v_session record;
begin
  update auth.oauth_authorizations a set authorization_code_hash = null
   where a.authorization_code_hash = auth.hash_token(p_code) and a.status = 'approved'
  returning * into v;
  if v.id is null then
    perform auth.raise_error(400, 'invalid_grant', 'Invalid authorization code');
  end if;
  if v.expires_at < now() then
    perform auth.raise_error(400, 'invalid_grant', 'Authorization code has expired');
  end if;
  if v.client_id <> p_client_id then
    perform auth.raise_error(400, 'invalid_grant', 'Authorization code was not issued for this client');
  end if;
  if p_redirect_uri is not null and p_redirect_uri <> v.redirect_uri then
    perform auth.raise_error(400, 'invalid_grant', 'Invalid redirect_uri');
  end if;
  if p_resource is not null and p_resource is distinct from v.resource then
    perform auth.raise_error(400, 'invalid_grant', 'Authorization code resource does not match the resource parameter');
  end if;
  if p_verifier is null or rtrim(translate(encode(extensions.digest(p_verifier, 'sha256'), 'base64'), '+/', '-_'), '=') <> v.code_challenge then
    perform auth.raise_error(400, 'invalid_grant', 'PKCE verification failed: code_verifier does not match code_challenge');
  end if;
  select * into v_user from auth.users u where u.id = v.user_id;
  if v_user.id is null or v_user.deleted_at is not null then
    perform auth.raise_error(400, 'invalid_grant', 'User not found for authorization code');
  end if;
  if v_user.banned_until is not null and v_user.banned_until > now() then
    perform auth.raise_error(400, 'access_denied', 'User is banned');
  end if;
  select * into v_session from auth.issue_session(v.user_id, 'oauth_provider/authorization_code', p_user_agent, p_ip);
  update auth.sessions s set oauth_client_id = v.client_id, scopes = v.scope where s.id = v_session.session_id;
  perform auth.audit('login', v_user.id, coalesce(v_user.email, v_user.phone), jsonb_build_object('provider_type', 'oauth_provider_authorization_code', 'client_id', v.client_id), p_ip);
  return query select v_session.session_id, v_session.refresh_token, v_session.aal, v_session.amr, v_session."user", v.scope, v.nonce, extract(epoch from now())::bigint;
end
$$;

-- grant_type=refresh_token at /oauth/token: only the client the session was issued to may rotate it.
create or replace function auth.oauth_grant_refresh(p_client_id uuid, p_token text, p_grace interval, p_ip text default null)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb, scope text)
language plpgsql
set search_path = ''
as $$
declare
  v_session auth.sessions;
begin
  select s.* into v_session from auth.refresh_tokens t join auth.sessions s on s.id = t.session_id where t.token = auth.hash_token(p_token);
  if v_session.id is null or v_session.oauth_client_id is distinct from p_client_id then
    perform auth.raise_error(400, 'invalid_grant', 'Invalid refresh token');
  end if;
  return query select g.*, v_session.scopes from auth.grant_refresh(p_token, p_grace, p_ip) g;
end
$$;

-- grant_type=refresh_token at /token (0006's grant, unchanged) with the
-- session's OAuth client: a client's tokens keep client_id wherever they
-- are refreshed, so a policy on auth.jwt()->>'client_id' cannot be stepped
-- around by refreshing at /token instead of /oauth/token.
create or replace function auth.grant_refresh_keeping_client(p_token text, p_grace interval, p_ip text default null)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb, client_id uuid)
language sql
set search_path = ''
as $$
  select g.session_id, g.refresh_token, g.aal, g.amr, g."user", s.oauth_client_id
  from auth.grant_refresh(p_token, p_grace, p_ip) g left join auth.sessions s on s.id = g.session_id
$$;

-- GET /user/oauth/grants: the clients a user has let in.
create or replace function auth.oauth_user_grants(p_user_id uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
      'client', jsonb_build_object('id', c.id, 'name', coalesce(c.client_name, ''), 'uri', coalesce(c.client_uri, ''), 'logo_uri', coalesce(c.logo_uri, '')),
      'scopes', to_jsonb(g.scopes), 'granted_at', g.granted_at) order by g.granted_at desc), '[]')
  from auth.oauth_consents g join auth.oauth_clients c on c.id = g.client_id
  where g.user_id = p_user_id and g.revoked_at is null
$$;

-- DELETE /user/oauth/grants?client_id=: the consent is withdrawn and the client's sessions for this user end.
create or replace function auth.oauth_revoke_grant(p_user_id uuid, p_client_id uuid) returns void
language plpgsql
set search_path = ''
as $$
begin
  update auth.oauth_consents g set revoked_at = now() where g.user_id = p_user_id and g.client_id = p_client_id and g.revoked_at is null;
  if not found then
    perform auth.raise_error(404, 'oauth_client_not_found', 'No grant for this client');
  end if;
  delete from auth.sessions s where s.user_id = p_user_id and s.oauth_client_id = p_client_id;
  perform auth.audit('token_revoked', p_user_id, null, jsonb_build_object('reason', 'oauth_grant_revoked', 'client_id', p_client_id));
end
$$;

revoke all on function auth.oauth_scopes(), auth.oauth_client_json(auth.oauth_clients), auth.oauth_client_list(), auth.oauth_client_get(uuid), auth.oauth_register_client(jsonb, text),
  auth.oauth_update_client(uuid, jsonb), auth.oauth_regenerate_client_secret(uuid), auth.oauth_delete_client(uuid),
  auth.oauth_authenticate_client(text, text), auth.oauth_begin_authorization(text, text, text, text, text, text, text, text, interval),
  auth.oauth_pending_authorization(text), auth.oauth_settle_authorization(text, uuid, boolean), auth.oauth_authorization_details(text, uuid),
  auth.oauth_session(uuid), auth.oauth_grant_code(uuid, text, text, text, text, text, text), auth.oauth_grant_refresh(uuid, text, interval, text),
  auth.oauth_user_grants(uuid), auth.oauth_revoke_grant(uuid, uuid), auth.grant_refresh_keeping_client(text, interval, text)
  from public, anon, authenticated, service_role;
