-- Sign-out ends this session, the others, or all of a user's sessions, and
-- their refresh tokens with them.
begin;
select plan(6);

create temp table s as
select u.id as user_id, x.session_id, row_number() over () as n
from auth.sign_up('out@example.com', null, 'secret-pass', '{}', true, 4) u,
     lateral (select session_id from auth.issue_session(u.id, 'password') union all
              select session_id from auth.issue_session(u.id, 'password') union all
              select session_id from auth.issue_session(u.id, 'password')) x;

select auth.sign_out((select session_id from s where n = 1), 'local');
select is((select count(*) from auth.sessions where user_id = (select user_id from s limit 1)), 2::bigint, 'local ends only this session');
select is((select count(*) from auth.refresh_tokens where session_id = (select session_id from s where n = 1)), 0::bigint, 'and its refresh tokens');

select auth.sign_out((select session_id from s where n = 2), 'others');
select is((select array_agg(id) from auth.sessions where user_id = (select user_id from s limit 1)), array[(select session_id from s where n = 2)],
  'others keeps only the caller''s session');

select auth.sign_out((select session_id from s where n = 2), 'global');
select is((select count(*) from auth.sessions where user_id = (select user_id from s limit 1)), 0::bigint, 'global ends every session');
select lives_ok(format('select auth.sign_out(%L, %L)', (select session_id from s where n = 2), 'global'), 'signing out twice is harmless');
select is((select count(*) from auth.audit_log_entries where payload->>'action' = 'logout'), 3::bigint, 'each sign-out is audited');

select * from finish();
rollback;
