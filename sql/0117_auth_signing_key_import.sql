-- An existing private key brought into the key set (Supabase's Management
-- API takes one as `private_jwk`): a migration from another issuer, or a
-- test stack whose tokens were signed by a key made elsewhere. It keeps its
-- own kid when that is a UUID (tokens already signed name it), and enters
-- as standby, as a key made here does (sql/0111's moves then apply).
create or replace function auth.import_signing_key(p_id uuid, p_algorithm text, p_public_jwk jsonb, p_private_jwk text, p_master_key text)
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
  insert into auth.signing_keys (id, algorithm, status, public_jwk, private_key)
  values (coalesce(p_id, gen_random_uuid()), p_algorithm, 'standby',
          p_public_jwk || jsonb_build_object('alg', p_algorithm, 'use', 'sig', 'key_ops', jsonb_build_array('verify')),
          extensions.pgp_sym_encrypt(p_private_jwk, p_master_key, 'cipher-algo=aes256'))
  returning id into made;
  update auth.signing_keys set public_jwk = public_jwk || jsonb_build_object('kid', made::text) where id = made;
  return made;
exception when unique_violation then
  perform auth.raise_error(409, 'conflict', 'A signing key with this kid is already in the set');
end
$$;

-- Restated from 0111: a key made here is a key brought in with a new kid (one insert for both).
create or replace function auth.add_signing_key(p_algorithm text, p_public_jwk jsonb, p_private_jwk text, p_master_key text)
returns uuid
language sql
set search_path = ''
as $$ select auth.import_signing_key(null, p_algorithm, p_public_jwk, p_private_jwk, p_master_key) $$;

revoke all on function auth.import_signing_key(uuid, text, jsonb, text, text), auth.add_signing_key(text, jsonb, text, text) from public, anon, authenticated, service_role;
