-- Vault (issue 50, item 4), in Supabase Vault's API: vault.create_secret,
-- vault.update_secret, the vault.secrets table holding only ciphertext, and
-- the vault.decrypted_secrets view. No extension: pgcrypto's OpenPGP
-- symmetric encryption (AES-256 with its modification detection code, so a
-- changed ciphertext does not decrypt), each plaintext bound to its row's id
-- (a ciphertext moved to another row does not decrypt either). The key is
-- never in the database: pgbase puts it in each of its sessions as the
-- setting pgbase.vault_key (derived from AI_MASTER_KEY, or VAULT_KEY), so
-- a session without it (psql from outside) can list secrets but not read
-- them. Who may read them is the view's grants: its owner only, until a DBA
-- grants it, as Supabase ships it.

create schema if not exists vault;
revoke all on schema vault from public;

create table vault.secrets (
  id uuid primary key default gen_random_uuid(),
  name text,
  description text not null default '',
  secret text not null,
  key_id uuid,
  nonce bytea,
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp
);
create unique index secrets_name_idx on vault.secrets (name) where name is not null;
comment on table vault.secrets is 'Secrets as ciphertext only (base64 OpenPGP, AES-256); read them through vault.decrypted_secrets';
comment on column vault.secrets.key_id is 'kept for Supabase''s shape; pgbase has one key per project (null)';
alter table vault.secrets enable row level security;
revoke all on vault.secrets from public, anon, authenticated, service_role;

-- The session's key, or a refusal that says where it comes from (never what it is).
create or replace function vault._key() returns text
language plpgsql stable
set search_path = ''
as $$
declare
  k text := nullif(current_setting('pgbase.vault_key', true), '');
begin
  if k is null then
    raise exception 'The vault key is not set in this session: connect through pgbase (its sessions carry it) or set pgbase.vault_key'
      using errcode = '28000';
  end if;
  return k;
end
$$;

create or replace function vault._encrypt(p_id uuid, p_secret text) returns text
language sql volatile
set search_path = ''
as $$ select encode(extensions.pgp_sym_encrypt(p_id::text || ':' || p_secret, vault._key(), 'cipher-algo=aes256, compress-algo=0'), 'base64') $$;

-- Security definer: a role granted the view reads through it without being able to ask for the key itself.
create or replace function vault._decrypt(p_id uuid, p_secret text) returns text
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  plain text;
begin
  begin
    plain := extensions.pgp_sym_decrypt(decode(p_secret, 'base64'), vault._key());
  exception when others then
    if sqlstate = '28000' then raise; end if;
    -- A wrong key or a changed ciphertext: said without the data.
    raise exception 'Vault secret % could not be decrypted (another key, or a changed ciphertext)', p_id using errcode = '39000';
  end;
  if left(plain, 37) <> p_id::text || ':' then
    raise exception 'Vault secret % could not be decrypted (its ciphertext belongs to another secret)', p_id using errcode = '39000';
  end if;
  return substr(plain, 38);
end
$$;

-- vault.create_secret(secret, name, description, key_id): the new secret's id.
create or replace function vault.create_secret(new_secret text, new_name text default null, new_description text default '', new_key_id uuid default null)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_id uuid := gen_random_uuid();
begin
  if new_secret is null then
    raise exception 'new_secret must not be null' using errcode = '22004';
  end if;
  insert into vault.secrets (id, name, description, secret, key_id)
  values (v_id, new_name, coalesce(new_description, ''), vault._encrypt(v_id, new_secret), new_key_id);
  return v_id;
exception when unique_violation then
  raise exception 'A secret named "%" already exists', new_name using errcode = '23505';
end
$$;

-- vault.update_secret(id, secret, name, description, key_id): what is given changes.
create or replace function vault.update_secret(secret_id uuid, new_secret text default null, new_name text default null, new_description text default null, new_key_id uuid default null)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  update vault.secrets s set
    secret = case when new_secret is null then s.secret else vault._encrypt(s.id, new_secret) end,
    name = coalesce(new_name, s.name),
    description = coalesce(new_description, s.description),
    key_id = coalesce(new_key_id, s.key_id),
    updated_at = current_timestamp
  where s.id = secret_id;
  if not found then
    raise exception 'No secret with id %', secret_id using errcode = 'P0002';
  end if;
exception when unique_violation then
  raise exception 'A secret named "%" already exists', new_name using errcode = '23505';
end
$$;

create or replace view vault.decrypted_secrets as
  select s.id, s.name, s.description, s.secret, vault._decrypt(s.id, s.secret) as decrypted_secret, s.key_id, s.nonce, s.created_at, s.updated_at
  from vault.secrets s;

-- The owner (the admin login a DBA uses) holds everything; nobody else until granted, as Supabase ships it.
revoke all on vault.decrypted_secrets from public, anon, authenticated, service_role;
revoke all on function vault._key(), vault._encrypt(uuid, text),
  vault.create_secret(text, text, text, uuid), vault.update_secret(uuid, text, text, text, uuid) from public, anon, authenticated, service_role;
-- Reading goes through the view's grants; the function itself decrypts only a ciphertext one already holds.
grant execute on function vault._decrypt(uuid, text) to public;
