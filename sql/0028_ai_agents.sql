-- AI surface: agents and their tool assignments (spec 2.3b, 4.9).
--
--   1. ai.agents                    owned per the access model; tuning lives in `settings`
--   2. ai.agent_tools               builtin or custom tools assigned to an agent
--   3. ai.check_database_override   the config_override rule of database_query / database_write
--
-- An agent's attachments are read and changed as the agent is.

create table ai.agents (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  name text not null check (name <> ''),
  model text,
  system_prompt text,
  settings jsonb not null default '{}' check (jsonb_typeof(settings) = 'object'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index agents_owner on ai.agents (owner_id);
alter table ai.agents enable row level security;
create policy agents_read on ai.agents for select to authenticated using (ai.can_read(owner_id));
create policy agents_insert on ai.agents for insert to authenticated with check (ai.owns(owner_id));
create policy agents_update on ai.agents for update to authenticated using (ai.owns(owner_id)) with check (ai.owns(owner_id));
create policy agents_delete on ai.agents for delete to authenticated using (ai.owns(owner_id));
grant select, insert, update, delete on ai.agents to authenticated, service_role;
create trigger agents_touch before update on ai.agents for each row execute function ai.touch();

create table ai.agent_tools (
  id uuid primary key default gen_random_uuid(),
  agent_id uuid not null references ai.agents on delete cascade,
  tool_name text not null,
  tool_type text not null check (tool_type in ('builtin', 'custom')),
  -- A custom tool's row (its config drives it); null for a builtin.
  tool_id uuid references ai.tools on delete cascade,
  config_override jsonb not null default '{}' check (jsonb_typeof(config_override) = 'object'),
  created_at timestamptz not null default now(),
  unique (agent_id, tool_name),
  check ((tool_type = 'custom') = (tool_id is not null))
);
alter table ai.agent_tools enable row level security;
create policy agent_tools_read on ai.agent_tools for select to authenticated using (exists (select 1 from ai.agents a where a.id = agent_id));
create policy agent_tools_write on ai.agent_tools for all to authenticated
  using (exists (select 1 from ai.agents a where a.id = agent_id and ai.owns(a.owner_id)))
  with check (exists (select 1 from ai.agents a where a.id = agent_id and ai.owns(a.owner_id)));
grant select, insert, update, delete on ai.agent_tools to authenticated, service_role;

-- The config_override of database_query and database_write: {schemas: {schema:
-- [table, ...]}}. Schema names match ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$ and are not
-- system schemas (ai, auth, storage, realtime, extensions, graphql,
-- information_schema, pg_*); table names are identifiers of up to 63
-- characters (Postgres's own limit). Answers the override to store (only
-- `schemas` is kept); a broken rule is a 400 naming it.
create or replace function ai.check_database_override(p_override jsonb) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
declare
  s record;
  t jsonb;
begin
  if not (p_override ? 'schemas') then return '{}'; end if;
  if jsonb_typeof(p_override -> 'schemas') <> 'object' then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'config_override.schemas must map schema names to lists of table names');
  end if;
  for s in select e.key, e.value from jsonb_each(p_override -> 'schemas') e loop
    if s.key !~ '^[a-zA-Z_][a-zA-Z0-9_]{0,63}$' or length(s.key) > 63 then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('Invalid schema name "%s"', s.key));
    end if;
    if lower(s.key) in ('ai', 'auth', 'storage', 'realtime', 'extensions', 'graphql', 'graphql_public', 'information_schema', 'platform', 'graphile_worker')
       or lower(s.key) like 'pg\_%' then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('Schema "%s" is a system schema and cannot be exposed to an agent', s.key));
    end if;
    if jsonb_typeof(s.value) <> 'array' then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('config_override.schemas.%s must be a list of table names', s.key));
    end if;
    for t in select x from jsonb_array_elements(s.value) x loop
      if jsonb_typeof(t) <> 'string' or (t #>> '{}') !~ '^[a-zA-Z_][a-zA-Z0-9_$]{0,62}$' then
        perform auth.raise_error(400, 'VALIDATION_ERROR', format('Invalid table name %s in schema "%s"', t, s.key));
      end if;
    end loop;
  end loop;
  return jsonb_build_object('schemas', p_override -> 'schemas');
end
$$;
grant execute on function ai.check_database_override(jsonb) to authenticated, service_role;
