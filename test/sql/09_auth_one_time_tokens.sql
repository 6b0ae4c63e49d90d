-- E-mailed codes: stored hashed, single use, expiring, and they confirm what
-- they were sent for.
begin;
select plan(9);

select auth.sign_up('otp@example.com', null, 'secret-pass', '{}', false, 4);
create temp table code as
select auth.issue_one_time_token(id, 'confirmation_token', 'otp@example.com') as c, id as user_id from auth.users where email = 'otp@example.com';
grant select on code to public;

select matches((select c from code), '^\d{6}$', 'the code is six digits');
select is((select count(*) from auth.one_time_tokens where token_hash = (select c from code)), 0::bigint, 'the code itself is not stored');
select is((select confirmation_token::text from auth.users where email = 'otp@example.com'),
          auth.hash_token('otp@example.com' || (select c from code)), 'users.confirmation_token holds its hash, as GoTrue keeps it');

select throws_ok($$select * from auth.verify_one_time_token('signup', 'otp@example.com', null, '000000', null, interval '1 hour')$$,
  'PT403', 'Token has expired or is invalid', 'a wrong code is refused');

-- Expire it, then issue a fresh one.
update auth.one_time_tokens set created_at = now() - interval '2 hours' where user_id = (select user_id from code);
select throws_ok(format('select * from auth.verify_one_time_token(%L, %L, null, %L, null, interval %L)', 'signup', 'otp@example.com', (select c from code), '1 hour'),
  'PT403', 'Token has expired or is invalid', 'an expired code is refused');

update code set c = auth.issue_one_time_token(user_id, 'confirmation_token', 'otp@example.com');
select is((select method from auth.verify_one_time_token('signup', 'OTP@example.com', null, (select c from code), null, interval '1 hour')), 'email/signup',
  'the right code verifies (address matched case-insensitively)');
select isnt((select email_confirmed_at from auth.users where email = 'otp@example.com'), null, 'and confirms the address');
select throws_ok(format('select * from auth.verify_one_time_token(%L, %L, null, %L, null, interval %L)', 'signup', 'otp@example.com', (select c from code), '1 hour'),
  'PT403', 'Token has expired or is invalid', 'a code works once');

-- An e-mail change takes effect when the new address confirms.
select auth.request_email_change((select user_id from code), 'new@example.com', null);
update code set c = auth.issue_one_time_token(user_id, 'email_change_token_new', 'new@example.com');
select auth.verify_one_time_token('email_change', 'new@example.com', null, (select c from code), null, interval '1 hour');
select is((select email::text from auth.users where id = (select user_id from code)), 'new@example.com', 'verifying the new address changes it');

select * from finish();
rollback;
