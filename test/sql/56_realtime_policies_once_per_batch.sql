-- realtime.route_changes computes each subscriber role's policies once per
-- batch of changes, however many subscribers share that role (sql/0087: a
-- nested loop had run them again for every subscriber), and still gives
-- each subscriber only the rows its policies let it see.
begin;
select plan(4);
set local track_functions = 'all';

create table public.notes56 (id int primary key, owner uuid not null, body text);
alter table public.notes56 enable row level security;
create policy own_notes on public.notes56 for select to authenticated using (auth.uid() = owner);
alter publication supabase_realtime add table public.notes56;
insert into realtime.nodes (id) values ('00000000-0000-4000-8000-000000000056');
select count(*) from (
  select realtime.subscribe('00000000-0000-4000-8000-000000000056', 'u' || n, 'u' || n || '/1',
           jsonb_build_object('role', 'authenticated', 'sub', format('00000000-0000-4000-8000-%s', lpad(n::text, 12, '0'))),
           '[{"event": "*", "schema": "public", "table": "notes56"}]')
    from generate_series(1, 5) n
  union all
  select realtime.subscribe('00000000-0000-4000-8000-000000000056', 'svc', 'svc/1', '{"role": "service_role"}', '[{"event": "*", "schema": "public", "table": "notes56"}]')
) s;

create temp table before56 as
  select funcname, calls from pg_stat_xact_user_functions where schemaname = 'realtime' and funcname in ('policy_expr', 'hoist_context_calls', 'become');
create temp table routed56 as
  select s.channel
    from realtime.route_changes('00000000-0000-4000-8000-000000000056', '[
      {"schema": "public", "table": "notes56", "type": "INSERT", "commit_timestamp": "2026-01-01T00:00:00Z",
       "record": {"id": 1, "owner": "00000000-0000-4000-8000-000000000003", "body": "hi"}, "old_record": null}]') r
    cross join lateral unnest(r.subscription_ids) sid
    join realtime.subscription s on s.id = sid;

create function pg_temp.calls56(f text) returns int language sql as $$
  select (select coalesce(sum(calls), 0) from pg_stat_xact_user_functions where schemaname = 'realtime' and funcname = f)::int
       - coalesce((select sum(calls)::int from before56 where funcname = f), 0) $$;
select is(pg_temp.calls56('policy_expr'), 2, 'the policies of each of the two roles, once, for six subscribers');
select is(pg_temp.calls56('hoist_context_calls'), 2, 'their context calls hoisted once per role too');
select cmp_ok(pg_temp.calls56('become'), '>=', 6, 'each subscriber''s rows checked as that subscriber');
select results_eq($$ select channel from routed56 order by channel $$, $$ values ('svc/1'), ('u3/1') $$, 'the owner and the service role see the row; no one else');

select * from finish();
rollback;
