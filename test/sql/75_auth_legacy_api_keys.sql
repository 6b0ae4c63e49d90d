-- The legacy API keys' switch (sql/0113): off only with a publishable and a
-- secret key to take their place; while off, the last key of a kind stays
-- and the legacy JWT secret may be revoked as a signing key.
begin;
select plan(7);

delete from auth.api_keys;
delete from auth.signing_keys;
select auth.initialize_signing_keys('ES256', '{"kty":"EC","crv":"P-256","x":"a","y":"b"}', '{"d":"secret"}', 'master');
select ok(not has_table_privilege('service_role', 'auth.api_key_settings', 'select'), 'no API role reads the switch');
select throws_ok($$ select auth.set_legacy_api_keys(false) $$, 'PT409', 'Make a publishable and a secret API key before turning the legacy keys off', 'not off without new keys');
select throws_ok($$ select auth.set_signing_key_status((select id from auth.signing_keys where algorithm = 'HS256'), 'revoked') $$, 'PT409', null, 'the legacy secret stays while the legacy keys are on');

create temp table made as select * from auth.create_api_key('web', 'publishable', 'master') union all select * from auth.create_api_key('server', 'secret', 'master');
select is(auth.set_legacy_api_keys(false), false, 'off once both kinds exist');
select throws_ok($$ select auth.delete_api_key((select id from made where type = 'secret')) $$, 'PT409', null, 'the last secret key stays while they are off');
select lives_ok($$ select auth.set_signing_key_status((select id from auth.signing_keys where algorithm = 'HS256'), 'revoked') $$, 'and the legacy secret may be revoked');
select is(auth.set_legacy_api_keys(true), true, 'back on');

select * from finish();
rollback;
