// What a run needs of its agent before its first model call, read as the
// caller in one statement: its enabled hooks, its tool assignments (with the
// custom tools and sub-agents the caller can see), its knowledge bases, and
// whether it has enabled MCP servers (their headers are the server's to
// decrypt: mcp-client.ts reads them only then). A run's setup was four
// statements; on a fast model each statement costs about as much as the
// model call (bench/RESULTS.md, durable runs). A run a route starts reads it
// with the agent itself (agentForRun).
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import type { HookRow } from './hook-runner.ts';
import { AGENT, type AgentRow } from './store.ts';

export type ToolRow = {
  tool_id: string | null; tool_name: string; tool_type: 'builtin' | 'custom' | 'agent'; config_override: Record<string, unknown>;
  description: string | null; input_schema: Record<string, unknown> | null; config: Record<string, unknown> | null; sub: AgentRow | null;
};
export type KbRow = { id: string; name: string; description: string | null; tool_name: string };
export type AgentSetup = { hooks: HookRow[]; tools: ToolRow[]; kbs: KbRow[]; mcp: boolean };

const SETUP = `
    coalesce((select json_agg(json_build_object('id', h.id, 'event', h.event, 'type', h.type, 'config', h.config, 'matcher', h.matcher, 'position', h.position)
                order by h.position, h.created_at, h.id) from ai.agent_hooks h where h.agent_id = $1 and h.enabled), '[]') as hooks,
    coalesce((select json_agg(json_build_object('tool_id', t.id, 'tool_name', a.tool_name, 'tool_type', a.tool_type, 'config_override', a.config_override,
                'description', t.description, 'input_schema', t.input_schema, 'config', t.config,
                'sub', case when s.id is null then null else json_build_object('id', s.id, 'name', s.name, 'model', s.model, 'system_prompt', s.system_prompt, 'settings', s.settings) end)
                order by a.created_at, a.id)
       from ai.agent_tools a left join ai.tools t on t.id = a.tool_id left join ai.agents s on s.id = a.sub_agent_id where a.agent_id = $1), '[]') as tools,
    coalesce((select json_agg(json_build_object('id', k.id, 'name', k.name, 'description', k.description, 'tool_name', ai.kb_tool_name(k.name)) order by a.created_at, a.id)
       from ai.agent_knowledge_bases a join ai.knowledge_bases k on k.id = a.kb_id where a.agent_id = $1), '[]') as kbs,
    exists (select 1 from ai.agent_mcp_servers m where m.agent_id = $1 and m.enabled) as mcp`;

export const agentSetup = (calls: AiCalls) => async (caller: RequestContext, agentId: string): Promise<AgentSetup> =>
  (await calls.as<AgentSetup>(caller, `select ${SETUP}`, [agentId]))[0]!;

/**
 * The agent a run starts with and its setup, in the same one statement (a
 * route reads the agent to answer 404 before a run begins): none when the
 * caller cannot see it.
 */
export const agentForRun = (calls: AiCalls) => async (caller: RequestContext, agentId: string): Promise<{ agent: AgentRow; setup: AgentSetup } | undefined> => {
  const [row] = await calls.as<AgentRow & AgentSetup>(caller,
    `select ${AGENT}, ${SETUP} from ai.agents where id = $1`, [agentId]);
  if (!row) return undefined;
  const { hooks, tools, kbs, mcp, ...agent } = row;
  return { agent, setup: { hooks, tools, kbs, mcp } };
};
