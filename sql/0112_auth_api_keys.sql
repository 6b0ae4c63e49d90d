-- Publishable and secret API keys (issue 49), as Supabase's new keys:
-- `sb_publishable_…` acts as anon, `sb_secret_…` as service_role, in the
-- apikey header as supabase-js sends them. Several of each, named; deleting
-- one revokes it at once on every server (each keeps the hashes in memory
-- and reads them again on NOTIFY pgbase_api_keys). A key is looked up by its
-- SHA-256; the key itself is kept encrypted with the server's master key
-- (passed with each call, never stored) so `npm run keys` can print it. No
-- API role has any right on the table or these functions.

create table if not exists auth.api_keys (
  id uuid primary key default gen_random_uuid(),
  name text not null unique check (length(name) between 1 and 100),
  type text not null check (type in ('publishable', 'secret')),
  key_hash text not null unique,
  -- What a list shows: the prefix and the first characters of the random part.
  shown text not null,
  key_encrypted bytea not null,
  created_at timestamptz not null default now()
);
revoke all on auth.api_keys from public, anon, authenticated, service_role;
alter table auth.api_keys enable row level security;

-- Heard by every server (sql/0111's auth.notify_changed).
drop trigger if exists api_keys_changed on auth.api_keys;
create trigger api_keys_changed after insert or update or delete or truncate on auth.api_keys
  for each statement execute function auth.notify_changed('pgbase_api_keys');

-- A new key: 32 random bytes after its prefix, answered once here (and by `npm run keys`).
create or replace function auth.create_api_key(p_name text, p_type text, p_master_key text)
returns table (id uuid, name text, type text, api_key text, created_at timestamptz)
language plpgsql
set search_path = ''
as $$
declare
  made auth.api_keys;
  key text;
begin
  if p_type not in ('publishable', 'secret') then
    perform auth.raise_error(400, 'validation_failed', 'type must be publishable or secret');
  end if;
  if p_name is null or length(trim(p_name)) not between 1 and 100 then
    perform auth.raise_error(400, 'validation_failed', 'name is required (at most 100 characters)');
  end if;
  if exists (select 1 from auth.api_keys k where k.name = trim(p_name)) then
    perform auth.raise_error(409, 'conflict', format('An API key named %s exists already', trim(p_name)));
  end if;
  key := 'sb_' || p_type || '_' || translate(encode(extensions.gen_random_bytes(32), 'base64'), '+/=', '-_');
  insert into auth.api_keys (name, type, key_hash, shown, key_encrypted)
  values (trim(p_name), p_type, encode(extensions.digest(key, 'sha256'), 'hex'), left(key, length('sb_' || p_type || '_') + 6) || '…',
          extensions.pgp_sym_encrypt(key, p_master_key, 'cipher-algo=aes256'))
  returning * into made;
  return query select made.id, made.name, made.type, key, made.created_at;
end
$$;

-- The hashes a server checks keys against.
create or replace function auth.api_key_hashes()
returns table (id uuid, type text, key_hash text)
language sql stable
set search_path = ''
as $$ select k.id, k.type, k.key_hash from auth.api_keys k $$;

-- The keys as a list shows them (`reveal` with the master key: the keys themselves, for `npm run keys`).
create or replace function auth.api_key_list(p_master_key text default null)
returns table (id uuid, name text, type text, shown text, api_key text, created_at timestamptz)
language sql stable
set search_path = ''
as $$
  select k.id, k.name, k.type, k.shown, case when p_master_key is null then null else extensions.pgp_sym_decrypt(k.key_encrypted, p_master_key) end, k.created_at
    from auth.api_keys k order by k.type, k.created_at, k.id
$$;

-- The first keys of a project, once: a publishable and a secret key named "default".
create or replace function auth.initialize_api_keys(p_master_key text)
returns void
language plpgsql
set search_path = ''
as $$
begin
  lock table auth.api_keys in share row exclusive mode;
  if exists (select 1 from auth.api_keys) then return; end if;
  perform auth.create_api_key('default', 'publishable', p_master_key);
  perform auth.create_api_key('default secret', 'secret', p_master_key);
end
$$;

revoke all on function auth.create_api_key(text, text, text), auth.api_key_hashes(), auth.api_key_list(text), auth.initialize_api_keys(text) from public;
