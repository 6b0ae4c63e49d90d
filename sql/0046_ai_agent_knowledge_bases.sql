-- AI surface: knowledge bases assigned to agents (spec 4.9, 2.9). An
-- assigned knowledge base is a search tool of the agent's, named after the
-- knowledge base; what it retrieved is kept as the answer's retrieved_context.
--
--   1. ai.agent_knowledge_bases    the assignments, read and changed as the agent is
--   2. ai.assign_knowledge_base    404 unless the caller may change the agent and read the
--                                  knowledge base; 409 when it is assigned already
--   3. ai.kb_tool_name             the tool's name: the knowledge base's name as function names allow

create table ai.agent_knowledge_bases (
  id uuid primary key default gen_random_uuid(),
  agent_id uuid not null references ai.agents on delete cascade,
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  created_at timestamptz not null default now(),
  unique (agent_id, kb_id)
);
create index agent_knowledge_bases_kb on ai.agent_knowledge_bases (kb_id);
alter table ai.agent_knowledge_bases enable row level security;
create policy agent_knowledge_bases_read on ai.agent_knowledge_bases for select to authenticated using (exists (select 1 from ai.agents a where a.id = agent_id));
create policy agent_knowledge_bases_delete on ai.agent_knowledge_bases for delete to authenticated
  using (exists (select 1 from ai.agents a where a.id = agent_id and ai.owns(a.owner_id)));
grant select, delete on ai.agent_knowledge_bases to authenticated;
grant select, insert, update, delete on ai.agent_knowledge_bases to service_role;

create or replace function ai.assign_knowledge_base(p_agent uuid, p_kb uuid) returns ai.agent_knowledge_bases
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  a ai.agent_knowledge_bases;
begin
  if not exists (select 1 from ai.agents g where g.id = p_agent and (ai.owns(g.owner_id) or auth.role() = 'service_role')) then
    perform auth.raise_error(404, 'NOT_FOUND', 'Agent not found');
  end if;
  perform ai.kb_readable(p_kb);
  insert into ai.agent_knowledge_bases (agent_id, kb_id) values (p_agent, p_kb) on conflict (agent_id, kb_id) do nothing returning * into a;
  if not found then perform auth.raise_error(409, 'CONFLICT', 'This knowledge base is already assigned to the agent'); end if;
  return a;
end
$$;
revoke execute on function ai.assign_knowledge_base(uuid, uuid) from public;
grant execute on function ai.assign_knowledge_base(uuid, uuid) to authenticated, service_role;

create or replace function ai.kb_tool_name(p_name text) returns text
language sql immutable
set search_path = ''
as $$ select left(coalesce(nullif(trim(both '_' from regexp_replace(p_name, '[^a-zA-Z0-9_-]+', '_', 'g')), ''), 'knowledge_base'), 64) $$;
revoke execute on function ai.kb_tool_name(text) from public;
grant execute on function ai.kb_tool_name(text) to authenticated, service_role;
