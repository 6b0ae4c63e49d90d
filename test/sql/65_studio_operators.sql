-- Studio operators and sessions (sql/0098): the setup link works once and
-- only while no operator exists; a wrong password counts, ten lock the
-- e-mail; a session ends on sign-out and after 12 idle hours; an invite
-- makes one operator once; the audit log records who did what.
begin;
select plan(14);

select ok(studio.setup_needed(), 'a fresh database needs its first operator');
select ok(studio.open_setup('\x01'), 'a setup link is opened');
select ok(studio.open_setup('\x02'), 'a new start opens another...');
select throws_ok($$ select studio.create_first_operator('\x01', 'a@example.com', 'long-enough') $$, 'PT403', null, '... and the older link stops working');
select is((select email from studio.create_first_operator('\x02', 'Ops@Example.com', 'long-enough')), 'ops@example.com', 'the first operator, e-mail lowered');
select throws_ok($$ select studio.create_first_operator('\x02', 'b@example.com', 'long-enough') $$, 'PT403', null, 'the link works once');
select ok(not studio.open_setup('\x03'), 'no link once an operator exists');

select is((select outcome from studio.sign_in('ops@example.com', 'wrong', '1.2.3.4', 'ua', '\x10')), 'wrong', 'a wrong password');
select is((select count(*)::int from studio.sign_in_failures where email = 'ops@example.com'), 1, '... is counted');
select is((select outcome from studio.sign_in('OPS@example.com', 'long-enough', '1.2.3.4', 'ua', '\x11')), 'ok', 'the right one opens a session');
select is((select email from studio.session('\x11')), 'ops@example.com', 'the session is found by its token hash');
update studio.sessions set last_seen_at = now() - interval '13 hours' where token_hash = '\x11';
select is((select count(*)::int from studio.session('\x11')), 0, 'a session idle for 13 hours is over');

insert into studio.sign_in_failures (email) select 'ops@example.com' from generate_series(1, 10);
select is((select outcome from studio.sign_in('ops@example.com', 'long-enough', '1.2.3.4', 'ua', '\x12')), 'locked', 'ten failures lock the e-mail, right password or not');

select studio.invite((select id from studio.operators), 'New@Example.com', '\x20');
select studio.accept_invite('\x20', 'another-long-one');
select throws_ok($$ select studio.accept_invite('\x20', 'again-and-again') $$, 'PT403', null, 'an invite makes one operator, once');

select * from finish();
rollback;
