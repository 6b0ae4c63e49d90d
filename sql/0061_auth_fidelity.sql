-- Identity as GoTrue answers it (storage, identity and realtime fidelity
-- issue, identity part).
--
--   1. auth.valid_email        restated (0006): GoTrue's format check (the
--                              checkmail pattern it uses): `xx:;x@x.x` is refused
--   2. auth.sign_up_anonymous  POST /signup with neither e-mail nor phone, when
--                              anonymous sign-ins are on: an is_anonymous user
--                              (app_metadata provider "anonymous"), no identity
--   3. auth.leave_anonymity    trigger: an anonymous user whose e-mail or phone
--                              is confirmed (updateUser, linking) is permanent
--   4. auth.admin_factors, auth.admin_delete_factor
--                              GET /admin/users/{id}/factors, DELETE .../{factor_id}

-- 1 ---------------------------------------------------------------------------
create or replace function auth.valid_email(p_email text) returns text
language plpgsql immutable
set search_path = ''
as $$
declare
  v text := auth.normalize_email(p_email);
begin
  if v is not null and v !~ '^[a-z0-9.!#$%&''*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$' then
    perform auth.raise_error(400, 'email_address_invalid', 'Unable to validate email address: invalid format');
  end if;
  return v;
end
$$;

-- 2 ---------------------------------------------------------------------------
create or replace function auth.sign_up_anonymous(p_data jsonb) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_user auth.users;
begin
  insert into auth.users (id, aud, role, raw_app_meta_data, raw_user_meta_data, is_anonymous, created_at, updated_at)
  values (gen_random_uuid(), 'authenticated', 'authenticated', '{"provider": "anonymous", "providers": ["anonymous"]}', coalesce(p_data, '{}'), true, now(), now())
  returning * into v_user;
  return auth.user_json(v_user);
end
$$;

-- 3 ---------------------------------------------------------------------------
create or replace function auth.leave_anonymity() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.is_anonymous and ((new.email is not null and new.email_confirmed_at is not null) or (new.phone is not null and new.phone_confirmed_at is not null)) then
    new.is_anonymous := false;
  end if;
  return new;
end
$$;
create trigger users_leave_anonymity before update on auth.users for each row execute function auth.leave_anonymity();

-- 4 ---------------------------------------------------------------------------
create or replace function auth.admin_factors(p_user uuid) returns jsonb
language plpgsql stable
set search_path = ''
as $$
begin
  if not exists (select 1 from auth.users u where u.id = p_user) then
    perform auth.raise_error(404, 'user_not_found', 'User not found');
  end if;
  return coalesce((select jsonb_agg(jsonb_build_object('id', f.id, 'friendly_name', f.friendly_name, 'factor_type', f.factor_type, 'status', f.status,
                                                       'created_at', f.created_at, 'updated_at', f.updated_at) order by f.created_at)
                     from auth.mfa_factors f where f.user_id = p_user), '[]');
end
$$;

create or replace function auth.admin_delete_factor(p_user uuid, p_factor uuid) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  gone auth.mfa_factors;
begin
  delete from auth.mfa_factors f where f.id = p_factor and f.user_id = p_user returning * into gone;
  if gone.id is null then
    perform auth.raise_error(404, 'mfa_factor_not_found', 'Factor not found');
  end if;
  return jsonb_build_object('id', gone.id, 'friendly_name', gone.friendly_name, 'factor_type', gone.factor_type, 'status', gone.status,
                            'created_at', gone.created_at, 'updated_at', gone.updated_at);
end
$$;

-- The identity service calls these through its own login: no API role may.
revoke execute on function auth.sign_up_anonymous(jsonb), auth.leave_anonymity(), auth.admin_factors(uuid), auth.admin_delete_factor(uuid, uuid)
  from public, anon, authenticated, service_role;
