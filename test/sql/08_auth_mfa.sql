-- A verified TOTP challenge raises the session to aal2, once; only aal2 may
-- unenroll a verified factor.
begin;
select plan(8);

create temp table ctx as
select u.id as user_id, s.session_id, auth.mfa_enroll(u.id, 'phone', 'JBSWY3DPEHPK3PXP') as factor_id
from auth.sign_up('mfa@example.com', null, 'secret-pass', '{}', true, 4) u,
     lateral auth.issue_session(u.id, 'password') s;
create temp table ch as select c.id as challenge_id from ctx, lateral auth.mfa_challenge(ctx.user_id, ctx.factor_id, '127.0.0.1') c;

select is(auth.mfa_secret_for_challenge((select user_id from ctx), (select factor_id from ctx), (select challenge_id from ch)), 'JBSWY3DPEHPK3PXP',
  'an open challenge yields the factor secret for checking the code');

create temp table v as select * from auth.mfa_verified((select user_id from ctx), (select factor_id from ctx), (select challenge_id from ch), (select session_id from ctx));
select is((select aal from v), 'aal2'::auth.aal_level, 'verification answers with an aal2 session');
select is((select aal from auth.sessions where id = (select session_id from ctx)), 'aal2'::auth.aal_level, 'the session is raised to aal2');
select is((select status from auth.mfa_factors where id = (select factor_id from ctx)), 'verified'::auth.factor_status, 'the factor is verified');
select ok((select amr::text like '%totp%' from v), 'the totp method joins the amr claims');
select throws_ok(format('select * from auth.mfa_verified(%L, %L, %L, %L)', (select user_id from ctx), (select factor_id from ctx), (select challenge_id from ch), (select session_id from ctx)),
  'PT422', 'Challenge has already been used', 'a challenge is spent once');
create temp table other as select s.session_id from ctx, lateral auth.issue_session(ctx.user_id, 'password') s;
select throws_ok(format('select auth.mfa_unenroll(%L, %L, %L)', (select user_id from ctx), (select factor_id from ctx), (select session_id from other)),
  'PT403', 'AAL2 required to unenroll verified factor', 'an aal1 session cannot unenroll a verified factor');
select lives_ok(format('select auth.mfa_unenroll(%L, %L, %L)', (select user_id from ctx), (select factor_id from ctx), (select session_id from ctx)),
  'an aal2 session unenrolls the verified factor');

select * from finish();
rollback;
