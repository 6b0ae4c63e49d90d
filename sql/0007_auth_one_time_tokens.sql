-- One-time tokens (e-mailed codes and links), their verification, PKCE flow
-- state, and the confirmation mail queue.
--
-- A one-time token is a 6-digit code. The link form of it is token_hash =
-- sha256(address || code), which is also what is stored (in one_time_tokens
-- and in the matching users.*_token column, as GoTrue keeps them): the code
-- itself is never stored, only sent.

create table platform.mail_outbox (
  id bigint generated always as identity primary key,
  template text not null,
  recipient text not null,
  subject text not null,
  body_text text not null,
  transport text not null check (transport in ('smtp', 'log')),
  created_at timestamptz not null default now()
);
comment on table platform.mail_outbox is 'Mail the identity service sent (transport smtp) or kept because no SMTP_URL is configured (transport log).';

create or replace function auth.token_column(p_type auth.one_time_token_type) returns text
language sql immutable
set search_path = ''
as $$
  select case p_type
    when 'confirmation_token' then 'confirmation_token'
    when 'recovery_token' then 'recovery_token'
    when 'email_change_token_new' then 'email_change_token_new'
    when 'email_change_token_current' then 'email_change_token_current'
    when 'reauthentication_token' then 'reauthentication_token'
    when 'phone_change_token' then 'phone_change_token'
  end
$$;

-- Issues a fresh code of a kind for a user (replacing the previous one of that kind).
create or replace function auth.issue_one_time_token(p_user_id uuid, p_type auth.one_time_token_type, p_relates_to text)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_code text := lpad(((('x' || encode(extensions.gen_random_bytes(4), 'hex'))::bit(32)::bigint) % 1000000)::text, 6, '0');
  v_hash text := auth.hash_token(lower(p_relates_to) || v_code);
  v_sent_column text := case p_type
    when 'confirmation_token' then 'confirmation_sent_at'
    when 'recovery_token' then 'recovery_sent_at'
    when 'email_change_token_new' then 'email_change_sent_at'
    when 'email_change_token_current' then 'email_change_sent_at'
    when 'reauthentication_token' then 'reauthentication_sent_at'
    when 'phone_change_token' then 'phone_change_sent_at'
  end;
begin
  insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to)
  values (gen_random_uuid(), p_user_id, p_type, v_hash, lower(p_relates_to))
  on conflict (user_id, token_type) do update
    set token_hash = excluded.token_hash, relates_to = excluded.relates_to, created_at = now(), updated_at = now();
  execute format('update auth.users set %I = $1, %I = now(), updated_at = now() where id = $2', auth.token_column(p_type), v_sent_column)
    using v_hash, p_user_id;
  return v_code;
end
$$;

-- Queues a mail for the worker (job auth_send_mail), in the caller's transaction:
-- no mail for a change that rolls back.
create or replace function auth.queue_mail(p_template text, p_to text, p_code text, p_token_hash text, p_verify_type text, p_redirect_to text, p_extra jsonb default '{}')
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform graphile_worker.add_job('auth_send_mail',
    (jsonb_build_object('template', p_template, 'to', p_to, 'code', p_code, 'token_hash', p_token_hash,
                       'type', p_verify_type, 'redirect_to', p_redirect_to) || coalesce(p_extra, '{}'))::json,
    max_attempts := 5);
end
$$;

-- PKCE: the browser's code_challenge, kept until the e-mailed link is opened.
create or replace function auth.start_flow(p_user_id uuid, p_method text, p_challenge text, p_challenge_method text)
returns void
language plpgsql
set search_path = ''
as $$
begin
  if p_challenge is null then
    return;
  end if;
  if lower(coalesce(p_challenge_method, '')) not in ('s256', 'plain') then
    perform auth.raise_error(400, 'validation_failed', 'code_challenge_method must be s256 or plain');
  end if;
  insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, authentication_method, created_at, updated_at)
  values (gen_random_uuid(), p_user_id, gen_random_uuid()::text, lower(p_challenge_method)::auth.code_challenge_method, p_challenge, 'email', p_method, now(), now());
end
$$;

-- Sends the sign-up confirmation for an unconfirmed user.
create or replace function auth.send_confirmation(p_user_id uuid, p_redirect_to text, p_challenge text default null, p_challenge_method text default null)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_user auth.users;
  v_code text;
begin
  select * into v_user from auth.users where id = p_user_id;
  if v_user.email_confirmed_at is not null then
    return;
  end if;
  v_code := auth.issue_one_time_token(v_user.id, 'confirmation_token', v_user.email);
  perform auth.start_flow(v_user.id, 'email/signup', p_challenge, p_challenge_method);
  perform auth.queue_mail('confirmation', v_user.email, v_code, case when p_challenge is not null then 'pkce_' else '' end || auth.hash_token(v_user.email || v_code), 'signup', p_redirect_to);
