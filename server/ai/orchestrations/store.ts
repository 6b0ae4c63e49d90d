// Orchestrations and their entities in SQL (sql/0030_ai_orchestrations.sql),
// as the caller: the access model's policies decide what they see and change.
import { MODEL_CALLS, TRACE_ID } from '../sessions/store.ts';
import type { Request } from 'express';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { ownedRows } from '../owned.ts';

export type OrchestrationFields = { name?: string | undefined; strategy?: string | undefined; model?: string | null | undefined; system_prompt?: string | null | undefined; settings?: Record<string, unknown> | undefined };
export type EntityFields = { entity_type: string; entity_ref_id: string; role_description?: string | null | undefined; config?: Record<string, unknown> | undefined; position?: number | undefined };
export type EntityChange = { role_description?: string | null | undefined; config?: Record<string, unknown> | undefined; position?: number | undefined };

const ORCHESTRATION = 'id, owner_id, name, strategy, model, system_prompt, settings, created_at, updated_at';
const ENTITY = 'id, orchestration_id, entity_type, entity_ref_id, role_description, config, position, created_at, updated_at';

export function orchestrationStore(calls: AiCalls) {
  const { refuse, requireOwn } = ownedRows(calls, 'ai.orchestrations', 'orchestrations', () => aiErrors.notFound('Orchestration'));
  const get = async (req: Request, id: string) => {
    const [row] = await calls.call<Record<string, unknown>>(req, `select ${ORCHESTRATION} from ai.orchestrations where id = $1`, [id]);
    if (!row) throw aiErrors.notFound('Orchestration');
    return row;
  };
  const entities = (req: Request, id: string) =>
    calls.call<Record<string, unknown>>(req, `select ${ENTITY} from ai.orchestration_entities where orchestration_id = $1 order by position, created_at, id`, [id]);
  const entity = async (req: Request, id: string, entityId: string) => {
    const [row] = await calls.call<Record<string, unknown>>(req, `select ${ENTITY} from ai.orchestration_entities where id = $1 and orchestration_id = $2`, [entityId, id]);
    if (!row) throw aiErrors.notFound('Entity');
    return row;
  };
  return {
    get,
    entities,
    entity,
    list: (req: Request) => calls.call(req, `select ${ORCHESTRATION} from ai.orchestrations order by created_at desc, id`, []),
    create: async (req: Request, o: OrchestrationFields & { name: string }) =>
      (await calls.call(req, `insert into ai.orchestrations (name, strategy, model, system_prompt, settings) values ($1, coalesce($2, 'coordinator'), $3, $4, $5) returning ${ORCHESTRATION}`,
        [o.name, o.strategy ?? null, o.model ?? null, o.system_prompt ?? null, JSON.stringify(o.settings ?? {})]))[0]!,
    update: async (req: Request, id: string, o: OrchestrationFields) => {
      const [row] = await calls.call(req, `update ai.orchestrations set name = coalesce($2, name), strategy = coalesce($3, strategy),
          model = case when $7 then $4 else model end, system_prompt = case when $8 then $5 else system_prompt end,
          settings = coalesce($6::jsonb, settings) where id = $1 returning ${ORCHESTRATION}`,
        [id, o.name ?? null, o.strategy ?? null, o.model ?? null, o.system_prompt ?? null, o.settings === undefined ? null : JSON.stringify(o.settings), 'model' in o, 'system_prompt' in o]);
      return row ?? refuse(req, id);
    },
    remove: async (req: Request, id: string) => {
      const rows = await calls.call(req, 'delete from ai.orchestrations where id = $1 returning id', [id]);
      if (rows.length === 0) await refuse(req, id);
    },
    requireOwn,
    /** Whether the caller can see this agent (an `agent` entity must name one). */
    agentVisible: async (req: Request, agentId: string) =>
      (await calls.call(req, 'select 1 from ai.agents where id = $1', [agentId])).length > 0,
    addEntity: async (req: Request, id: string, e: EntityFields) =>
      (await calls.call(req, `insert into ai.orchestration_entities (orchestration_id, entity_type, entity_ref_id, role_description, config, position)
          values ($1, $2, $3, $4, $5, $6) returning ${ENTITY}`,
        [id, e.entity_type, e.entity_ref_id, e.role_description ?? null, JSON.stringify(e.config ?? {}), e.position ?? 0]))[0]!,
    changeEntity: async (req: Request, id: string, entityId: string, e: EntityChange) =>
      (await calls.call(req, `update ai.orchestration_entities set role_description = case when $3 then $4 else role_description end,
          config = coalesce($5::jsonb, config), position = coalesce($6, position) where id = $1 and orchestration_id = $2 returning ${ENTITY}`,
        [entityId, id, 'role_description' in e, e.role_description ?? null, e.config === undefined ? null : JSON.stringify(e.config), e.position ?? null]))[0]!,
    /** A run the caller started (another's is 404), with its delegations. */
    run: async (req: Request, runId: string) => {
      const [row] = await calls.call<Record<string, unknown>>(req,
        `select r.id, r.orchestration_id, r.session_id, r.status, r.input, r.output, r.error, r.stop_reason, r.steps, r.started_at, r.finished_at,
                jsonb_build_object('tokens_in', r.tokens_in, 'tokens_out', r.tokens_out, 'cost_usd', r.cost_usd::float8) as usage,
                coalesce((select jsonb_agg(jsonb_build_object('id', d.id, 'entity_id', d.entity_id, 'agent_id', d.agent_id, 'agent_name', d.agent_name,
                           'tool_call_id', d.tool_call_id, 'task', d.task, 'status', d.status, 'output', d.output, 'error', d.error,
                           'stop_reason', d.stop_reason, 'steps', d.steps, 'tool_calls', d.tool_calls,
                           'usage', jsonb_build_object('tokens_in', d.tokens_in, 'tokens_out', d.tokens_out, 'cost_usd', d.cost_usd::float8),
                           'started_at', d.started_at, 'finished_at', d.finished_at) order by d.started_at, d.id)
                            from ai.orchestration_delegations d where d.run_id = r.id), '[]') as delegations,
                ${MODEL_CALLS} as model_calls,
                (select coalesce(max(e.seq), 0) from ai.run_events e where e.orchestration_run_id = r.id) as last_event_id,
                ai.conversation_timeline('orchestration', r.id) as timeline, ${TRACE_ID} as trace_id
           from ai.orchestration_runs r where r.id = $1`, [runId]);
      if (!row) throw aiErrors.notFound('Run');
      return row;
    },
    /** 404 unless the caller can read the run. */
    requireRun: async (req: Request, runId: string) => {
      const [row] = await calls.call(req, 'select 1 from ai.orchestration_runs where id = $1', [runId]);
      if (!row) throw aiErrors.notFound('Run');
    },
    /** ai.cancel_orchestration_run: false when the run had already ended (call once the caller is known to see it). */
    cancelRun: async (runId: string) => (await calls.asService<{ cancelled: boolean }>('select ai.cancel_orchestration_run($1) as cancelled', [runId]))[0]!.cancelled,
    removeEntity: async (req: Request, id: string, entityId: string) => {
      await calls.call(req, 'delete from ai.orchestration_entities where id = $1 and orchestration_id = $2', [entityId, id]);
    },
  };
}
