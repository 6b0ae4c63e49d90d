-- The OAuth server's tables and moves (sql/0114): no API role reaches them;
-- an authorization is approved or denied once, its code taken once, by its
-- client, with the verifier of its S256 challenge.
begin;
select plan(17);

select ok(not has_table_privilege('service_role', 'auth.oauth_clients', 'select'), 'no API role reads the clients');
select ok(not has_function_privilege('service_role', 'auth.oauth_grant_code(uuid, text, text, text, text, text, text)', 'execute'), 'nor exchanges a code');

insert into auth.users (id, email, aud, role, email_confirmed_at, created_at, updated_at)
values ('00000000-0000-0000-0000-0000000000a1', 'oauth@example.com', 'authenticated', 'authenticated', now(), now(), now());
create temp table client as select auth.oauth_register_client('{"client_name":"Notes","redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"none"}', 'dynamic') as j;
select is((select j->>'client_type' from client), 'public', 'method none makes a public client');
select ok(not (select j ? 'client_secret' from client), 'without a secret');
select is((select (auth.oauth_register_client('{"redirect_uris":["https://s.example/cb"]}', 'manual'))->>'token_endpoint_auth_method'), 'client_secret_basic', 'RFC 7591''s default method');
select throws_ok($$ select auth.oauth_register_client('{"redirect_uris":["https://a/cb"],"grant_types":["implicit"]}', 'dynamic') $$, 'PT400', null, 'only code and refresh grants');

select throws_ok($$ select auth.oauth_begin_authorization((select j->>'client_id' from client), 'https://evil.example/cb', 'email', 's', repeat('a', 43), 'S256', null, null) $$, 'PT400', 'invalid redirect_uri', 'the redirect must be registered exactly');
select throws_ok($$ select auth.oauth_begin_authorization((select j->>'client_id' from client), 'https://app.example/cb', 'email', 's', repeat('a', 43), 'plain', null, null) $$, 'PT400', 'code_challenge_method must be S256', 'S256 only');
select throws_ok($$ select auth.oauth_begin_authorization((select j->>'client_id' from client), 'https://app.example/cb', 'admin', 's', repeat('a', 43), 'S256', null, null) $$, 'PT400', 'Unsupported scope: admin', 'unknown scopes refused');

-- The challenge of the verifier 'v' x 43.
create temp table auth_req as select auth.oauth_begin_authorization((select j->>'client_id' from client), 'https://app.example/cb', 'openid email', 'st',
  rtrim(translate(encode(extensions.digest(repeat('v', 43), 'sha256'), 'base64'), '+/', '-_'), '='), 'S256', null, 'n1') as id;
select is((select auth.oauth_authorization_details((select id from auth_req), '00000000-0000-0000-0000-0000000000a1')->'details'->>'scope'), 'email openid', 'details for the first user to open it');
create temp table settled as select auth.oauth_settle_authorization((select id from auth_req), '00000000-0000-0000-0000-0000000000a1', true) as r;
select throws_ok($$ select auth.oauth_settle_authorization((select id from auth_req), '00000000-0000-0000-0000-0000000000a1', false) $$, 'PT400', 'authorization request cannot be processed', 'settled once');
select throws_ok($$ select * from auth.oauth_grant_code((select (j->>'client_id')::uuid from client), (select r->>'code' from settled), repeat('w', 43), null, null) $$, 'PT400', null, 'a wrong verifier is refused');
-- As GoTrue: a refused attempt leaves the code to its verifier (43 characters of it cannot be guessed); once exchanged, it is gone.
select lives_ok($$ select * from auth.oauth_grant_code((select (j->>'client_id')::uuid from client), (select r->>'code' from settled), repeat('v', 43), null, null) $$, 'the right verifier exchanges it');
select throws_ok($$ select * from auth.oauth_grant_code((select (j->>'client_id')::uuid from client), (select r->>'code' from settled), repeat('v', 43), null, null) $$, 'PT400', 'Invalid authorization code', 'a code is taken once');

-- A second request: consent already covers it, so opening it approves it at once.
create temp table again as select auth.oauth_begin_authorization((select j->>'client_id' from client), 'https://app.example/cb', 'email', null,
  rtrim(translate(encode(extensions.digest(repeat('v', 43), 'sha256'), 'base64'), '+/', '-_'), '='), 'S256', null, null) as id;
create temp table auto as select auth.oauth_authorization_details((select id from again), '00000000-0000-0000-0000-0000000000a1') as r;
select ok((select r->'redirect' ? 'code' from auto), 'a covered consent approves at once');
create temp table tokens as select * from auth.oauth_grant_code((select (j->>'client_id')::uuid from client), (select r->'redirect'->>'code' from auto), repeat('v', 43), 'https://app.example/cb', null);
select is((select oauth_client_id from auth.sessions where id = (select session_id from tokens)), (select (j->>'client_id')::uuid from client), 'the session remembers its client');
select throws_ok($$ select * from auth.oauth_grant_refresh(gen_random_uuid(), (select refresh_token from tokens), interval '10 seconds') $$, 'PT400', 'Invalid refresh token', 'another client cannot rotate it');

select * from finish();
rollback;
