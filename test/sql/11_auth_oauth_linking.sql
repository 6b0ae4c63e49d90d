-- Which user an external identity signs in: known identity, verified e-mail
-- link, pre-hijacking defence, refusal for unverified taken addresses.
begin;
select plan(8);

create temp table ids (name text primary key, id uuid);
insert into ids values ('first', auth.oauth_sign_in('github', 'gh-1', '{"name":"Ann"}', 'ann@example.com', true));
select is((select email_confirmed_at is not null from auth.users where id = (select id from ids where name = 'first')), true,
  'a new user from a verified e-mail is confirmed');
select is(auth.oauth_sign_in('github', 'gh-1', '{"name":"Ann B"}', 'ann@example.com', true), (select id from ids where name = 'first'),
  'the same identity signs in the same user');
select is((select identity_data->>'name' from auth.identities where provider = 'github' and provider_id = 'gh-1'), 'Ann B',
  'and refreshes its identity data');

select is(auth.oauth_sign_in('google', 'g-1', '{}', 'ANN@example.com', true), (select id from ids where name = 'first'),
  'a verified e-mail links another provider to the same user');
select is((select raw_app_meta_data->'providers' from auth.users where id = (select id from ids where name = 'first')),
  '["github", "google"]'::jsonb, 'app_metadata.providers lists both');

select throws_ok($$select auth.oauth_sign_in('gitlab', 'gl-1', '{}', 'ann@example.com', false)$$, 'PT422', null,
  'an unverified e-mail never links to an existing account');

-- Pre-hijacking: someone registered the address with a password and never confirmed it.
select auth.sign_up('bea@example.com', null, 'attacker-pass', '{}', false, 4);
select auth.oauth_sign_in('google', 'g-2', '{}', 'bea@example.com', true);
select is((select encrypted_password from auth.users where email = 'bea@example.com'), '', 'the pre-registered password is dropped');
select is((select array_agg(provider) from auth.identities i join auth.users u on u.id = i.user_id where u.email = 'bea@example.com'),
  array['google'], 'only the verified identity remains');

select * from finish();
rollback;