end
$$;

-- /otp and /magiclink by e-mail. Unknown addresses with create_user false get
-- nothing, and the caller answers 200 all the same: no user enumeration.
create or replace function auth.request_email_otp(p_email text, p_create_user boolean, p_data jsonb, p_redirect_to text,
                                                  p_challenge text default null, p_challenge_method text default null)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.valid_email(p_email);
  v_user auth.users;
  v_code text;
  v_pkce text := case when p_challenge is not null then 'pkce_' else '' end;
begin
  if v_email is null then
    perform auth.raise_error(400, 'validation_failed', 'An email address is required');
  end if;
  select * into v_user from auth.users where email = v_email and deleted_at is null;
  if v_user.id is null then
    if not p_create_user then
      return;
    end if;
    v_user := auth.create_user(v_email, null, null, false, p_data, p_via => 'otp');
  end if;
  if v_user.email_confirmed_at is null then
    v_code := auth.issue_one_time_token(v_user.id, 'confirmation_token', v_email);
    perform auth.start_flow(v_user.id, 'email/signup', p_challenge, p_challenge_method);
    perform auth.queue_mail('confirmation', v_email, v_code, v_pkce || auth.hash_token(v_email || v_code), 'signup', p_redirect_to);
  else
    v_code := auth.issue_one_time_token(v_user.id, 'recovery_token', v_email);
    perform auth.start_flow(v_user.id, 'magiclink', p_challenge, p_challenge_method);
    perform auth.queue_mail('magic_link', v_email, v_code, v_pkce || auth.hash_token(v_email || v_code), 'magiclink', p_redirect_to);
  end if;
end
$$;

-- /recover: a recovery link for a known address; nothing for an unknown one.
create or replace function auth.request_recovery(p_email text, p_redirect_to text, p_challenge text default null, p_challenge_method text default null)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.normalize_email(p_email);
  v_user auth.users;
  v_code text;
begin
  select * into v_user from auth.users where email = v_email and deleted_at is null;
  if v_user.id is null then
    return;
  end if;
  v_code := auth.issue_one_time_token(v_user.id, 'recovery_token', v_email);
  perform auth.start_flow(v_user.id, 'recovery', p_challenge, p_challenge_method);
  perform auth.queue_mail('recovery', v_email, v_code, case when p_challenge is not null then 'pkce_' else '' end || auth.hash_token(v_email || v_code), 'recovery', p_redirect_to);
  perform auth.audit('user_recovery_requested', v_user.id, v_email);
end
$$;

