-- Which changes of a user's row take their access away at once (sql/0095):
-- a ban into the future (or moved), a soft delete; lifting a ban, a ban
-- already past, or an unchanged ban do not. The trigger fires on bans,
-- soft deletes and deletions.
begin;
select plan(8);

select ok(auth.access_revoked(null, now() + interval '1 day', null, null), 'a ban into the future');
select ok(auth.access_revoked(now() + interval '1 hour', now() + interval '1 day', null, null), 'a ban moved');
select ok(auth.access_revoked(null, null, null, now()), 'a soft delete');
select ok(not auth.access_revoked(now() + interval '1 day', null, null, null), 'lifting a ban is not');
select ok(not auth.access_revoked(null, now() - interval '1 day', null, null), 'a ban already past is not');
select ok(not auth.access_revoked(now() + interval '1 day', now() + interval '1 day', null, null), 'an unchanged ban is not');
select ok(not auth.access_revoked(null, null, now() - interval '1 day', now() - interval '1 day'), 'an old soft delete is not');
select is((select string_agg(event_manipulation, ',' order by event_manipulation) from information_schema.triggers
            where event_object_schema = 'auth' and event_object_table = 'users' and trigger_name = 'access_revoked'), 'DELETE,UPDATE',
  'the trigger fires on updates and deletions of auth.users');

select * from finish();
rollback;
