-- The keys that sign the project's tokens (issue 49), as Supabase Auth keeps
-- them: asymmetric keys (ES256, RS256) whose public halves are published at
-- /auth/v1/.well-known/jwks.json, and the legacy HS256 secret (JWT_SECRET,
-- never stored here: its row only says where it stands). A key's life:
--
--   standby -> in_use -> previously_used -> revoked -> (deleted)
--
-- Exactly one key is in use: it signs new tokens. Standby and previously
-- used keys still verify (a token of a key still in the set stays valid
-- until it expires); a revoked key verifies nothing, at once, on every
-- process (each listens on pgbase_signing_keys). Private keys are encrypted
-- with the server's master key (AI_MASTER_KEY, passed with each call and
-- never stored) and are read only by the server's own connection: no API
-- role has any right on the table or these functions.

create table if not exists auth.signing_keys (
  id uuid primary key default gen_random_uuid(),
  algorithm text not null check (algorithm in ('HS256', 'ES256', 'RS256')),
  status text not null check (status in ('standby', 'in_use', 'previously_used', 'revoked')),
  -- The public JWK an asymmetric key publishes; the legacy secret has none.
  public_jwk jsonb check ((algorithm = 'HS256') = (public_jwk is null)),
  private_key bytea check ((algorithm = 'HS256') = (private_key is null)),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index if not exists signing_keys_one_in_use on auth.signing_keys ((true)) where status = 'in_use';
create unique index if not exists signing_keys_one_legacy on auth.signing_keys ((true)) where algorithm = 'HS256';

revoke all on auth.signing_keys from public, anon, authenticated, service_role;
-- No policy: no API role reads a row even if granted one by mistake (the server's own login owns the table).
alter table auth.signing_keys enable row level security;

-- Every change, from these functions or a DBA's own SQL, tells the servers
-- to read the set again: a statement trigger notifying the channel it names.
create or replace function auth.notify_changed() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform pg_notify(tg_argv[0], '');
  return null;
end
$$;
drop trigger if exists signing_keys_changed on auth.signing_keys;
create trigger signing_keys_changed after insert or update or delete or truncate on auth.signing_keys
  for each statement execute function auth.notify_changed('pgbase_signing_keys');

-- The set as a server verifies with it, and as the control plane lists it: no private part.
create or replace function auth.signing_key_set()
returns table (id uuid, algorithm text, status text, public_jwk jsonb, created_at timestamptz, updated_at timestamptz)
language sql stable
set search_path = ''
as $$
  select k.id, k.algorithm, k.status, k.public_jwk, k.created_at, k.updated_at from auth.signing_keys k
   order by case k.status when 'in_use' then 0 when 'standby' then 1 when 'previously_used' then 2 else 3 end, k.updated_at desc, k.created_at desc, k.id
$$;

-- The key that signs (its private JWK decrypted with the master key), or none when the legacy secret does.
create or replace function auth.signing_key_in_use(p_master_key text)
returns table (id uuid, algorithm text, private_jwk text)
language sql stable
set search_path = ''
as $$
  select k.id, k.algorithm, case when k.private_key is null then null else extensions.pgp_sym_decrypt(k.private_key, p_master_key) end
    from auth.signing_keys k where k.status = 'in_use'
$$;

-- A new key, on standby: published at once (so clients that cache the JWKS
-- know it before it signs), signing nothing until it is made in use.
create or replace function auth.add_signing_key(p_algorithm text, p_public_jwk jsonb, p_private_jwk text, p_master_key text)
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  made uuid;
begin
  if p_algorithm not in ('ES256', 'RS256') then
    perform auth.raise_error(400, 'validation_failed', 'A new signing key is ES256 or RS256 (the legacy HS256 secret is JWT_SECRET)');
  end if;
  insert into auth.signing_keys (algorithm, status, public_jwk, private_key)
  values (p_algorithm, 'standby', p_public_jwk || jsonb_build_object('alg', p_algorithm, 'use', 'sig', 'key_ops', jsonb_build_array('verify')),
          extensions.pgp_sym_encrypt(p_private_jwk, p_master_key, 'cipher-algo=aes256'))
  returning id into made;
  -- The public JWK names its key.
  update auth.signing_keys set public_jwk = public_jwk || jsonb_build_object('kid', made::text) where id = made;
  return made;
end
$$;

-- The first set, once (two servers starting together: the first wins): the
-- legacy secret, in use when `p_algorithm` is HS256, else previously used
-- beside a new asymmetric key in use (its tokens, the legacy API keys among
-- them, keep verifying).
create or replace function auth.initialize_signing_keys(p_algorithm text, p_public_jwk jsonb, p_private_jwk text, p_master_key text)
returns void
language plpgsql
set search_path = ''
as $$
declare
  made uuid;
begin
  lock table auth.signing_keys in share row exclusive mode;
  if exists (select 1 from auth.signing_keys) then return; end if;
  insert into auth.signing_keys (algorithm, status) values ('HS256', case when p_algorithm = 'HS256' then 'in_use' else 'previously_used' end);
  if p_algorithm <> 'HS256' then
    made := auth.add_signing_key(p_algorithm, p_public_jwk, p_private_jwk, p_master_key);
    update auth.signing_keys set status = 'in_use', updated_at = now() where id = made;
  end if;
end
$$;

-- A key moved along its life, in one guarded statement per move:
--   standby or previously_used -> in_use   (the key in use becomes previously_used)
--   previously_used -> revoked             (not the legacy secret while it signs the legacy API keys)
-- Anything else is refused with what to do instead.
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
    if k.algorithm = 'HS256' then
      perform auth.raise_error(409, 'conflict', 'The legacy JWT secret signs the anon and service_role API keys: it cannot be revoked while they are the project''s keys');
    end if;
    update auth.signing_keys set status = 'revoked', updated_at = now() where signing_keys.id = p_id;
  end if;
  return query select * from auth.signing_key_set() s where s.id = p_id;
end
$$;

-- A standby key (never used) or a revoked one leaves the set; the legacy secret's row stays.
create or replace function auth.delete_signing_key(p_id uuid)
returns void
language plpgsql
set search_path = ''
as $$
declare
  k auth.signing_keys;
begin
  select * into k from auth.signing_keys where id = p_id for update;
  if not found then perform auth.raise_error(404, 'not_found', 'Signing key not found'); end if;
  if k.algorithm = 'HS256' or k.status not in ('standby', 'revoked') then
    perform auth.raise_error(409, 'conflict', 'Only a standby or revoked key can be deleted');
  end if;
  delete from auth.signing_keys where id = p_id;
end
$$;

revoke all on function auth.signing_key_set(), auth.signing_key_in_use(text), auth.add_signing_key(text, jsonb, text, text),
  auth.initialize_signing_keys(text, jsonb, text, text), auth.set_signing_key_status(uuid, text), auth.delete_signing_key(uuid),
  auth.notify_changed() from public;
