-- auth.uid(), auth.role(), auth.email() and auth.jwt() read the request's
-- claims as Supabase's do, so ported policies behave the same.
begin;
select plan(11);

select is(auth.uid(), null, 'outside a request auth.uid() is null');
select is(auth.jwt(), '{}'::jsonb, 'outside a request auth.jwt() is an empty object');
select is(auth.role(), null, 'outside a request auth.role() is null');

select tests.authenticate_as('2b8f6c1e-0f6a-4c55-9d1c-6a1f5c0b1a11', '{"email": "ada@example.com", "app_metadata": {"provider": "email"}}');
select is(auth.uid(), '2b8f6c1e-0f6a-4c55-9d1c-6a1f5c0b1a11'::uuid, 'auth.uid() is the sub claim as a uuid');
select is(auth.role(), 'authenticated', 'auth.role() is the role claim');
select is(auth.email(), 'ada@example.com', 'auth.email() is the email claim');
select is(auth.jwt() -> 'app_metadata' ->> 'provider', 'email', 'auth.jwt() exposes nested claims');
select is(current_user::text, 'authenticated', 'the transaction runs as the token''s role');

select tests.authenticate_as_anon();
select is(auth.uid(), null, 'the anonymous key has no user id');
select is(auth.role(), 'anon', 'the anonymous key has role anon');

select tests.clear_authentication();
select set_config('request.jwt.claim.sub', '7d4d7b0e-52a4-4b8e-9a51-1f0a3a1d2c33', true);
select is(auth.uid(), '7d4d7b0e-52a4-4b8e-9a51-1f0a3a1d2c33'::uuid, 'the legacy request.jwt.claim.sub setting is honoured first');

select * from finish();
rollback;
