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