-- Verifies a code sent by e-mail or SMS (with its address or number) or a link
-- hash, applies what it confirms, and consumes it. Returns the user and the
-- sign-in method for the amr claim.
create or replace function auth.verify_one_time_token(p_type text, p_email text, p_phone text, p_code text, p_token_hash text, p_expiry interval)
returns table (user_id uuid, method text, pkce boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.normalize_email(p_email);
  v_hash text;
  v_pkce boolean := coalesce(p_token_hash like 'pkce\_%', false);
  v_types auth.one_time_token_type[];
  v_token auth.one_time_tokens;
  v_user auth.users;
  v_phone_flow boolean := p_type in ('sms', 'phone_change');
begin
  v_types := case p_type
    when 'signup' then array['confirmation_token']::auth.one_time_token_type[]
    when 'invite' then array['confirmation_token']::auth.one_time_token_type[]
    when 'magiclink' then array['recovery_token', 'confirmation_token']::auth.one_time_token_type[]
    when 'recovery' then array['recovery_token']::auth.one_time_token_type[]
    when 'email' then array['confirmation_token', 'recovery_token']::auth.one_time_token_type[]
    when 'email_change' then array['email_change_token_new', 'email_change_token_current']::auth.one_time_token_type[]
    when 'sms' then array['confirmation_token', 'recovery_token']::auth.one_time_token_type[]
    when 'phone_change' then array['phone_change_token']::auth.one_time_token_type[]
  end;
  if v_types is null then
    perform auth.raise_error(400, 'validation_failed', 'Verify requires a verification type');
  end if;
  v_hash := case when p_token_hash is not null then regexp_replace(p_token_hash, '^pkce_', '')
                 else auth.hash_token(coalesce(case when v_phone_flow then p_phone else v_email end, '') || coalesce(p_code, '')) end;

  select t.* into v_token from auth.one_time_tokens t
   where t.token_hash = v_hash and t.token_type = any (v_types)
   for update;
  if v_token.id is null or v_token.created_at < (now() - p_expiry)::timestamp then
    perform auth.raise_error(403, 'otp_expired', 'Token has expired or is invalid');
  end if;
  delete from auth.one_time_tokens where id = v_token.id;
  select * into v_user from auth.users u where u.id = v_token.user_id for update;
  if v_user.banned_until is not null and v_user.banned_until > now() then
    perform auth.raise_error(400, 'user_banned', 'User is banned');
  end if;

  if v_token.token_type in ('email_change_token_new', 'email_change_token_current') then
    update auth.users set email = email_change, email_change = '', email_change_token_new = '', email_change_token_current = '',
                          email_change_confirm_status = 0, email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now()
     where id = v_user.id;
    update auth.identities set identity_data = identity_data || jsonb_build_object('email', v_user.email_change, 'email_verified', true), updated_at = now()
     where identities.user_id = v_user.id and provider = 'email';
    perform auth.audit('user_modified', v_user.id, v_user.email_change, '{"change":"email"}');
    return query select v_user.id, 'email_change'::text, v_pkce;
    return;
  end if;
  if v_token.token_type = 'phone_change_token' then
    update auth.users set phone = phone_change, phone_change = '', phone_change_token = '', phone_confirmed_at = now(), updated_at = now()
     where id = v_user.id;
    update auth.identities set identity_data = identity_data || jsonb_build_object('phone', v_user.phone_change, 'phone_verified', true), updated_at = now()
     where identities.user_id = v_user.id and provider = 'phone';
    perform auth.audit('user_modified', v_user.id, v_user.phone_change, '{"change":"phone"}');
    return query select v_user.id, 'phone_change'::text, false;
    return;
  end if;

  if v_phone_flow then
    execute format('update auth.users set %I = '''', phone_confirmed_at = coalesce(phone_confirmed_at, now()), updated_at = now() where id = $1',
                   auth.token_column(v_token.token_type)) using v_user.id;
    update auth.identities set identity_data = identity_data || '{"phone_verified": true}', updated_at = now()
     where identities.user_id = v_user.id and provider = 'phone';
    return query select v_user.id, 'sms'::text, false;
    return;
  end if;

  execute format('update auth.users set %I = '''', email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now() where id = $1',
                 auth.token_column(v_token.token_type)) using v_user.id;
  update auth.identities set identity_data = identity_data || '{"email_verified": true}', updated_at = now()
   where identities.user_id = v_user.id and provider = 'email';
  if v_user.email_confirmed_at is null then
    perform auth.audit('user_confirmation_requested', v_user.id, v_user.email, jsonb_build_object('confirmed_by', p_type));
  end if;
  return query select v_user.id,
    case when p_type = 'invite' then 'invite' when v_token.token_type = 'recovery_token' and p_type = 'recovery' then 'recovery'
         when v_token.token_type = 'recovery_token' then 'magiclink' when p_type = 'email' then 'otp' else 'email/signup' end,
    v_pkce;
end
$$;

-- After a PKCE link is opened: hands out the auth code the browser exchanges.
create or replace function auth.issue_auth_code(p_user_id uuid, p_method text) returns text
language plpgsql
set search_path = ''
as $$
declare
  v_code text := gen_random_uuid()::text;
  v_id uuid;
begin
  select id into v_id from auth.flow_state
   where user_id = p_user_id and authentication_method = p_method and auth_code_issued_at is null
   order by created_at desc limit 1 for update;
  if v_id is null then
    perform auth.raise_error(404, 'flow_state_not_found', 'Code verifier could not be found for this flow');
  end if;
  update auth.flow_state set auth_code = v_code, auth_code_issued_at = now(), updated_at = now() where id = v_id;
  return v_code;
end
$$;

-- grant_type=pkce: the auth code and the verifier whose challenge was sent at the start.
create or replace function auth.grant_pkce(p_auth_code text, p_verifier text, p_lifetime interval, p_user_agent text default null, p_ip text default null)
returns table (session_id uuid, refresh_token text, aal auth.aal_level, amr jsonb, "user" jsonb)
language plpgsql
set search_path = ''
as $$
declare
  v_flow auth.flow_state;
  v_challenge text;
begin
  delete from auth.flow_state f where f.auth_code = p_auth_code and f.auth_code_issued_at is not null returning * into v_flow;
  if v_flow.id is null then
    perform auth.raise_error(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found');
  end if;
  if v_flow.auth_code_issued_at < now() - p_lifetime then
    perform auth.raise_error(400, 'flow_state_expired', 'invalid flow state, flow state has expired');
  end if;
  v_challenge := case v_flow.code_challenge_method
    when 's256' then rtrim(translate(encode(extensions.digest(p_verifier, 'sha256'), 'base64'), '+/', '-_'), '=')
    else p_verifier end;
  if v_challenge <> v_flow.code_challenge then
    perform auth.raise_error(403, 'bad_code_verifier', 'code challenge does not match previously saved code verifier');
  end if;
  return query select * from auth.issue_session(v_flow.user_id, v_flow.authentication_method, p_user_agent, p_ip);
end
$$;

revoke all on all functions in schema auth from public;
grant execute on function auth.uid(), auth.role(), auth.jwt(), auth.email() to public;
