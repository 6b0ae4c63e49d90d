-- Password sign-in checks bcrypt in SQL and refuses with GoTrue's codes, never
-- telling which of address and password was wrong.
begin;
select plan(10);

select auth.sign_up('pw@example.com', null, 'right-password', '{"plan":"pro"}', true, 4);
select auth.sign_up('pending@example.com', null, 'right-password', '{}', false, 4);

select is((select "user" ->> 'email' from auth.grant_password('PW@example.com', null, 'right-password')), 'pw@example.com',
  'the address is matched case-insensitively');
select is((select "user" -> 'user_metadata' ->> 'plan' from auth.grant_password('pw@example.com', null, 'right-password')), 'pro',
  'the session carries the user with its metadata');
select throws_ok($$select * from auth.grant_password('pw@example.com', null, 'wrong')$$, 'PT400', 'Invalid login credentials',
  'a wrong password is refused');
select throws_ok($$select * from auth.grant_password('nobody@example.com', null, 'right-password')$$, 'PT400', 'Invalid login credentials',
  'an unknown address gets the same answer');
select throws_ok($$select * from auth.grant_password('pending@example.com', null, 'right-password')$$, 'PT400', 'Email not confirmed',
  'an unconfirmed address cannot sign in');

update auth.users set banned_until = now() + interval '1 day' where email = 'pw@example.com';
select throws_ok($$select * from auth.grant_password('pw@example.com', null, 'right-password')$$, 'PT400', 'User is banned',
  'a banned user cannot sign in');

-- A hash exported from Supabase (Go bcrypt, $2a$) verifies.
update auth.users set banned_until = null, encrypted_password = extensions.crypt('exported', extensions.gen_salt('bf', 4)) where email = 'pw@example.com';
select ok((select session_id is not null from auth.grant_password('pw@example.com', null, 'exported')), 'an imported bcrypt hash verifies');

-- The same hash with the $2b$ (Node bcrypt, OpenBSD) and $2y$ (PHP) prefixes.
update auth.users set encrypted_password = '$2b$' || substr(encrypted_password, 5) where email = 'pw@example.com';
select ok((select session_id is not null from auth.grant_password('pw@example.com', null, 'exported')), 'a $2b$ hash verifies');
update auth.users set encrypted_password = '$2y$' || substr(encrypted_password, 5) where email = 'pw@example.com';
select ok((select session_id is not null from auth.grant_password('pw@example.com', null, 'exported')), 'a $2y$ hash verifies');

select throws_ok($$select auth.sign_up('pw@example.com', null, 'whatever', '{}', true, 4)$$, 'PT422', 'User already registered',
  'signing up twice is refused');

select * from finish();
rollback;
