-- Refresh tokens rotate: single use, a grace window for concurrent use, and
-- reuse after the window revokes the whole session.
begin;
select plan(10);

create temp table ctx as
select u.id as user_id, s.session_id, s.refresh_token as first
from auth.sign_up('rot@example.com', null, 'secret-pass', '{}', true, 4) u,
     lateral auth.issue_session(u.id, 'password') s;
grant select on ctx to public;

select is((select count(*) from auth.refresh_tokens where token = (select first from ctx)), 0::bigint,
  'the token itself is never stored');
select is((select count(*) from auth.refresh_tokens where token = auth.hash_token((select first from ctx)) and not revoked), 1::bigint,
  'its sha256 is stored, active');

create temp table second as select * from auth.grant_refresh((select first from ctx), interval '10 seconds');
select is((select session_id from second), (select session_id from ctx), 'refreshing keeps the session');
select isnt((select refresh_token from second), (select first from ctx), 'refreshing issues a new token');
select ok((select revoked from auth.refresh_tokens where token = auth.hash_token((select first from ctx))), 'the used token is revoked');
select is((select parent::text from auth.refresh_tokens where token = auth.hash_token((select refresh_token from second))),
          auth.hash_token((select first from ctx)), 'the new token records its parent');

select is((select count(*) from auth.grant_refresh((select first from ctx), interval '10 seconds')), 1::bigint,
  'reuse within the grace window is answered with another token');

-- Leave the grace window: pretend the revocation happened a minute ago.
update auth.refresh_tokens set updated_at = now() - interval '1 minute' where token = auth.hash_token((select first from ctx));
select is((select count(*) from auth.grant_refresh((select first from ctx), interval '10 seconds')), 0::bigint,
  'reuse after the grace window gets no token (refresh_token_already_used)');
select is((select count(*) from auth.sessions where id = (select session_id from ctx)), 0::bigint, 'and ends the session');

select throws_ok($$select * from auth.grant_refresh('never-issued')$$, 'PT400', 'Invalid Refresh Token: Refresh Token Not Found',
  'an unknown token is refused with 400');

select * from finish();
rollback;
