-- First-factor passkeys (sql/0116): no API role reaches them; a challenge
-- is taken once, by its ceremony and user; a sign-in moves the counter on,
-- so the same counter (a clone, or a replayed assertion) signs no one in.
begin;
select plan(9);

select ok(not has_table_privilege('service_role', 'auth.webauthn_credentials', 'select'), 'no API role reads the credentials');
select ok(not has_function_privilege('anon', 'auth.passkey_signed_in(text, bigint, text, text)', 'execute'), 'nor signs in by SQL');

insert into auth.users (id, email, aud, role, created_at, updated_at) values ('00000000-0000-0000-0000-0000000000d1', 'pk1@example.com', 'authenticated', 'authenticated', now(), now());
create temp table ch as select * from auth.passkey_challenge(null, 'authentication', '{"type":"request","challenge":"c"}');
select throws_ok($$ select auth.passkey_take_challenge((select challenge_id from ch), 'registration', null) $$, 'PT404', null, 'not by another ceremony');
select is(auth.passkey_take_challenge((select challenge_id from ch), 'authentication', null)->>'challenge', 'c', 'taken by its own');
select throws_ok($$ select auth.passkey_take_challenge((select challenge_id from ch), 'authentication', null) $$, 'PT404', 'WebAuthn challenge not found', 'and only once');

select auth.passkey_register('00000000-0000-0000-0000-0000000000d1', '{"id":"cred-a","public_key":"pk","counter":3,"transports":["internal"]}', null);
select is(auth.passkey_credential('cred-a', rtrim(translate(encode(convert_to('00000000-0000-0000-0000-0000000000d1', 'utf8'), 'base64'), '+/', '-_'), '='))->>'id', 'cred-a', 'its own user handle names it');
select throws_like($$ select auth.passkey_credential('cred-a', 'c29tZW9uZS1lbHNl') $$, '%user handle is not the passkey''s user%', 'another user''s handle does not');
select is((select "user"->>'id' from auth.passkey_signed_in('cred-a', 4)), '00000000-0000-0000-0000-0000000000d1', 'a counter that moves on signs its user in');
select throws_ok($$ select * from auth.passkey_signed_in('cred-a', 4) $$, 'PT400', null, 'the same counter again does not');

select * from finish();
rollback;
