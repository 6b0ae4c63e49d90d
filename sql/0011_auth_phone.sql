-- Phone accounts: sign-up confirmation, one-time codes and number changes by
-- SMS. Codes are stored as sha256(number || code), like the e-mailed ones, and
-- sent by the worker (job auth_send_sms) after the transaction commits.

create table platform.sms_outbox (
  id bigint generated always as identity primary key,
  recipient text not null,
  body_text text not null,
  transport text not null check (transport in ('twilio', 'log')),
  provider_message_id text,
  created_at timestamptz not null default now()
);
comment on table platform.sms_outbox is 'SMS the identity service sent (twilio) or kept for local development (log).';

create or replace function auth.queue_sms(p_to text, p_code text, p_kind text) returns void
language plpgsql
set search_path = ''
as $$
begin
  perform graphile_worker.add_job('auth_send_sms', json_build_object('to', p_to, 'code', p_code, 'kind', p_kind), max_attempts := 5);
end
$$;

create or replace function auth.valid_phone(p_phone text) returns text
language plpgsql immutable
set search_path = ''
as $$
declare
  v text := regexp_replace(coalesce(p_phone, ''), '[\s().-]', '', 'g');
begin
  -- E.164: a country code and subscriber number, 8 to 15 digits, stored without '+' as GoTrue does.
  v := regexp_replace(v, '^\+', '');
  if v !~ '^[1-9][0-9]{7,14}$' then
    perform auth.raise_error(400, 'validation_failed', 'Invalid phone number format (E.164 required)');
  end if;
  return v;
end
$$;

-- Confirmation code for a phone user who signed up unconfirmed.
create or replace function auth.send_sms_confirmation(p_user_id uuid) returns void
language plpgsql
set search_path = ''
as $$
declare
  v_user auth.users;
begin
  select * into v_user from auth.users where id = p_user_id;
  if v_user.phone is null or v_user.phone_confirmed_at is not null then
    return;
  end if;
  perform auth.queue_sms(v_user.phone, auth.issue_one_time_token(v_user.id, 'confirmation_token', v_user.phone), 'confirmation');
end
$$;

-- /otp by phone: a code for a known number (and a new user when create_user).
create or replace function auth.request_phone_otp(p_phone text, p_create_user boolean, p_data jsonb) returns void
language plpgsql
set search_path = ''
as $$
declare
  v_phone text := auth.valid_phone(p_phone);
  v_user auth.users;
begin
  select * into v_user from auth.users where phone = v_phone and deleted_at is null;
  if v_user.id is null then
    if not p_create_user then
      return;
    end if;
    v_user := auth.create_user(null, v_phone, null, false, p_data, p_via => 'otp');
  end if;
  perform auth.queue_sms(v_phone,
    auth.issue_one_time_token(v_user.id, case when v_user.phone_confirmed_at is null then 'confirmation_token' else 'recovery_token' end::auth.one_time_token_type, v_phone),
    'otp');
end
$$;

-- PUT /user {phone}: the new number gets a code; the number changes when it is verified (type phone_change).
create or replace function auth.request_phone_change(p_user_id uuid, p_phone text) returns void
language plpgsql
set search_path = ''
as $$
declare
  v_phone text := auth.valid_phone(p_phone);
begin
  if exists (select 1 from auth.users where phone = v_phone and id <> p_user_id) then
    perform auth.raise_error(422, 'phone_exists', 'A user with this phone number has already been registered');
  end if;
  update auth.users set phone_change = v_phone, updated_at = now() where id = p_user_id;
  perform auth.queue_sms(v_phone, auth.issue_one_time_token(p_user_id, 'phone_change_token', v_phone), 'phone_change');
end
$$;

revoke all on all functions in schema auth from public;
grant execute on function auth.uid(), auth.role(), auth.jwt(), auth.email() to public;

-- POST /signup by either channel: the user, and (when not confirmed at once)
-- its confirmation by mail or SMS, in one transaction.
create or replace function auth.register(p_email text, p_phone text, p_password text, p_data jsonb, p_autoconfirm boolean, p_cost int,
                                         p_redirect_to text, p_challenge text default null, p_challenge_method text default null)
returns table ("user" jsonb, confirmed boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_user auth.users;
begin
  v_user := auth.sign_up(p_email, case when p_email is null and p_phone is not null then auth.valid_phone(p_phone) end, p_password, p_data, p_autoconfirm, p_cost);
  if v_user.confirmed_at is null then
    if v_user.email is not null then
      perform auth.send_confirmation(v_user.id, p_redirect_to, p_challenge, p_challenge_method);
    else
      perform auth.send_sms_confirmation(v_user.id);
    end if;
    select * into v_user from auth.users where id = v_user.id;
  end if;
  return query select auth.user_json(v_user), v_user.confirmed_at is not null;
end
$$;

-- POST /resend: the confirmation (signup, sms) or the pending change
-- (email_change, phone_change) again. Nothing for an unknown address: no user
-- enumeration.
create or replace function auth.resend(p_type text, p_email text, p_phone text, p_redirect_to text)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_user auth.users;
begin
  if p_type in ('signup', 'email_change') then
    select * into v_user from auth.users where email = auth.normalize_email(p_email) and deleted_at is null;
  elsif p_type in ('sms', 'phone_change') then
    select * into v_user from auth.users where phone = auth.valid_phone(p_phone) and deleted_at is null;
  else
    perform auth.raise_error(400, 'validation_failed', 'Unsupported resend type "' || coalesce(p_type, '') || '"');
  end if;
  if v_user.id is null then
    return;
  end if;
  if p_type = 'signup' then
    perform auth.send_confirmation(v_user.id, p_redirect_to);
  elsif p_type = 'sms' then
    perform auth.send_sms_confirmation(v_user.id);
  elsif p_type = 'email_change' and coalesce(v_user.email_change, '') <> '' then
    perform auth.request_email_change(v_user.id, v_user.email_change, p_redirect_to);
  elsif p_type = 'phone_change' and coalesce(v_user.phone_change, '') <> '' then
    perform auth.request_phone_change(v_user.id, v_user.phone_change);
  end if;
end
$$;

-- DELETE /admin/users/{id}: removed, or (soft) anonymised in place with its
-- sessions and identities gone, as GoTrue's should_soft_delete does.
create or replace function auth.admin_delete_user(p_id uuid, p_soft boolean)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_found boolean;
begin
  if p_soft then
    update auth.users set deleted_at = now(), email = null, phone = null, encrypted_password = '', raw_user_meta_data = '{}', updated_at = now()
     where id = p_id and deleted_at is null;
    v_found := found;
    if v_found then
      delete from auth.sessions where user_id = p_id;
      delete from auth.identities where user_id = p_id;
    end if;
  else
    delete from auth.users where id = p_id;
    v_found := found;
  end if;
  if not v_found then
    perform auth.raise_error(404, 'user_not_found', 'User not found');
  end if;
  perform auth.audit('user_deleted', p_id, null, jsonb_build_object('soft', p_soft));
end
$$;

revoke all on all functions in schema auth from public;
grant execute on function auth.uid(), auth.role(), auth.jwt(), auth.email() to public;
