-- Passkey factors (sql/0115): no API role reaches the ceremony's functions;
-- a verified ceremony raises the session with the mfa/webauthn method; an
-- authentication may move the counter of the credential registered, never
-- put another credential in its place; one credential is one factor.
begin;
select plan(6);

select ok(not has_function_privilege('authenticated', 'auth.mfa_webauthn_verified(uuid, uuid, uuid, uuid, jsonb, uuid)', 'execute'), 'no API role completes a ceremony');

insert into auth.users (id, email, aud, role, created_at, updated_at) values
  ('00000000-0000-0000-0000-0000000000c1', 'pk@example.com', 'authenticated', 'authenticated', now(), now()),
  ('00000000-0000-0000-0000-0000000000c2', 'pk2@example.com', 'authenticated', 'authenticated', now(), now());
create temp table s as select * from auth.issue_session('00000000-0000-0000-0000-0000000000c1', 'password');
create temp table f as select auth.mfa_enroll('00000000-0000-0000-0000-0000000000c1', 'key', null, 'webauthn') as id;
create temp table c as select * from auth.mfa_webauthn_challenge('00000000-0000-0000-0000-0000000000c1', (select id from f), '127.0.0.1', '{"type":"create","challenge":"x"}');
create temp table v as select * from auth.mfa_webauthn_verified('00000000-0000-0000-0000-0000000000c1', (select id from f), (select id from c), (select session_id from s),
  '{"id":"cred-1","public_key":"pk","counter":0,"transports":[]}', null);
select is((select aal::text from v), 'aal2', 'the session is raised');
select ok((select amr from v) @> '[{"method":"mfa/webauthn"}]', 'with the mfa/webauthn method');

create temp table c2 as select * from auth.mfa_webauthn_challenge('00000000-0000-0000-0000-0000000000c1', (select id from f), '127.0.0.1', '{"type":"request","challenge":"y"}');
select throws_ok($$ select * from auth.mfa_webauthn_verified('00000000-0000-0000-0000-0000000000c1', (select id from f), (select id from c2), (select session_id from s),
  '{"id":"cred-2","public_key":"other","counter":5,"transports":[]}', null) $$, 'PT422', 'WebAuthn credential does not belong to this factor', 'another credential cannot take its place');

create temp table s2 as select * from auth.issue_session('00000000-0000-0000-0000-0000000000c2', 'password');
create temp table f2 as select auth.mfa_enroll('00000000-0000-0000-0000-0000000000c2', 'key', null, 'webauthn') as id;
-- last_challenged_at is unique (Supabase's column), and now() is one instant in this transaction.
update auth.mfa_factors set last_challenged_at = null;
create temp table c3 as select * from auth.mfa_webauthn_challenge('00000000-0000-0000-0000-0000000000c2', (select id from f2), '127.0.0.1', '{"type":"create","challenge":"z"}');
select throws_ok($$ select * from auth.mfa_webauthn_verified('00000000-0000-0000-0000-0000000000c2', (select id from f2), (select id from c3), (select session_id from s2),
  '{"id":"cred-1","public_key":"pk","counter":0,"transports":[]}', null) $$, 'PT422', 'This passkey is already enrolled', 'one credential is one factor');
select is((select secret from auth.mfa_factors where id = (select id from f)), null, 'a passkey factor keeps no secret');

select * from finish();
rollback;
