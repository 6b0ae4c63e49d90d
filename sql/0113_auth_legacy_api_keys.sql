-- The legacy JWT anon and service_role keys turned off (issue 49), as
-- Supabase lets a project do once its publishable and secret keys are in
-- use: a legacy key (a JWT with the legacy issuer, a role of anon or
-- service_role and no expiry) is then refused on every surface at once
-- (every server hears pgbase_api_keys). Turning them off needs a
-- publishable and a secret key to take their place, and while they are off
-- the last key of either kind cannot be deleted. With them off, the legacy
-- JWT secret may at last be revoked as a signing key.

create table if not exists auth.api_key_settings (
  singleton boolean primary key default true check (singleton),
  legacy_api_keys boolean not null default true,
  updated_at timestamptz not null default now()
);
insert into auth.api_key_settings default values on conflict do nothing;
revoke all on auth.api_key_settings from public, anon, authenticated, service_role;
alter table auth.api_key_settings enable row level security;
drop trigger if exists api_key_settings_changed on auth.api_key_settings;
create trigger api_key_settings_changed after insert or update or delete on auth.api_key_settings
  for each statement execute function auth.notify_changed('pgbase_api_keys');

create or replace function auth.set_legacy_api_keys(p_enabled boolean)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  if not p_enabled and (not exists (select 1 from auth.api_keys where type = 'publishable') or not exists (select 1 from auth.api_keys where type = 'secret')) then
    perform auth.raise_error(409, 'conflict', 'Make a publishable and a secret API key before turning the legacy keys off');
  end if;
  update auth.api_key_settings set legacy_api_keys = p_enabled, updated_at = now();
  return p_enabled;
end
$$;

-- A key leaves the set (revoked at once); not the last of its kind while the legacy keys are off.
create or replace function auth.delete_api_key(p_id uuid)
returns text
language plpgsql
set search_path = ''
as $$
declare
  k auth.api_keys;
begin
  select * into k from auth.api_keys where id = p_id for update;
  if not found then perform auth.raise_error(404, 'not_found', 'API key not found'); end if;
  if not (select s.legacy_api_keys from auth.api_key_settings s)
     and not exists (select 1 from auth.api_keys o where o.type = k.type and o.id <> k.id) then
    perform auth.raise_error(409, 'conflict', format('The last %s key cannot be deleted while the legacy API keys are off', k.type));
  end if;
  delete from auth.api_keys where id = p_id;
  return k.name;
end
$$;

-- As in 0111, and the legacy secret may be revoked once the legacy API keys are off.
create or replace function auth.set_signing_key_status(p_id uuid, p_status text)
returns table (id uuid, algorithm text, status text, public_jwk jsonb, created_at timestamptz, updated_at timestamptz)
language plpgsql
set search_path = ''
as $$
declare
  k auth.signing_keys;
begin
  select * into k from auth.signing_keys where signing_keys.id = p_id for update;
  if not found then perform auth.raise_error(404, 'not_found', 'Signing key not found'); end if;
  if p_status not in ('in_use', 'revoked') then
    perform auth.raise_error(400, 'validation_failed', 'status must be in_use (make the key sign) or revoked (stop it verifying)');
  end if;
  if k.status = p_status then
    -- Asked twice: the key is already there.
    null;
  elsif p_status = 'in_use' then
    if k.status not in ('standby', 'previously_used') then
      perform auth.raise_error(409, 'conflict', format('A %s key cannot be made in use', k.status));
    end if;
    update auth.signing_keys set status = 'previously_used', updated_at = now() where signing_keys.status = 'in_use';
    update auth.signing_keys set status = 'in_use', updated_at = now() where signing_keys.id = p_id;
  else
    if k.status <> 'previously_used' then
      perform auth.raise_error(409, 'conflict', case k.status
        when 'in_use' then 'The key in use cannot be revoked: make another key in use first'
        when 'standby' then 'A standby key has signed nothing: delete it instead'
        else format('A %s key cannot be revoked', k.status) end);
    end if;
    if k.algorithm = 'HS256' and (select s.legacy_api_keys from auth.api_key_settings s) then
      perform auth.raise_error(409, 'conflict', 'The legacy JWT secret signs the anon and service_role API keys: turn the legacy API keys off before revoking it');
    end if;
    update auth.signing_keys set status = 'revoked', updated_at = now() where signing_keys.id = p_id;
  end if;
  return query select * from auth.signing_key_set() s where s.id = p_id;
end
$$;

revoke all on function auth.set_legacy_api_keys(boolean), auth.delete_api_key(uuid), auth.set_signing_key_status(uuid, text) from public;
