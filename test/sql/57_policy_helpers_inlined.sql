-- The policy helpers are inlined by the planner (sql/0089): a policy using
-- ai.can_read, or storage.foldername and storage.extension, becomes a
-- plain condition on the row, which an index can serve, instead of a
-- function call per row; the helpers bind their names when created (no
-- SET clause) and answer as before.
begin;
select plan(12);

select is((select count(*)::int from pg_proc p join pg_namespace n on n.oid = p.pronamespace
            where (n.nspname, p.proname) in (('ai', 'owns'), ('ai', 'can_read'), ('storage', 'foldername'), ('storage', 'filename'), ('storage', 'extension'))
              and p.proconfig is null and p.prosqlbody is not null and not p.prosecdef), 5,
  'the five helpers have SQL-standard bodies, no SET clause, and run as the caller');

create function pg_temp.plan_of(q text) returns text language plpgsql as $$
declare
  line text;
  out text := '';
begin
  for line in execute 'explain ' || q loop
    out := out || line || E'\n';
  end loop;
  return out;
end $$;
grant execute on function pg_temp.plan_of(text) to authenticated;

insert into auth.users (id, email) values ('00000000-0000-4000-8000-000000000571', 'p571@example.com');
insert into ai.agents (name, owner_id) select 'agent ' || n, case when n % 2 = 0 then '00000000-0000-4000-8000-000000000571'::uuid end from generate_series(1, 10) n;
insert into storage.buckets (id, name) values ('b57', 'b57');
insert into storage.objects (bucket_id, name) values
  ('b57', '00000000-0000-4000-8000-000000000571/a.png'), ('b57', '00000000-0000-4000-8000-000000000571/b.txt'), ('b57', 'someone-else/c.png');
create policy own_pngs on storage.objects for select to authenticated
  using (bucket_id = 'b57' and (storage.foldername(name))[1] = auth.uid()::text and storage.extension(name) = 'png');

select tests.authenticate_as('00000000-0000-4000-8000-000000000571');
select unalike(pg_temp.plan_of('select * from ai.agents'), '%can_read%', 'the agents'' read policy is inlined: no call of ai.can_read per row');
select alike(pg_temp.plan_of('select * from ai.agents'), '%owner_id%', '... it is a condition on owner_id');
select unalike(pg_temp.plan_of('select * from storage.objects'), '%foldername%', 'a storage policy''s storage.foldername is inlined');
select unalike(pg_temp.plan_of('select * from storage.objects'), '%storage.extension%', '... and storage.extension');
select is((select count(*)::int from ai.agents where name like 'agent %'), 10, 'the caller reads its own agents and the project''s');
select results_eq($$ select name from storage.objects where bucket_id = 'b57' $$, $$ values ('00000000-0000-4000-8000-000000000571/a.png') $$,
  'the storage policy lets the owner see its own PNG only');
select is(array[ai.owns('00000000-0000-4000-8000-000000000571'), ai.owns(null), ai.can_read(null), ai.can_read('00000000-0000-4000-8000-000000000572')],
  array[true, false, true, false], 'owns: only one''s own; can_read: one''s own and the project''s');
reset role;

select is(storage.foldername('a/b/c.png'), array['a', 'b'], 'foldername: every segment but the last');
select is(storage.foldername('c.png'), '{}'::text[], 'foldername of a name at the top: none');
select is(storage.filename('a/b/c.png'), 'c.png', 'filename: the last segment');
select is(array[storage.extension('a/b.tar.gz'), storage.extension('a/b'), storage.extension('a.d/b')], array['gz', '', ''], 'extension: after the file name''s last dot, or empty');

select * from finish();
rollback;
