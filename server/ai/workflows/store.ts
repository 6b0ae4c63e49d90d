// Workflows in SQL (sql/0024 to 0026), as the caller: the access model's
// policies decide what they see; the graph rules, versions and the arm
// window are SQL functions.
import type { Request } from 'express';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { ownedRows } from '../owned.ts';

export type WorkflowRow = {
  id: string; owner_id: string | null; name: string; description: string | null; deployed: boolean; active_version: number | null;
  armed_until: Date | null; created_at: Date; updated_at: Date;
};
export type Graph = { blocks: unknown[]; edges: unknown[] };
export type BlockType = { type: string; label: string; description: string; config_schema: Record<string, unknown>; examples: unknown[]; is_trigger: boolean; aliases: string[] };

const COLUMNS = 'id, owner_id, name, description, deployed, active_version, armed_until, created_at, updated_at';

export function workflowStore(calls: AiCalls) {
  const { refuse } = ownedRows(calls, 'ai.workflows', 'workflows', aiErrors.workflowNotFound);
  return {
    /** The block types a graph may use, with each config's JSON Schema (the one the copilot is shown) and examples, in palette order. */
    blockTypes: (req: Request) => calls.call<BlockType>(req, `select t.name as type, t.label, t.description, t.config_schema, t.examples, t.is_trigger,
        coalesce((select array_agg(a.alias order by a.alias) from ai.block_type_aliases a where a.type = t.name), '{}') as aliases
      from ai.block_types t order by t.position, t.name`, []),
    list: async (req: Request, limit: number, offset: number) => {
      const [page] = await calls.call<{ items: WorkflowRow[]; total: number }>(req, `select
          coalesce((select jsonb_agg(w order by w.created_at desc, w.id) from (select ${COLUMNS} from ai.workflows order by created_at desc, id limit $1 offset $2) w), '[]') as items,
          (select count(*)::int from ai.workflows) as total`, [limit, offset]);
      return page!;
    },
    get: async (req: Request, id: string) => {
      const [row] = await calls.call<WorkflowRow & { graph: Graph }>(req, `select ${COLUMNS}, ai.graph_json(id) as graph from ai.workflows where id = $1`, [id]);
      if (!row) throw aiErrors.workflowNotFound();
      return row;
    },
    create: async (req: Request, name: string, description: string | null) =>
      (await calls.call<WorkflowRow>(req, `insert into ai.workflows (name, description) values ($1, $2) returning ${COLUMNS}`, [name, description]))[0]!,
    update: async (req: Request, id: string, fields: { name?: string | undefined; description?: string | null | undefined }) => {
      const [row] = await calls.call<WorkflowRow>(req, `update ai.workflows set name = coalesce($2, name),
          description = case when $4 then $3 else description end where id = $1 returning ${COLUMNS}`,
        [id, fields.name ?? null, fields.description ?? null, 'description' in fields]);
      return row ?? refuse(req, id);
    },
    remove: async (req: Request, id: string) => {
      const rows = await calls.call<{ id: string }>(req, 'delete from ai.workflows where id = $1 returning id', [id]);
      if (rows.length === 0) await refuse(req, id);
    },
    putGraph: async (req: Request, id: string, blocks: unknown, edges: unknown) =>
      (await calls.call<{ graph: Graph }>(req, 'select ai.put_graph($1, $2, $3) as graph', [id, JSON.stringify(blocks), edges === undefined ? null : JSON.stringify(edges)]))[0]!.graph,
    deploy: async (req: Request, id: string) => (await calls.call<{ version: number }>(req, 'select * from ai.deploy_workflow($1)', [id]))[0]!.version,
    undeploy: (req: Request, id: string) => calls.call(req, 'select ai.undeploy_workflow($1)', [id]),
    arm: async (req: Request, id: string) => (await calls.call<{ until: Date }>(req, 'select ai.arm_workflow($1) as until', [id]))[0]!.until,
    versions: async (req: Request, id: string) => {
      const workflow = await calls.call<{ active_version: number | null }>(req, 'select active_version from ai.workflows where id = $1', [id]);
      if (!workflow[0]) throw aiErrors.workflowNotFound();
      const rows = await calls.call<{ version: number; created_at: Date; created_by: string | null; blocks: number }>(req,
        `select version, created_at, created_by, jsonb_array_length(graph -> 'blocks') as blocks from ai.workflow_versions where workflow_id = $1 order by version desc`, [id]);
      return rows.map((v) => ({ ...v, active: v.version === workflow[0]!.active_version }));
    },
    version: async (req: Request, id: string, version: number) => {
      const workflow = await calls.call<{ active_version: number | null }>(req, 'select active_version from ai.workflows where id = $1', [id]);
      if (!workflow[0]) throw aiErrors.workflowNotFound();
      const [row] = await calls.call<{ version: number; created_at: Date; created_by: string | null; graph: Graph }>(req,
        'select version, created_at, created_by, graph from ai.workflow_versions where workflow_id = $1 and version = $2', [id, version]);
      if (!row) throw aiErrors.notFound('Version');
      return { ...row, active: row.version === workflow[0].active_version };
    },
    /** The caller's runs of a workflow, newest first, with tokens and cost from the usage ledger; 404 for a workflow the caller cannot see. */
    executions: (req: Request, id: string) => calls.call(req, `select e.id, e.status, e.trigger, e.version, e.error, e.error_code, e.created_at, e.started_at, e.finished_at,
        coalesce(u.tokens_in, 0)::int as tokens_in, coalesce(u.tokens_out, 0)::int as tokens_out, coalesce(u.cost_usd, 0)::float8 as cost_usd
      from ai.workflow_executions_for($1, 100) e
      left join lateral (select sum(x.tokens_in) as tokens_in, sum(x.tokens_out) as tokens_out, sum(x.cost_usd) as cost_usd from ai.usage x where x.run_id = e.id::text) u on true
      order by e.created_at desc, e.id`, [id]),
    /** One run and its per-block logs; 404 for a run the caller did not start. */
    /** 404 unless the caller can read this execution of this workflow. */
    requireExecution: async (req: Request, workflowId: string, executionId: string) => {
      const [row] = await calls.call(req, 'select 1 from ai.workflow_executions where id = $1 and workflow_id = $2', [executionId, workflowId]);
      if (!row) throw aiErrors.notFound('Execution');
    },
    executionLogs: async (req: Request, workflowId: string, executionId: string) => {
      const [execution] = await calls.call(req, `select e.id, e.status, e.trigger, e.version, e.output, e.error, e.error_code, e.created_at, e.started_at, e.finished_at,
          coalesce(u.tokens_in, 0)::int as tokens_in, coalesce(u.tokens_out, 0)::int as tokens_out, coalesce(u.cost_usd, 0)::float8 as cost_usd,
          ai.execution_timeline(e.id) as timeline, substr(e.traceparent, 4, 32) as trace_id
        from ai.workflow_executions e
        left join lateral (select sum(x.tokens_in) as tokens_in, sum(x.tokens_out) as tokens_out, sum(x.cost_usd) as cost_usd from ai.usage x where x.run_id = e.id::text) u on true
        where e.id = $1 and e.workflow_id = $2`, [executionId, workflowId]);
      if (!execution) throw aiErrors.notFound('Execution');
      // Tokens and cost of a block: the model calls it made (ai.usage rows of this run with the block as their step).
      const logs = await calls.call(req, `select l.block_id, l.block_type, l.status, l.input, l.output, l.error, l.attempts, l.logs, l.started_at, l.finished_at,
          round(extract(epoch from l.finished_at - l.started_at) * 1000)::int as duration_ms,
          coalesce(u.tokens_in, 0)::int as tokens_in, coalesce(u.tokens_out, 0)::int as tokens_out, coalesce(u.cost_usd, 0)::float8 as cost_usd
        from ai.workflow_block_logs l
        left join lateral (select sum(x.tokens_in) as tokens_in, sum(x.tokens_out) as tokens_out, sum(x.cost_usd) as cost_usd
                             from ai.usage x where x.run_id = l.execution_id::text
                              and (x.step = l.block_id or left(x.step, length(l.block_id) + 1) = l.block_id || '/')) u on true
        where l.execution_id = $1 order by l.id`, [executionId]);
      return { execution, logs };
    },
    activate: async (req: Request, id: string, version: number) => (await calls.call<{ v: number }>(req, 'select ai.activate_version($1, $2) as v', [id, version]))[0]!.v,
  };
}
