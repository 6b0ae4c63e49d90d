-- The signing keys' table and state machine (sql/0111): no API role reads
-- the table or calls its functions; the first set is made once; a key goes
-- standby -> in_use -> previously_used -> revoked, one key in use at a time,
-- and the moves that would lock the project out are refused.
begin;
select plan(20);

select ok(not has_table_privilege(r, 'auth.signing_keys', 'select') and not has_table_privilege(r, 'auth.signing_keys', 'insert')
          and not has_table_privilege(r, 'auth.signing_keys', 'update') and not has_table_privilege(r, 'auth.signing_keys', 'delete'),
          format('%s has no right on auth.signing_keys', r))
  from unnest(array['anon', 'authenticated', 'service_role']) r;
select ok(not has_function_privilege(r, 'auth.signing_key_in_use(text)', 'execute') and not has_function_privilege(r, 'auth.add_signing_key(text, jsonb, text, text)', 'execute')
          and not has_function_privilege(r, 'auth.set_signing_key_status(uuid, text)', 'execute'),
          format('%s cannot read a private key or move a key', r))
  from unnest(array['anon', 'authenticated', 'service_role']) r;

-- A fresh set (the server's start makes it; this database's may have one already).
delete from auth.signing_keys;
select auth.initialize_signing_keys('ES256', '{"kty":"EC","crv":"P-256","x":"a","y":"b"}', '{"d":"secret"}', 'master');
select auth.initialize_signing_keys('RS256', '{"kty":"RSA","n":"a","e":"AQAB"}', '{"d":"other"}', 'master');
select bag_eq($$ select algorithm, status from auth.signing_key_set() $$,
  $$ values ('ES256', 'in_use'), ('HS256', 'previously_used') $$, 'the first set, once: ES256 in use, the legacy secret still verifying');
select is((select public_jwk ->> 'kid' from auth.signing_keys where algorithm = 'ES256'), (select id::text from auth.signing_keys where algorithm = 'ES256'), 'the public JWK names its key');
select is((select private_jwk from auth.signing_key_in_use('master')), '{"d":"secret"}', 'the private key reads back with the master key');
select throws_ok($$ select * from auth.signing_key_in_use('wrong') $$, null, null, 'and not without it');
select ok((select private_key::text not like '%secret%' from auth.signing_keys where algorithm = 'ES256'), 'stored encrypted');

create temp table k as select auth.add_signing_key('RS256', '{"kty":"RSA","n":"a","e":"AQAB"}', '{"d":"next"}', 'master') as id;
select is((select status from auth.signing_keys where id = (select id from k)), 'standby', 'a new key waits on standby');
select throws_ok($$ select auth.add_signing_key('HS256', null, null, 'master') $$, 'PT400', null, 'no new HS256 key: the legacy secret is JWT_SECRET');
select lives_ok($$ select auth.set_signing_key_status((select id from k), 'in_use') $$, 'standby to in use');
select bag_eq($$ select algorithm, status from auth.signing_key_set() $$,
  $$ values ('RS256', 'in_use'), ('ES256', 'previously_used'), ('HS256', 'previously_used') $$, 'one key in use; the one before still verifies');
select throws_ok($$ select auth.set_signing_key_status((select id from k), 'revoked') $$, 'PT409', 'The key in use cannot be revoked: make another key in use first', 'the key in use is not revoked');
select throws_ok($$ select auth.set_signing_key_status((select id from auth.signing_keys where algorithm = 'HS256'), 'revoked') $$, 'PT409', null, 'nor the legacy secret while it signs the API keys');
select lives_ok($$ select auth.set_signing_key_status((select id from auth.signing_keys where algorithm = 'ES256'), 'revoked') $$, 'a previously used key is revoked');
select throws_ok($$ select auth.set_signing_key_status((select id from auth.signing_keys where algorithm = 'ES256'), 'in_use') $$, 'PT409', null, 'and never comes back');
select lives_ok($$ select auth.delete_signing_key((select id from auth.signing_keys where algorithm = 'ES256')) $$, 'then leaves the set');

select * from finish();
rollback;
