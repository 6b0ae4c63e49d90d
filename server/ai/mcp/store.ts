// What the MCP server offers a caller, read in SQL as that caller (the
// access model decides: their own resources and the project's): deployed
// workflows with their active version's starter config, agents, and
// knowledge bases.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AgentRow } from '../agents/store.ts';
import type { AiCalls } from '../calls.ts';

export type DeployedWorkflow = { id: string; name: string; description: string | null; starter: Record<string, unknown> | null };
export type KnowledgeBaseRef = { id: string; name: string; description: string | null };

export function mcpStore(calls: AiCalls) {
  return {
    /** Deployed workflows, each with its active version's starter block config (null when it has none). */
    workflows: (caller: RequestContext) => calls.as<DeployedWorkflow>(caller,
      `select w.id, w.name, w.description,
              (select b -> 'config' from jsonb_array_elements(v.graph -> 'blocks') b where b ->> 'type' = 'starter' limit 1) as starter
         from ai.workflows w join ai.workflow_versions v on v.workflow_id = w.id and v.version = w.active_version
        where w.deployed order by w.created_at, w.id`, []),
    agents: (caller: RequestContext) => calls.as<AgentRow>(caller,
      'select id, owner_id, name, model, system_prompt, settings, created_at, updated_at from ai.agents order by created_at, id', []),
    knowledgeBases: (caller: RequestContext) => calls.as<KnowledgeBaseRef>(caller,
      'select id, name, description from ai.knowledge_bases order by created_at, id', []),
  };
}

export type McpStore = ReturnType<typeof mcpStore>;
