-- Every foreign key whose referenced rows can be deleted (on delete cascade
-- or set null) has an index leading with its columns (sql/0093): otherwise
-- each deleted row makes PostgreSQL read the referencing table whole. A
-- new table with such a key needs its index in the same migration.
begin;
select plan(3);

select is_empty($$
  select c.conrelid::regclass::text || ' (' || (select string_agg(a.attname, ', ') from unnest(c.conkey) k join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k) || ')'
    from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
   where c.contype = 'f' and c.confdeltype in ('c', 'n')
     and n.nspname in ('ai', 'auth', 'storage', 'realtime', 'platform')
     and not exists (select 1 from pg_index i where i.indrelid = c.conrelid and (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] = c.conkey)
$$, 'every foreign key deleted rows reach has an index leading with its columns');

-- A run's messages are read by their run (GET of a run, a worker's answer, a resume), not by reading every session's.
create function pg_temp.plan_of(q text) returns text language plpgsql as $fn$
declare
  line text;
  plan text := '';
begin
  for line in execute 'explain ' || q loop
    plan := plan || line || ' ';
  end loop;
  return plan;
end
$fn$;
select alike(pg_temp.plan_of($$select m.id from ai.session_messages m where m.run_id = '00000000-0000-0000-0000-000000000001' order by m.id$$),
  '%session_messages_run%', 'an agent run''s messages by the run''s index');
select alike(pg_temp.plan_of($$select m.id from ai.session_messages m where m.orchestration_run_id = '00000000-0000-0000-0000-000000000001' order by m.id$$),
  '%session_messages_orchestration_run%', 'an orchestration run''s likewise');

select * from finish();
rollback;
