-- Capture follows the publication, subscriptions are validated, and
-- realtime.route_changes gives each change to the subscribers whose policies
-- and filters let them see it, shaped by the replica identity.
begin;
select plan(18);

create table public.tasks (id int primary key, owner uuid not null, title text, done boolean default false);
alter table public.tasks enable row level security;
create policy own_tasks on public.tasks for select to authenticated using (auth.uid() = owner);

select is((select count(*)::int from pg_trigger where tgrelid = 'public.tasks'::regclass and tgname = 'realtime_capture'), 0, 'a table outside the publication has no capture trigger');
alter publication supabase_realtime add table public.tasks;
select is((select count(*)::int from pg_trigger where tgrelid = 'public.tasks'::regclass and tgname = 'realtime_capture'), 1, 'adding it to supabase_realtime adds the capture trigger');

insert into realtime.nodes (id) values ('00000000-0000-4000-8000-000000000001');
select is(
  (select array_agg(id) from realtime.subscribe('00000000-0000-4000-8000-000000000001', 'ann', 'ann/1', '{"role": "authenticated", "sub": "11111111-1111-4111-8111-111111111111"}',
    '[{"event": "*", "schema": "public", "table": "tasks"}, {"event": "INSERT", "schema": "public", "table": "tasks", "filter": "title=eq.urgent"}]') s(id)) is not null,
  true, 'ann subscribes to all changes and to urgent inserts');
select lives_ok($$select realtime.subscribe('00000000-0000-4000-8000-000000000001', 'bob', 'bob/1', '{"role": "authenticated", "sub": "22222222-2222-4222-8222-222222222222"}',
  '[{"event": "*", "schema": "public", "table": "tasks"}]')$$, 'bob subscribes to all changes');
select throws_ok($$select realtime.subscribe('00000000-0000-4000-8000-000000000001', 'x', 'x/1', '{"role": "authenticated"}', '[{"event": "*", "schema": "public", "table": "tasks", "filter": "done=eq.maybe"}]')$$,
  '22023', null, 'a filter value that is not of the column''s type is refused');
select throws_ok($$select realtime.subscribe('00000000-0000-4000-8000-000000000001', 'x', 'x/1', '{"role": "authenticated"}', '[{"event": "*", "schema": "public", "table": "tasks", "filter": "nope=eq.1"}]')$$,
  '22023', 'column "nope" does not exist in public.tasks', 'a filter on an unknown column is refused');
select throws_ok($$select realtime.subscribe('00000000-0000-4000-8000-000000000001', 'x', 'x/1', '{"role": "authenticated"}', '[{"event": "TRUNCATE", "schema": "public", "table": "tasks"}]')$$,
  '22023', 'event must be INSERT, UPDATE, DELETE or *, got "TRUNCATE"', 'an unknown event is refused');
select is((select count(*)::int from realtime.subscription where channel = 'x/1'), 0, 'a refused subscription adds nothing');
select is((select filter_sql from realtime.subscription where channel = 'ann/1' and filter is not null), $$title = 'urgent'$$,
  'the filter is kept as the client sent it and as a condition on the row');
-- The service role: every row, one binding per schema (no table) and one with an ordering filter.
select lives_ok($$select realtime.subscribe('00000000-0000-4000-8000-000000000001', 'svc', 'svc/1', '{"role": "service_role"}',
  '[{"event": "DELETE", "schema": "public"}, {"event": "*", "schema": "public", "table": "tasks", "filter": "id=gt.1"}]')$$,
  'a subscription to a whole schema and one with a gt filter');

create temp table routed as
  select r.change, s.channel, r.record, r.old_record
    from realtime.route_changes('00000000-0000-4000-8000-000000000001', '[
      {"schema": "public", "table": "tasks", "type": "INSERT", "commit_timestamp": "2026-01-01T00:00:00Z", "record": {"id": 1, "owner": "11111111-1111-4111-8111-111111111111", "title": "urgent", "done": false}, "old_record": null},
      {"schema": "public", "table": "tasks", "type": "INSERT", "commit_timestamp": "2026-01-01T00:00:00Z", "record": {"id": 2, "owner": "22222222-2222-4222-8222-222222222222", "title": "later", "done": false}, "old_record": null},
      {"schema": "public", "table": "tasks", "type": "UPDATE", "commit_timestamp": "2026-01-01T00:00:00Z", "record": {"id": 1, "owner": "11111111-1111-4111-8111-111111111111", "title": "urgent", "done": true}, "old_record": {"id": 1, "owner": "11111111-1111-4111-8111-111111111111", "title": "urgent", "done": false}},
      {"schema": "public", "table": "tasks", "type": "DELETE", "commit_timestamp": "2026-01-01T00:00:00Z", "record": null, "old_record": {"id": 2, "owner": "22222222-2222-4222-8222-222222222222", "title": "later", "done": false}}
    ]') r
    cross join lateral unnest(r.subscription_ids) sid
    join realtime.subscription s on s.id = sid;

select results_eq($$select change, count(*)::int from routed where channel = 'ann/1' group by change order by change$$,
  $$values (1, 2), (3, 1)$$, 'ann: her insert through both bindings (all, and urgent inserts), her update; none of bob''s');
select results_eq($$select change from routed where channel = 'bob/1' order by change$$, $$values (2), (4)$$,
  'bob: his insert and his delete, checked on the deleted row');
select results_eq($$select change, count(*)::int from routed where channel = 'svc/1' group by change order by change$$,
  $$values (2, 1), (4, 2)$$, 'service role: id > 1 picks rows 2 (insert) and 2 (delete); the schema-wide binding takes the delete');
select is((select old_record from routed where change = 3 limit 1), '{"id": 1, "done": false}'::jsonb, 'default replica identity: an update''s old row is the key and the changed columns');
select is((select old_record from routed where change = 4 limit 1), '{"id": 2}'::jsonb, 'default replica identity: a delete''s old row is the key');
select is(current_user::text, session_user::text, 'routing returns with the caller''s own role');

select realtime.release('00000000-0000-4000-8000-000000000001', 'bob');
select is((select count(*)::int from realtime.subscription where socket = 'bob'), 0, 'a closed socket releases its subscriptions');

alter publication supabase_realtime drop table public.tasks;
select is((select count(*)::int from pg_trigger where tgrelid = 'public.tasks'::regclass and tgname = 'realtime_capture'), 0, 'leaving the publication removes the capture trigger');

select * from finish();
rollback;
