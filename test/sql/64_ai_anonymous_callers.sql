-- ai.caller_is_anonymous() reads the is_anonymous claim (sql/0096): true for
-- an anonymous user's token, false for others and without claims; inlined
-- into a policy (no call in the plan), as the policy helpers are.
begin;
select plan(5);

select tests.authenticate_as('00000000-0000-0000-0000-0000000064a1', '{"is_anonymous": true}');
select ok(ai.caller_is_anonymous(), 'an anonymous user''s token');
select tests.authenticate_as('00000000-0000-0000-0000-0000000064a2', '{"is_anonymous": false}');
select ok(not ai.caller_is_anonymous(), 'a signed-up user''s token');
select tests.authenticate_as('00000000-0000-0000-0000-0000000064a3');
select ok(not ai.caller_is_anonymous(), 'claims without is_anonymous (a run acting as a stored owner)');
reset role;
select set_config('request.jwt.claims', '', true);
select ok(not ai.caller_is_anonymous(), 'no claims at all');
select is((select prolang from pg_proc where oid = 'ai.caller_is_anonymous()'::regprocedure), (select oid from pg_language where lanname = 'sql'),
  'plain SQL without a SET clause, so policies inline it');

select * from finish();
rollback;
