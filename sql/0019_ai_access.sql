-- AI surface: the access model every `ai` table follows, secrets at rest,
-- and custom tools (the first table under that model).
--
--   1. ai.owns / ai.can_read     who may change and who may read an owned row
--   2. ai.encrypt / ai.decrypt   secrets at rest (pgcrypto; the key never stored)
--   3. ai.mask                   the only form of a secret that leaves
--   4. ai.tools                  custom tools (spec 2.5), owned per the model
--
-- The access model: a row has owner_id, null for a project resource (made
-- with the service-role key, whose token has no sub), else the user who made
-- it. A signed-in user reads project rows and their own and changes only
-- their own; the service role (bypassrls) does everything; anon has no
-- access to schema ai at all.

-- 1. Access -----------------------------------------------------------------

-- Whether the caller owns this row (never true of a project resource).
create or replace function ai.owns(owner_id uuid) returns boolean
language sql stable
set search_path = ''
as $$ select owner_id is not null and owner_id = auth.uid() $$;

-- Whether the caller may read this row: a project resource, or their own.
create or replace function ai.can_read(owner_id uuid) returns boolean
language sql stable
set search_path = ''
as $$ select owner_id is null or owner_id = auth.uid() $$;

revoke execute on function ai.owns(uuid), ai.can_read(uuid) from public;
grant execute on function ai.owns(uuid), ai.can_read(uuid) to authenticated, service_role;

-- 2. Secrets at rest ------------------------------------------------------------

-- The master key comes from the server (AI_MASTER_KEY) with each call and is
-- never stored; without the right key a secret cannot be read back.
create or replace function ai.encrypt(value text, master_key text) returns bytea
language sql volatile strict
set search_path = ''
as $$ select extensions.pgp_sym_encrypt(value, master_key, 'cipher-algo=aes256') $$;

create or replace function ai.decrypt(data bytea, master_key text) returns text
language sql immutable strict
set search_path = ''
as $$ select extensions.pgp_sym_decrypt(data, master_key) $$;

-- 3. Masking --------------------------------------------------------------------

-- What a secret looks like when shown: its first 3 and last 4 characters
-- around an ellipsis, or only dots when it is too short to show any.
create or replace function ai.mask(value text) returns text
language sql immutable strict
set search_path = ''
as $$
  select case when value = '' then ''
              when length(value) < 12 then repeat('•', 8)
              else left(value, 3) || '...' || right(value, 4) end
$$;

revoke execute on function ai.encrypt(text, text), ai.decrypt(bytea, text) from public;
grant execute on function ai.encrypt(text, text), ai.decrypt(bytea, text) to service_role;
grant execute on function ai.mask(text) to authenticated, service_role;

-- 4. Custom tools ---------------------------------------------------------------

create table ai.tools (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  name text not null check (name <> ''),
  description text not null check (description <> ''),
  type text not null check (type <> '' and length(type) <= 50),
  input_schema jsonb not null check (jsonb_typeof(input_schema) = 'object'),
  config jsonb not null default '{}' check (jsonb_typeof(config) = 'object'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index tools_owner on ai.tools (owner_id);

alter table ai.tools enable row level security;
create policy tools_read on ai.tools for select to authenticated using (ai.can_read(owner_id));
create policy tools_insert on ai.tools for insert to authenticated with check (ai.owns(owner_id));
create policy tools_update on ai.tools for update to authenticated using (ai.owns(owner_id)) with check (ai.owns(owner_id));
create policy tools_delete on ai.tools for delete to authenticated using (ai.owns(owner_id));
grant select, insert, update, delete on ai.tools to authenticated, service_role;

-- updated_at on every change, for every ai table that has one.
create or replace function ai.touch() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
revoke execute on function ai.touch() from public, anon, authenticated, service_role;
create trigger tools_touch before update on ai.tools for each row execute function ai.touch();
