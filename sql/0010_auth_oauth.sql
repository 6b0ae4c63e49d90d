-- Third-party (OAuth/OIDC) sign-in: which user an external identity belongs to.
--   1. A known identity (provider, provider id) signs its user in.
--   2. Otherwise a *verified* e-mail the provider vouches for links to the user
--      with that address. If that user never confirmed the address, whoever
--      registered it may not own it (account pre-hijacking): its password and
--      unverified identities are dropped before the link, and the address
--      counts as confirmed from now on.
--   3. An unverified e-mail never links: if the address is taken, the sign-in
--      is refused (email_exists), so nobody reaches an account through a
--      provider that did not check the address.
--   4. Otherwise a new user is created, confirmed if the e-mail is verified.

create or replace function auth.oauth_sign_in(p_provider text, p_provider_id text, p_identity_data jsonb, p_email text, p_email_verified boolean)
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  v_email text := auth.normalize_email(p_email);
  v_identity auth.identities;
  v_user auth.users;
  v_data jsonb := p_identity_data || jsonb_build_object('provider_id', p_provider_id, 'sub', p_provider_id,
                                                        'email', v_email, 'email_verified', coalesce(p_email_verified, false));
begin
  select * into v_identity from auth.identities where provider = p_provider and provider_id = p_provider_id for update;
  if v_identity.id is not null then
    update auth.identities set identity_data = v_data, last_sign_in_at = now(), updated_at = now() where id = v_identity.id;
    select * into v_user from auth.users where id = v_identity.user_id;
  elsif v_email is not null then
    select * into v_user from auth.users where email = v_email and deleted_at is null for update;
    if v_user.id is not null and not coalesce(p_email_verified, false) then
      perform auth.raise_error(422, 'email_exists', 'A user with this email address has already been registered; sign in with it to link ' || p_provider);
    end if;
    if v_user.id is not null and v_user.email_confirmed_at is null then
      update auth.users set encrypted_password = '', email_confirmed_at = now(), confirmation_token = '', recovery_token = '', updated_at = now()
       where id = v_user.id;
      delete from auth.identities where user_id = v_user.id and coalesce((identity_data ->> 'email_verified')::boolean, false) = false;
      delete from auth.sessions where user_id = v_user.id;
      perform auth.audit('user_modified', v_user.id, v_email, jsonb_build_object('reason', 'unconfirmed account claimed by verified ' || p_provider || ' identity'));
    end if;
  end if;

  if v_user.id is null then
    insert into auth.users (instance_id, id, aud, role, email, email_confirmed_at, encrypted_password, raw_app_meta_data, raw_user_meta_data,
                            is_super_admin, created_at, updated_at)
    values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', v_email,
            case when p_email_verified then now() end, '',
            jsonb_build_object('provider', p_provider, 'providers', jsonb_build_array(p_provider)), v_data, false, now(), now())
    returning * into v_user;
    perform auth.audit('user_signedup', v_user.id, v_email, jsonb_build_object('provider', p_provider));
  end if;
  if v_identity.id is null then
    insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
    values (p_provider_id, v_user.id, v_data, p_provider, now(), now(), now());
    update auth.users set raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'), '{providers}',
             (select coalesce(jsonb_agg(distinct p), '[]') from (
                select jsonb_array_elements_text(coalesce(raw_app_meta_data -> 'providers', '[]')) as p union select p_provider) ps)),
           updated_at = now()
     where id = v_user.id;
  end if;
  if v_user.banned_until is not null and v_user.banned_until > now() then
    perform auth.raise_error(400, 'user_banned', 'User is banned');
  end if;
  perform auth.audit('login', v_user.id, v_email, jsonb_build_object('provider', p_provider));
  return v_user.id;
end
$$;

-- PKCE for OAuth: the flow starts before the user is known.
create or replace function auth.start_oauth_flow(p_provider text, p_challenge text, p_challenge_method text)
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  v_id uuid := gen_random_uuid();
begin
  if lower(coalesce(p_challenge_method, '')) not in ('s256', 'plain') then
    perform auth.raise_error(400, 'validation_failed', 'code_challenge_method must be s256 or plain');
  end if;
  insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, authentication_method, created_at, updated_at)
  values (v_id, null, gen_random_uuid()::text, lower(p_challenge_method)::auth.code_challenge_method, p_challenge, p_provider, 'oauth', now(), now());
  return v_id;
end
$$;

create or replace function auth.finish_oauth_flow(p_flow_id uuid, p_user_id uuid, p_provider_token text)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_code text := gen_random_uuid()::text;
begin
  update auth.flow_state set user_id = p_user_id, auth_code = v_code, auth_code_issued_at = now(), provider_access_token = p_provider_token, updated_at = now()
   where id = p_flow_id and auth_code_issued_at is null and created_at > now() - interval '10 minutes';
  if not found then
    perform auth.raise_error(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found');
  end if;
  return v_code;
end
$$;

revoke all on all functions in schema auth from public;
grant execute on function auth.uid(), auth.role(), auth.jwt(), auth.email() to public;
