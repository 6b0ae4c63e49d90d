// What the MCP server offers a caller, read in SQL as that caller (the
// access model decides: their own resources and the project's): deployed
// workflows with their active version's starter config, agents, and
// knowledge bases, and (as resources) the sources in those knowledge bases.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AgentRow } from '../agents/store.ts';
import type { AiCalls } from '../calls.ts';

export type DeployedWorkflow = { id: string; name: string; description: string | null; starter: Record<string, unknown> | null };
export type KnowledgeBaseRef = { id: string; name: string; description: string | null };
export type KnowledgeBaseSource = { kb_id: string; kb_name: string; source_id: string; name: string; extension: string };

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
    /** The extracted sources of the knowledge bases the caller can see, each once per knowledge base. */
    knowledgeBaseSources: (caller: RequestContext) => calls.as<KnowledgeBaseSource>(caller,
      `select k.id as kb_id, k.name as kb_name, s.id as source_id, s.name, s.extension
         from ai.kb_sources ks join ai.knowledge_bases k on k.id = ks.kb_id join ai.sources s on s.id = ks.source_id
        where s.extraction_status in ('extracted', 'attention_required')
        order by k.created_at, k.id, ks.created_at, ks.id limit 1000`, []),
    /** Where a source's extracted markdown is stored, if the caller may read the source and it is in that knowledge base. */
    markdownPath: async (caller: RequestContext, kbId: string, sourceId: string): Promise<string | undefined> =>
      (await calls.as<{ object_path: string }>(caller,
        `select d.object_path from ai.source_derivatives d join ai.kb_sources ks on ks.source_id = d.source_id and ks.kb_id = $1
          where d.source_id = $2 and d.kind = 'markdown' and d.idx = 0`, [kbId, sourceId]))[0]?.object_path,
    /** Of these users, those who still have access: not banned now, not deleted (sql/0095 says when one loses it). */
    usersWithAccess: async (userIds: string[]): Promise<string[]> =>
      (await calls.asService<{ id: string }>(
        'select id from auth.users where id = any($1::uuid[]) and deleted_at is null and (banned_until is null or banned_until <= now())', [userIds])).map((r) => r.id),
  };
}

export type McpStore = ReturnType<typeof mcpStore>;
