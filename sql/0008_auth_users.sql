-- Changes to users: by the user (PUT /user) and by an administrator
-- (/admin/users, /invite, /admin/generate_link).

-- E-mail change: the new address gets a confirmation link; the address changes
-- when it is opened (verify type email_change).
create or replace function auth.request_email_change(p_user_id uuid, p_new_email text, p_redirect_to text)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.valid_email(p_new_email);
  v_code text;
begin
  if v_email is null then
    perform auth.raise_error(400, 'validation_failed', 'An email address is required');
  end if;
  if exists (select 1 from auth.users where email = v_email and id <> p_user_id) then
    perform auth.raise_error(422, 'email_exists', 'A user with this email address has already been registered');
  end if;
  update auth.users set email_change = v_email, email_change_confirm_status = 0, updated_at = now() where id = p_user_id;
  v_code := auth.issue_one_time_token(p_user_id, 'email_change_token_new', v_email);
  perform auth.queue_mail('email_change', v_email, v_code, auth.hash_token(v_email || v_code), 'email_change', p_redirect_to);
end
$$;

-- PUT /user: password, metadata (merged at the top level, as GoTrue does), and
-- e-mail or phone changes (confirmed on the new address or number).
create or replace function auth.update_user(p_user_id uuid, p_session_id uuid, p_email text, p_phone text, p_password text, p_data jsonb, p_cost int, p_redirect_to text)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_user auth.users;
begin
  perform auth.session_user(p_user_id, p_session_id); -- raises when the user or session is gone
  if p_password is not null then
    update auth.users set encrypted_password = extensions.crypt(p_password, extensions.gen_salt('bf', p_cost)), updated_at = now() where id = p_user_id;
    perform auth.audit('user_updated_password', p_user_id, null);
  end if;
  if p_data is not null then
    update auth.users set raw_user_meta_data = coalesce(raw_user_meta_data, '{}') || p_data, updated_at = now() where id = p_user_id;
  end if;
  select * into v_user from auth.users where id = p_user_id;
  if p_email is not null and auth.normalize_email(p_email) is distinct from v_user.email then
    perform auth.request_email_change(p_user_id, p_email, p_redirect_to);
    select * into v_user from auth.users where id = p_user_id;
  end if;
  if p_phone is not null and auth.valid_phone(p_phone) is distinct from v_user.phone then
    perform auth.request_phone_change(p_user_id, p_phone);
    select * into v_user from auth.users where id = p_user_id;
  end if;
  perform auth.audit('user_modified', p_user_id, v_user.email);
  return auth.user_json(v_user);
end
$$;

-- POST /admin/users
create or replace function auth.admin_create_user(p_email text, p_phone text, p_password text, p_email_confirm boolean, p_phone_confirm boolean,
                                                  p_user_metadata jsonb, p_app_metadata jsonb, p_ban_seconds bigint, p_role text, p_cost int)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.valid_email(p_email);
  v_user auth.users;
begin
  if v_email is null and nullif(trim(p_phone), '') is null then
    perform auth.raise_error(400, 'validation_failed', 'Unable to validate request: email or phone is required');
  end if;
  if exists (select 1 from auth.users where (v_email is not null and email = v_email) or (v_email is null and phone = p_phone)) then
    perform auth.raise_error(422, 'email_exists', 'A user with this email address has already been registered');
  end if;
  v_user := auth.create_user(v_email, case when v_email is null then p_phone end,
                             case when p_password is not null then extensions.crypt(p_password, extensions.gen_salt('bf', p_cost)) end,
                             case when v_email is not null then coalesce(p_email_confirm, false) else coalesce(p_phone_confirm, false) end,
                             p_user_metadata, p_app_metadata, p_role,
                             case when p_ban_seconds > 0 then now() + make_interval(secs => p_ban_seconds) end, 'admin');
  return auth.user_json(v_user);
end
$$;

-- PUT /admin/users/{id}. ban: null leaves it, 0 lifts it, n bans for n seconds.
create or replace function auth.admin_update_user(p_id uuid, p_email text, p_phone text, p_password text, p_email_confirm boolean,
                                                  p_user_metadata jsonb, p_app_metadata jsonb, p_ban_seconds bigint, p_role text, p_cost int)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_user auth.users;
  v_email text := auth.normalize_email(p_email);
