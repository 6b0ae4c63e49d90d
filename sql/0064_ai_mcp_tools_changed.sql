-- The MCP server (/api/mcp, server/ai/mcp/) offers deployed workflows,
-- agents and knowledge-base searches as tools. When what it offers may have
-- changed (a workflow deployed or undeployed, renamed or removed; an agent
-- or knowledge base made, renamed or removed), every process is told after
-- commit through NOTIFY ai_tools_changed, and tells its MCP sessions
-- (notifications/tools/list_changed). The payload is empty: each session
-- lists its own tools again as its caller.
--
-- Contents
--   1. ai.notify_tools_changed   the trigger function
--   2. its triggers on ai.workflows, ai.agents, ai.knowledge_bases

-- 1 ---------------------------------------------------------------------------
create or replace function ai.notify_tools_changed() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform pg_notify('ai_tools_changed', '');
  return null;
end
$$;
revoke execute on function ai.notify_tools_changed() from public;

-- 2 ---------------------------------------------------------------------------
-- Statement-level: one notice per statement, however many rows it touched.
create trigger workflows_tools_changed after insert or delete or update of deployed, active_version, name, description on ai.workflows
  for each statement execute function ai.notify_tools_changed();
create trigger agents_tools_changed after insert or delete or update of name, system_prompt on ai.agents
  for each statement execute function ai.notify_tools_changed();
create trigger knowledge_bases_tools_changed after insert or delete or update of name, description on ai.knowledge_bases
  for each statement execute function ai.notify_tools_changed();
