-- AI surface: orchestrations, their entities and hooks (spec 2.4b, 4.10).
--
--   1. ai.orchestrations        owned per the access model; a coordinator model and prompt
--   2. ai.orchestration_entities members (only `agent` entities run; others are kept and skipped)
--   3. ai.orchestration_hooks   stored and listed, never fired (as the spec says)
--
-- Entities and hooks are read and changed as their orchestration is.

create table ai.orchestrations (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  name text not null check (name <> '' and length(name) <= 200),
  -- How the coordinator works; values beyond `coordinator` are kept as given (spec: not shown).
  strategy text not null default 'coordinator' check (strategy <> '' and length(strategy) <= 50),
  -- The coordinator: its model (passed to the router unchanged), prompt and tuning.
  model text,
  system_prompt text,
  settings jsonb not null default '{}' check (jsonb_typeof(settings) = 'object'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index orchestrations_owner on ai.orchestrations (owner_id);
alter table ai.orchestrations enable row level security;
create policy orchestrations_read on ai.orchestrations for select to authenticated using (ai.can_read(owner_id));
create policy orchestrations_insert on ai.orchestrations for insert to authenticated with check (ai.owns(owner_id));
create policy orchestrations_update on ai.orchestrations for update to authenticated using (ai.owns(owner_id)) with check (ai.owns(owner_id));
create policy orchestrations_delete on ai.orchestrations for delete to authenticated using (ai.owns(owner_id));
grant select, insert, update, delete on ai.orchestrations to authenticated, service_role;
create trigger orchestrations_touch before update on ai.orchestrations for each row execute function ai.touch();

-- Whether the caller may change this orchestration's members and hooks.
create or replace function ai.owns_orchestration(p_orchestration uuid) returns boolean
language sql stable
set search_path = ''
as $$ select exists (select 1 from ai.orchestrations o where o.id = p_orchestration and ai.owns(o.owner_id)) $$;
revoke execute on function ai.owns_orchestration(uuid) from public;
grant execute on function ai.owns_orchestration(uuid) to authenticated, service_role;

create table ai.orchestration_entities (
  id uuid primary key default gen_random_uuid(),
  orchestration_id uuid not null references ai.orchestrations on delete cascade,
  entity_type text not null check (entity_type <> '' and length(entity_type) <= 50),
  -- An agent's id for `agent` entities; other types' references are kept as given.
  entity_ref_id text not null check (entity_ref_id <> ''),
  role_description text,
  config jsonb not null default '{}' check (jsonb_typeof(config) = 'object'),
  position int not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index orchestration_entities_order on ai.orchestration_entities (orchestration_id, position, created_at);
alter table ai.orchestration_entities enable row level security;
create policy orchestration_entities_read on ai.orchestration_entities for select to authenticated
  using (exists (select 1 from ai.orchestrations o where o.id = orchestration_id));
create policy orchestration_entities_write on ai.orchestration_entities for all to authenticated
  using (ai.owns_orchestration(orchestration_id)) with check (ai.owns_orchestration(orchestration_id));
grant select, delete on ai.orchestration_entities to authenticated, service_role;
-- Once made, only role_description, config and position change (spec 4.10).
grant insert (id, orchestration_id, entity_type, entity_ref_id, role_description, config, position),
  update (role_description, config, position) on ai.orchestration_entities to authenticated;
grant insert, update on ai.orchestration_entities to service_role;
create trigger orchestration_entities_touch before update on ai.orchestration_entities for each row execute function ai.touch();

create table ai.orchestration_hooks (
  id uuid primary key default gen_random_uuid(),
  orchestration_id uuid not null references ai.orchestrations on delete cascade,
  event text not null check (event <> '' and length(event) <= 100),
  type text not null check (type in ('http', 'rule', 'approval')),
  config jsonb not null check (jsonb_typeof(config) = 'object'),
  matcher text,
  enabled boolean not null default true,
  position int not null default 0,
  created_at timestamptz not null default now()
);
create index orchestration_hooks_order on ai.orchestration_hooks (orchestration_id, position, created_at);
alter table ai.orchestration_hooks enable row level security;
create policy orchestration_hooks_read on ai.orchestration_hooks for select to authenticated
  using (exists (select 1 from ai.orchestrations o where o.id = orchestration_id));
create policy orchestration_hooks_insert on ai.orchestration_hooks for insert to authenticated with check (ai.owns_orchestration(orchestration_id));
create policy orchestration_hooks_delete on ai.orchestration_hooks for delete to authenticated using (ai.owns_orchestration(orchestration_id));
-- Immutable, as agent hooks are.
grant select, insert, delete on ai.orchestration_hooks to authenticated, service_role;
