-- A table a DBA creates in public is reachable through the API roles as on
-- Supabase, and row-level security is what draws the line.
begin;
select plan(9);

create table public.notes (
  id bigint generated always as identity primary key,
  owner uuid not null,
  body text not null
);
insert into public.notes (owner, body) values
  ('11111111-1111-1111-1111-111111111111', 'ada''s note'),
  ('22222222-2222-2222-2222-222222222222', 'bob''s note');

select ok(has_table_privilege('anon', 'public.notes', 'select'), 'anon may select a new public table by default');
select ok(has_table_privilege('authenticated', 'public.notes', 'insert'), 'authenticated may insert into a new public table by default');
select ok(has_sequence_privilege('authenticated', (select pg_get_serial_sequence('public.notes', 'id')), 'usage'), 'its identity sequence is usable too');

select tests.authenticate_as_anon();
select is((select count(*) from public.notes), 2::bigint, 'without row-level security anon reads every row, as on Supabase');
select tests.clear_authentication();

alter table public.notes enable row level security;
create policy "owners read their notes" on public.notes for select to authenticated using (auth.uid() = owner);
create policy "owners write their notes" on public.notes for insert to authenticated with check (auth.uid() = owner);

select tests.authenticate_as('11111111-1111-1111-1111-111111111111');
select results_eq('select body from public.notes', $$values ('ada''s note')$$, 'a user sees only the rows the policy gives them');
select throws_ok(
  $$insert into public.notes (owner, body) values ('22222222-2222-2222-2222-222222222222', 'forged')$$,
  '42501', null, 'a user cannot insert a row for somebody else');
select lives_ok($$insert into public.notes (owner, body) values ('11111111-1111-1111-1111-111111111111', 'mine')$$, 'a user can insert their own row');

select tests.authenticate_as_anon();
select is((select count(*) from public.notes), 0::bigint, 'with row-level security and no anon policy, anon reads nothing');

select tests.authenticate_as_service_role();
select is((select count(*) from public.notes), 3::bigint, 'service_role bypasses row-level security');

select * from finish();
rollback;
