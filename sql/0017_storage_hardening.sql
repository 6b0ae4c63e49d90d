-- Storage hardening: object names refuse backslashes (as Supabase Storage's
-- InvalidKey does), and a signed upload token writes once.

-- Object names: no backslash anywhere, so `..\x` or `a\..\b` cannot be read as
-- a path by anything downstream (S3 tools, Windows clients, the local backend).
-- Every write path checks names through this function: put_object (uploads,
-- signed uploads, TUS finish), can_upload (TUS creation, upload signing),
-- copy_object and move_object.
create or replace function storage.valid_object_name(name text) returns boolean
language sql immutable
set search_path = ''
as $$
  select name is not null and name <> '' and octet_length(name) <= 1024
     and name !~ '[\x01-\x1f\x7f\\]' and left(name, 1) <> '/'
     and not (string_to_array(name, '/') && array['.', '..'])
$$;

-- Upload tokens already used, until they expire (then a reuse fails on the
-- token's own expiry). Written only by storage.spend_upload_token.
create table storage.spent_upload_tokens (
  jti uuid primary key,
  expires_at timestamptz not null
);
create index spent_upload_tokens_expires_at on storage.spent_upload_tokens (expires_at);
alter table storage.spent_upload_tokens enable row level security;

-- Marks a signed upload token used; a second use is refused. Runs in the
-- upload's own transaction, so a refused upload leaves its token unspent.
create or replace function storage.spend_upload_token(p_jti uuid, p_expires_at timestamptz) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from storage.spent_upload_tokens t where t.expires_at < now() - interval '1 minute';
  insert into storage.spent_upload_tokens (jti, expires_at) values (p_jti, p_expires_at) on conflict (jti) do nothing;
  if not found then
    perform auth.raise_error(400, 'InvalidJWT', 'This upload URL has already been used');
  end if;
end
$$;
revoke execute on function storage.spend_upload_token(uuid, timestamptz) from public;
grant execute on function storage.spend_upload_token(uuid, timestamptz) to anon, authenticated, service_role;

-- The write behind a signed upload URL: the token spent, then put_object as
-- the signer (so their policies decide and they own the object).
create or replace function storage.put_signed_object(p_jti uuid, p_expires_at timestamptz, p_bucket text, p_name text, p_version text,
  p_metadata jsonb, p_upsert boolean default false, p_user_metadata jsonb default null, p_sniffed_type text default null)
returns table (object_id uuid, replaced_version text)
language plpgsql
set search_path = ''
as $$
begin
  perform storage.spend_upload_token(p_jti, p_expires_at);
  return query select * from storage.put_object(p_bucket, p_name, p_version, p_metadata, p_upsert, p_user_metadata, p_sniffed_type);
end
$$;
revoke execute on function storage.put_signed_object(uuid, timestamptz, text, text, text, jsonb, boolean, jsonb, text) from public;
grant execute on function storage.put_signed_object(uuid, timestamptz, text, text, text, jsonb, boolean, jsonb, text) to anon, authenticated, service_role;
