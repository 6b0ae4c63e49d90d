-- Row changes are routed by evaluating the subscriber's SELECT policies on
-- the row image (realtime.policy_expr). It must agree with Postgres's own
-- row-level security: permissive policies OR'ed, restrictive ones AND'ed,
-- policies for other roles ignored, no policy meaning no row, bypass for
-- service_role and for tables without RLS.
begin;
select plan(13);

create table public.docs (id int primary key, owner uuid, team text, archived boolean not null default false);
insert into public.docs values
  (1, '11111111-1111-4111-8111-111111111111', 'red', false),
  (2, '11111111-1111-4111-8111-111111111111', 'blue', true),
  (3, '22222222-2222-4222-8222-222222222222', 'red', false),
  (4, '22222222-2222-4222-8222-222222222222', 'green', false),
  (5, null, 'red', false);
alter table public.docs enable row level security;
create policy owner_reads on public.docs for select to authenticated using (auth.uid() = owner);
create policy red_team_reads on public.docs for select to authenticated using (team = 'red' and auth.jwt() ->> 'team' = 'red');
create policy hide_archived on public.docs as restrictive for select to authenticated using (not archived);
create policy anon_nothing_but_5 on public.docs for select to anon using (id = 5);
create policy only_for_service on public.docs for select to service_role using (false);

-- The rows a role sees by the emulated check, from a copy without RLS, next
-- to the rows it sees by really selecting under RLS.
create temp table docs_copy as select * from public.docs;
grant select on docs_copy to anon, authenticated, service_role;
create function pg_temp.emulated(role_name name) returns int[] language plpgsql as $$
declare result int[];
begin
  execute format('select coalesce(array_agg(id order by id), ''{}'') from pg_temp.docs_copy as docs where %s',
    realtime.policy_expr('public.docs', role_name, 'select')) into result;
  return result;
end $$;
create function pg_temp.actual() returns int[] language sql as $$ select coalesce(array_agg(id order by id), '{}') from public.docs $$;

select tests.authenticate_as('11111111-1111-4111-8111-111111111111', '{"team": "red"}');
select is(pg_temp.emulated('authenticated'), pg_temp.actual(), 'ann (red team): permissive OR, restrictive AND, as RLS');
select is(pg_temp.actual(), array[1, 3, 5], 'ann sees her live row and the red team''s, not her archived one');
select tests.authenticate_as('22222222-2222-4222-8222-222222222222', '{"team": "blue"}');
select is(pg_temp.emulated('authenticated'), pg_temp.actual(), 'bob (blue team): his own rows only, as RLS');
select tests.authenticate_as_anon();
select is(pg_temp.emulated('anon'), pg_temp.actual(), 'anon: only its own policy applies, as RLS');
select tests.authenticate_as_service_role();
select is(pg_temp.emulated('service_role'), array[1, 2, 3, 4, 5], 'service_role bypasses RLS whatever its policies');
select tests.clear_authentication();

create table public.open_table (id int primary key);
select is(realtime.policy_expr('public.open_table', 'authenticated', 'select'), 'true', 'a table without RLS: every row (with the SELECT privilege)');
revoke select on public.open_table from anon;
select is(realtime.policy_expr('public.open_table', 'anon', 'select'), 'false', 'no SELECT privilege: no row');
create table public.locked (id int primary key);
alter table public.locked enable row level security;
select is(realtime.policy_expr('public.locked', 'authenticated', 'select'), 'false', 'RLS with no policy: no row');

-- Insert checks (private-channel sends) use WITH CHECK, or USING for FOR ALL policies.
create policy all_for_owner on public.locked for all to authenticated using (id = 1);
create policy insert_two on public.locked for insert to authenticated with check (id = 2);
select is(realtime.policy_expr('public.locked', 'authenticated', 'insert'), '(((id = 1)) or ((id = 2)))', 'insert: FOR ALL falls back to USING, FOR INSERT uses WITH CHECK');
select is(realtime.policy_expr('public.locked', 'authenticated', 'select'), '(((id = 1)))', 'select ignores INSERT policies');

select ok(realtime.valid_role('authenticated') and realtime.valid_role('service_role'), 'the API roles may subscribe');
select ok(not realtime.valid_role('postgres') and not realtime.valid_role('no_such_role'), 'a superuser or unknown role named in a token may not');

select is(realtime.hoist_context_calls($q$(auth.uid() = owner) and (team = 'auth.uid() it''s') and my.auth.uid() is null$q$),
  $q$((select auth.uid()) = owner) and (team = 'auth.uid() it''s') and my.auth.uid() is null$q$,
  'context calls are evaluated once per query, never inside string literals or other schemas'' functions');

select * from finish();
rollback;