begin
  select * into v_user from auth.users where id = p_id and deleted_at is null for update;
  if v_user.id is null then
    perform auth.raise_error(404, 'user_not_found', 'User not found');
  end if;
  if v_email is not null and v_email is distinct from v_user.email then
    if exists (select 1 from auth.users where email = v_email and id <> p_id) then
      perform auth.raise_error(422, 'email_exists', 'A user with this email address has already been registered');
    end if;
    update auth.users set email = v_email where id = p_id;
    update auth.identities set identity_data = identity_data || jsonb_build_object('email', v_email) where user_id = p_id and provider = 'email';
  end if;
  update auth.users set
    phone = coalesce(nullif(p_phone, ''), phone),
    encrypted_password = case when p_password is not null then extensions.crypt(p_password, extensions.gen_salt('bf', p_cost)) else encrypted_password end,
    email_confirmed_at = case when p_email_confirm then coalesce(email_confirmed_at, now()) when p_email_confirm = false then null else email_confirmed_at end,
    raw_user_meta_data = case when p_user_metadata is not null then coalesce(raw_user_meta_data, '{}') || p_user_metadata else raw_user_meta_data end,
    raw_app_meta_data = case when p_app_metadata is not null then coalesce(raw_app_meta_data, '{}') || p_app_metadata else raw_app_meta_data end,
    banned_until = case when p_ban_seconds is null then banned_until when p_ban_seconds = 0 then null else now() + make_interval(secs => p_ban_seconds) end,
    role = coalesce(nullif(p_role, ''), role),
    updated_at = now()
  where id = p_id
  returning * into v_user;
  if p_ban_seconds > 0 then
    delete from auth.sessions where user_id = p_id; -- a ban ends the user's sessions
  end if;
  perform auth.audit('user_modified', p_id, v_user.email, '{"by":"admin"}');
  return auth.user_json(v_user);
end
$$;

-- POST /invite: creates the user (unconfirmed, invited) and mails the invite.
create or replace function auth.invite_user(p_email text, p_data jsonb, p_redirect_to text)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.normalize_email(p_email);
  v_user auth.users;
  v_code text;
begin
  select * into v_user from auth.users where email = v_email;
  if v_user.id is not null and v_user.email_confirmed_at is not null then
    perform auth.raise_error(422, 'email_exists', 'A user with this email address has already been registered');
  end if;
  if v_user.id is null then
    perform auth.admin_create_user(v_email, null, null, false, false, p_data, null, null, null, 4);
    select * into v_user from auth.users where email = v_email;
  end if;
  update auth.users set invited_at = now() where id = v_user.id returning * into v_user;
  v_code := auth.issue_one_time_token(v_user.id, 'confirmation_token', v_email);
  perform auth.queue_mail('invite', v_email, v_code, auth.hash_token(v_email || v_code), 'invite', p_redirect_to);
  perform auth.audit('user_invited', v_user.id, v_email);
  return auth.user_json(v_user);
end
$$;

-- POST /admin/generate_link: the link and code a mail would carry, without sending it.
create or replace function auth.generate_link(p_type text, p_email text, p_password text, p_data jsonb, p_new_email text, p_cost int)
returns table (user_json jsonb, code text, token_hash text, verification_type text)
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.normalize_email(p_email);
  v_user auth.users;
  v_code text;
  v_relates text := v_email;
  v_verify text := p_type;
begin
  select * into v_user from auth.users where email = v_email and deleted_at is null;
  if p_type = 'signup' then
    if v_user.id is null then
      if p_password is null then
        perform auth.raise_error(422, 'validation_failed', 'Password is required for a signup link');
      end if;
      perform auth.sign_up(v_email, null, p_password, p_data, false, p_cost);
      select * into v_user from auth.users where email = v_email;
    elsif v_user.email_confirmed_at is not null then
      perform auth.raise_error(422, 'email_exists', 'A user with this email address has already been registered');
    end if;
    v_code := auth.issue_one_time_token(v_user.id, 'confirmation_token', v_email);
  elsif p_type = 'invite' then
    if v_user.id is null then
      perform auth.admin_create_user(v_email, null, null, false, false, p_data, null, null, null, p_cost);
      select * into v_user from auth.users where email = v_email;
    elsif v_user.email_confirmed_at is not null then
      perform auth.raise_error(422, 'email_exists', 'A user with this email address has already been registered');
    end if;
    update auth.users set invited_at = now() where id = v_user.id;
    v_code := auth.issue_one_time_token(v_user.id, 'confirmation_token', v_email);
  elsif p_type in ('magiclink', 'recovery') then
    if v_user.id is null then
      if p_type = 'recovery' then
        perform auth.raise_error(404, 'user_not_found', 'User with this email not found');
      end if;
      perform auth.admin_create_user(v_email, null, null, false, false, p_data, null, null, null, p_cost);
      select * into v_user from auth.users where email = v_email;
    end if;
    v_code := auth.issue_one_time_token(v_user.id, case when v_user.email_confirmed_at is null and p_type = 'magiclink' then 'confirmation_token' else 'recovery_token' end::auth.one_time_token_type, v_email);
  elsif p_type in ('email_change_current', 'email_change_new') then
    if v_user.id is null then
      perform auth.raise_error(404, 'user_not_found', 'User with this email not found');
    end if;
    v_relates := auth.normalize_email(p_new_email);
    if v_relates is null then
      perform auth.raise_error(422, 'validation_failed', 'The new email address is required');
    end if;
    update auth.users set email_change = v_relates where id = v_user.id;
    v_code := auth.issue_one_time_token(v_user.id, 'email_change_token_new', v_relates);
    v_verify := 'email_change';
  else
    perform auth.raise_error(422, 'validation_failed', 'Invalid link type');
  end if;
  select * into v_user from auth.users where id = v_user.id;
  return query select auth.user_json(v_user), v_code, auth.hash_token(v_relates || v_code), v_verify;
end
$$;

revoke all on all functions in schema auth from public;
grant execute on function auth.uid(), auth.role(), auth.jwt(), auth.email() to public;
