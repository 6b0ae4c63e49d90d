-- An imported signing key (sql/0117): no API role may import; it keeps the
-- kid it came with, enters as standby, and a kid taken already is refused.
begin;
select plan(4);

select ok(not has_function_privilege('service_role', 'auth.import_signing_key(uuid, text, jsonb, text, text)', 'execute'), 'no API role imports keys');
select is(auth.import_signing_key('11111111-2222-4333-8444-555555555555', 'RS256', '{"kty":"RSA","n":"x","e":"AQAB"}', '{"d":"secret"}', 'master'),
  '11111111-2222-4333-8444-555555555555'::uuid, 'it keeps its kid');
select is((select status || ' ' || (public_jwk->>'kid') from auth.signing_keys where id = '11111111-2222-4333-8444-555555555555'), 'standby 11111111-2222-4333-8444-555555555555', 'as standby, named by it');
select throws_ok($$ select auth.import_signing_key('11111111-2222-4333-8444-555555555555', 'RS256', '{}', '{}', 'master') $$, 'PT409', null, 'a kid taken is refused');

select * from finish();
rollback;
