-- Advisors (sql/0101): each lint finds its case and offers a fix that works;
-- the platform's own schemas are left out.
begin;
select plan(6);

create table public.a67 (id int primary key, user_id uuid references auth.users);
create table public.b67 (id int primary key, a int references public.a67);
alter table public.a67 enable row level security;
create policy per_row on public.a67 for select using (auth.uid() = user_id);
create policy once on public.b67 for select using ((select auth.uid()) is not null);
alter table public.b67 enable row level security;
create index b67_a_1 on public.b67 (a);
create index b67_a_2 on public.b67 (a);
create function public.f67() returns int language sql security definer as 'select 1';

select ok(exists (select 1 from jsonb_array_elements(studio.advisors()) l where l ->> 'name' = 'unindexed_foreign_key' and l ->> 'fix' = 'create index on public.a67 (user_id);'), 'a foreign key without an index');
select ok(exists (select 1 from jsonb_array_elements(studio.advisors()) l where l ->> 'name' = 'auth_call_per_row' and l ->> 'object' = 'public.a67: per_row'), 'a policy calling auth.uid() per row');
select ok(not exists (select 1 from jsonb_array_elements(studio.advisors()) l where l ->> 'name' = 'auth_call_per_row' and l ->> 'object' = 'public.b67: once'), 'not one that wraps it in a select');
select ok(exists (select 1 from jsonb_array_elements(studio.advisors()) l where l ->> 'name' = 'duplicate_index' and l ->> 'object' = 'public.b67_a_2'), 'a duplicate index');
select ok(exists (select 1 from jsonb_array_elements(studio.advisors()) l where l ->> 'name' = 'security_definer_search_path' and l ->> 'object' = 'public.f67()'), 'a security definer without search_path');
select lives_ok((select string_agg(l ->> 'fix', E'\n') from jsonb_array_elements(studio.advisors()) l where l ->> 'object' like 'public.%67%' and l ->> 'name' <> 'unused_index'), 'every fix runs');

select * from finish();
rollback;
