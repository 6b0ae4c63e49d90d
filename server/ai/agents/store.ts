// Agents and their tool assignments in SQL (sql/0028_ai_agents.sql), as the
// caller: the access model's policies decide what they see and change.
import type { Request } from 'express';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { ownedRows } from '../owned.ts';
import { MODEL_CALLS, TRACE_ID } from '../sessions/store.ts';
import { RUN } from '../sessions/store.ts';

export type AgentRow = { id: string; owner_id: string | null; name: string; model: string | null; system_prompt: string | null; settings: Record<string, unknown>; created_at: Date; updated_at: Date };
export type AssignmentRow = { id: string; agent_id: string; tool_name: string; tool_type: 'builtin' | 'custom' | 'agent'; tool_id: string | null; sub_agent_id: string | null; config_override: Record<string, unknown>; created_at: Date };
export type AgentFields = { name?: string | undefined; model?: string | null | undefined; system_prompt?: string | null | undefined; settings?: Record<string, unknown> | undefined };

/** An agent's columns as AgentRow has them. */
export const AGENT = 'id, owner_id, name, model, system_prompt, settings, created_at, updated_at';
const ASSIGNMENT = 'id, agent_id, tool_name, tool_type, tool_id, sub_agent_id, config_override, created_at';

export function agentStore(calls: AiCalls) {
  const { refuse, requireOwn } = ownedRows(calls, 'ai.agents', 'agents', () => aiErrors.notFound('Agent'));
  return {
    list: (req: Request) => calls.call<AgentRow>(req, `select ${AGENT} from ai.agents order by created_at desc, id`, []),
    get: async (req: Request, id: string) => {
      const [row] = await calls.call<AgentRow>(req, `select ${AGENT} from ai.agents where id = $1`, [id]);
      if (!row) throw aiErrors.notFound('Agent');
      return row;
    },
    create: async (req: Request, a: AgentFields & { name: string }) =>
      (await calls.call<AgentRow>(req, `insert into ai.agents (name, model, system_prompt, settings) values ($1, $2, $3, $4) returning ${AGENT}`,
        [a.name, a.model ?? null, a.system_prompt ?? null, JSON.stringify(a.settings ?? {})]))[0]!,
    update: async (req: Request, id: string, a: AgentFields) => {
      const [row] = await calls.call<AgentRow>(req, `update ai.agents set name = coalesce($2, name),
          model = case when $6 then $3 else model end, system_prompt = case when $7 then $4 else system_prompt end,
          settings = coalesce($5::jsonb, settings) where id = $1 returning ${AGENT}`,
        [id, a.name ?? null, a.model ?? null, a.system_prompt ?? null, a.settings === undefined ? null : JSON.stringify(a.settings), 'model' in a, 'system_prompt' in a]);
      return row ?? refuse(req, id);
    },
    remove: async (req: Request, id: string) => {
      const rows = await calls.call(req, 'delete from ai.agents where id = $1 returning id', [id]);
      if (rows.length === 0) await refuse(req, id);
    },
    requireOwn,
    /** A custom tool the caller can see, by name (the newest of that name). */
    customTool: async (req: Request, name: string) =>
      (await calls.call<{ id: string }>(req, 'select id from ai.tools where name = $1 order by created_at desc limit 1', [name]))[0],
    assignments: (req: Request, agentId: string) => calls.call<AssignmentRow>(req, `select ${ASSIGNMENT} from ai.agent_tools where agent_id = $1 order by created_at, id`, [agentId]),
    assign: async (req: Request, agentId: string, toolName: string, toolType: 'builtin' | 'custom' | 'agent', toolId: string | null, subAgentId: string | null = null) =>
      (await calls.call<AssignmentRow>(req, `insert into ai.agent_tools (agent_id, tool_name, tool_type, tool_id, sub_agent_id) values ($1, $2, $3, $4, $5) returning ${ASSIGNMENT}`,
        [agentId, toolName, toolType, toolId, subAgentId]))[0]!,
    assignment: async (req: Request, agentId: string, id: string) => {
      const [row] = await calls.call<AssignmentRow>(req, `select ${ASSIGNMENT} from ai.agent_tools where id = $1 and agent_id = $2`, [id, agentId]);
      if (!row) throw aiErrors.notFound('Tool assignment');
      return row;
    },
    /** The database tools' override, checked and trimmed in SQL (ai.check_database_override). */
    checkDatabaseOverride: async (req: Request, override: Record<string, unknown>) =>
      (await calls.call<{ checked: Record<string, unknown> }>(req, 'select ai.check_database_override($1) as checked', [JSON.stringify(override)]))[0]!.checked,
    setOverride: async (req: Request, agentId: string, id: string, override: Record<string, unknown>) =>
      (await calls.call<AssignmentRow>(req, `update ai.agent_tools set config_override = $3 where id = $1 and agent_id = $2 returning ${ASSIGNMENT}`,
        [id, agentId, JSON.stringify(override)]))[0]!,
    /** A run of this agent the caller can see (its session is theirs), with its messages and approvals. */
    run: async (req: Request, agentId: string, runId: string) => {
      const [row] = await calls.call<Record<string, unknown>>(req,
        `select r.id, r.session_id, r.agent_id, r.status, r.input, r.output, r.error, r.stop_reason, r.steps, r.tokens_in, r.tokens_out,
                r.cost_usd::float8 as cost_usd, r.started_at, r.finished_at, r.resumes,
                coalesce((select jsonb_agg(jsonb_build_object('id', m.id, 'role', m.role, 'content', m.content, 'tool_calls', m.tool_calls,
                           'tool_call_id', m.tool_call_id, 'name', m.name, 'is_error', m.is_error, 'latency_ms', m.latency_ms,
                           'retrieved_context', m.retrieved_context, 'created_at', m.created_at) order by m.id)
                            from ai.session_messages m where m.run_id = r.id), '[]') as messages,
                coalesce((select jsonb_agg(to_jsonb(a) order by a.created_at) from ai.agent_run_approvals a where a.run_id = r.id), '[]') as approvals,
                ${MODEL_CALLS} as model_calls,
                (select coalesce(max(e.seq), 0) from ai.run_events e where e.agent_run_id = r.id) as last_event_id,
                ai.conversation_timeline('agent', r.id) as timeline, ${TRACE_ID} as trace_id
           from ai.agent_runs r where r.id = $1 and r.agent_id = $2`, [runId, agentId]);
      if (!row) throw aiErrors.notFound('Run');
      return row;
    },
    /** 404 unless the caller can read this run of this agent. */
    /** The agent's runs the caller can see, newest first (at most `limit`), for its run history. */
    runs: (req: Request, agentId: string, limit: number) => calls.call(req, `select ${RUN} from ai.agent_runs where agent_id = $1 order by started_at desc, id limit $2`, [agentId, limit]),
    requireRun: async (req: Request, agentId: string, runId: string) => {
      const [row] = await calls.call(req, 'select 1 from ai.agent_runs where id = $1 and agent_id = $2', [runId, agentId]);
      if (!row) throw aiErrors.notFound('Run');
    },
    /** ai.cancel_agent_run: false when the run had already ended (call once the caller is known to see it). */
    cancelRun: async (runId: string) => (await calls.asService<{ cancelled: boolean }>('select ai.cancel_agent_run($1) as cancelled', [runId]))[0]!.cancelled,
    unassign: async (req: Request, agentId: string, id: string) => {
      const rows = await calls.call(req, 'delete from ai.agent_tools where id = $1 and agent_id = $2 returning id', [id, agentId]);
      if (rows.length === 0) throw aiErrors.notFound('Tool assignment');
    },
  };
}
