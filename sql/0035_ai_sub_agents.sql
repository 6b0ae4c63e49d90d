-- AI surface: sub-agents, an agent assigned to another as a tool (beyond the
-- spec: ai-design.md lets a standalone agent delegate, so OnDelegation can fire).
--
-- An assignment of tool_type 'agent' names the sub-agent (sub_agent_id); the
-- caller must be able to see it, and an agent cannot be its own sub-agent.

alter table ai.agent_tools drop constraint agent_tools_tool_type_check;
alter table ai.agent_tools add constraint agent_tools_tool_type_check check (tool_type in ('builtin', 'custom', 'agent'));
alter table ai.agent_tools add column sub_agent_id uuid references ai.agents on delete cascade;
alter table ai.agent_tools drop constraint agent_tools_check;
alter table ai.agent_tools add constraint agent_tools_target check (
  (tool_type = 'custom') = (tool_id is not null)
  and (tool_type = 'agent') = (sub_agent_id is not null)
  and sub_agent_id is distinct from agent_id
);

drop policy agent_tools_write on ai.agent_tools;
create policy agent_tools_write on ai.agent_tools for all to authenticated
  using (exists (select 1 from ai.agents a where a.id = agent_id and ai.owns(a.owner_id)))
  with check (
    exists (select 1 from ai.agents a where a.id = agent_id and ai.owns(a.owner_id))
    -- A sub-agent must be one the caller can see (the agents policies decide).
    and (sub_agent_id is null or exists (select 1 from ai.agents s where s.id = sub_agent_id))
  );
