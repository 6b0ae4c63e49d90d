// The copilot's eight tools (spec 4.16), all acting as the user chatting:
//
//   modify_workflow       operations on the proposal, dry-run through ai.put_graph
//                         (the same validation as PUT /graph, rolled back): errors
//                         go back to the model to fix; nothing is saved
//   get_block_info        the block registry: config schema and examples per type
//   get_db_schema         the public schema from the REST schema cache
//   list_project_assets   agents, tools, workflows and knowledge bases the user can see
//   get_asset_details     one of them; an agent's system prompt cut at SYSTEM_PROMPT_TRUNCATE
//   execute_public_sql    one SELECT over `public` only, as the user (RLS applies),
//                         functions from an allow-list (sql/0055), read-only, rolled
//                         back on a connection then discarded, extended protocol (one
//                         statement), at most 100 rows of 100 KB each and 5 s
//   get_workflow_run_logs this workflow's recent runs, or one run's block logs
//   manage_project_asset  create or update an agent or tool: answers a pending
//                         action the user confirms in their next message
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { RequestContext } from '../../../db/as-role.ts';
import type { Relation } from '../../rest/catalogue.ts';
import type { AiCalls } from '../calls.ts';
import type { LoopTool } from '../agents/loop.ts';
import { UUID } from '../parse.ts';
import type { Settings } from '../settings/accessor.ts';
import type { Graph } from '../workflows/engine/types.ts';
import { applyOperations, diffStates } from './state.ts';
import { assetFields, COPILOT_PARAMETERS } from './schemas.ts';
import type { ToolOutcome } from '../steps/step.ts';

export type PendingAction = { id: string; action: 'create' | 'update'; type: 'agent' | 'tool'; asset_id: string | null; fields: Record<string, unknown>; summary: string; status: 'pending' };
export type CopilotTurn = { caller: RequestContext; workflowId: string; original: Graph; proposal: Graph; pending: PendingAction[] };

const SQL_MAX_ROWS = 100;
const SQL_TIMEOUT = '5s';
/** One row's JSON, at most: bigger rows are described, not sent (a field over ~536 MB would crash the driver). */
const SQL_MAX_ROW_BYTES = 100_000;

const ok = (value: unknown): ToolOutcome => ({ ok: true, output: typeof value === 'string' ? value : JSON.stringify(value) });
const fail = (error: string): ToolOutcome => ({ ok: false, error });
/** A tool as the model sees it: its parameters from schemas.ts (strict form). */
const fn = (name: string, description: string): LoopTool['chat'] => ({ type: 'function', function: { name, description, parameters: COPILOT_PARAMETERS[name]! } });

/** Every schema a plan reads from (EXPLAIN VERBOSE names the schema of each scanned relation and function). */
function schemasIn(plan: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(plan)) plan.forEach((p) => schemasIn(p, found));
  else if (plan && typeof plan === 'object') {
    for (const [k, v] of Object.entries(plan)) {
      if (k === 'Schema' && typeof v === 'string') found.add(v);
      else schemasIn(v, found);
    }
  }
  return found;
}

export function copilotTools(opts: { calls: AiCalls; settings: Settings; schema: { relationsIn: (schema: string) => Relation[] } }) {
  const { calls, settings } = opts;

  const assetList = async (caller: RequestContext, type: string | undefined) => {
    const want = (t: string) => !type || type === t;
    const out: Record<string, unknown> = {};
    if (want('agent')) out.agents = await calls.as(caller, 'select id, name, model, owner_id is null as project from ai.agents order by name limit 200', []);
    if (want('tool')) out.tools = await calls.as(caller, 'select id, name, description, type from ai.tools order by name limit 200', []);
    if (want('workflow')) out.workflows = await calls.as(caller, 'select id, name, description from ai.workflows order by name limit 200', []);
    if (want('knowledge_base')) out.knowledge_bases = await calls.as(caller, 'select id, name, description, strategy, owner_id is null as project from ai.knowledge_bases order by name limit 200', []);
    return out;
  };

  return (turn: CopilotTurn): LoopTool[] => [
    {
      chat: fn('modify_workflow', 'Change the workflow: a list of operations applied in order to the current proposal. ' +
        'ops: add_block {block: {id, type, config}}, remove_block {id}, update_block {id, config (merged; replace: true to replace), type?}, add_edge {source, target}, remove_edge {source, target}. ' +
        'The result is validated as saving would be; fix any errors it reports. Nothing is saved: the user reviews the proposal.'),
      call: async (args) => {
        const { state, errors } = applyOperations(turn.proposal, (args as { operations?: unknown })?.operations);
        if (errors.length > 0) return fail(`Nothing changed: ${errors.join('; ')}`);
        try {
          // The same validation as PUT /graph, in a transaction that never commits.
          await calls.rolledBack(turn.caller, (c) => c.query('select ai.put_graph($1, $2, $3)', [turn.workflowId, JSON.stringify(state.blocks), JSON.stringify(state.edges)]));
        } catch (err) {
          return fail(`The proposal is not valid, nothing changed: ${(err as Error).message}`);
        }
        turn.proposal = state;
        const diff = diffStates(turn.original, state);
        return ok({ ok: true, blocks: state.blocks.length, edges: state.edges.length, workflow_diff: diff });
      },
    },
    {
      chat: fn('get_block_info', 'The block types a workflow can use, with each config schema and examples; give type for one.'),
      call: async (args) => {
        const type = (args as { type?: unknown })?.type;
        const rows = await calls.as(turn.caller, `select name as type, label, description, config_schema, examples, is_trigger from ai.block_types
          where $1::text is null or name = $1 or name = (select a.type from ai.block_type_aliases a where a.alias = $1) order by position`, [typeof type === 'string' ? type : null]);
        return rows.length === 0 ? fail(`Unknown block type ${String(type)}`) : ok(rows);
      },
    },
    {
      chat: fn('get_db_schema', 'Tables and views of the project database (schema public) with their columns.'),
      call: async () => ok(opts.schema.relationsIn('public').map((r) => ({
        name: r.name, kind: r.kind, primary_key: r.primaryKey,
        columns: r.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable, default: c.hasDefault })),
      }))),
    },
    {
      chat: fn('list_project_assets', 'Agents, tools, workflows and knowledge bases the user can see; type narrows to one kind.'),
      call: async (args) => ok(await assetList(turn.caller, (args as { type?: string })?.type)),
    },
    {
      chat: fn('get_asset_details', 'One agent, tool, workflow or knowledge base by id.'),
      call: async (args) => {
        const { type, id } = (args ?? {}) as { type?: string; id?: string };
        if (typeof id !== 'string' || !UUID.test(id)) return fail('id must be an asset id');
        if (type === 'agent') {
          const [a] = await calls.as<Record<string, unknown> & { system_prompt: string | null }>(turn.caller, 'select id, name, model, system_prompt, settings, created_at from ai.agents where id = $1', [id]);
          if (!a) return fail('No such agent');
          const limit = await settings.number('SYSTEM_PROMPT_TRUNCATE');
          const tools = await calls.as(turn.caller, 'select tool_name, tool_type from ai.agent_tools where agent_id = $1 order by created_at', [id]);
          const cut = a.system_prompt && a.system_prompt.length > limit;
          return ok({ ...a, system_prompt: cut ? `${a.system_prompt!.slice(0, limit)}[cut]` : a.system_prompt, ...(cut ? { note: `system_prompt cut at ${limit} characters` } : {}), tools });
        }
        if (type === 'tool') {
          const [t] = await calls.as(turn.caller, 'select id, name, description, type, input_schema, config from ai.tools where id = $1', [id]);
          return t ? ok(t) : fail('No such tool');
        }
        if (type === 'workflow') {
          const [w] = await calls.as(turn.caller, 'select id, name, description, ai.graph_json(id) as graph from ai.workflows where id = $1', [id]);
          return w ? ok(w) : fail('No such workflow');
        }
        if (type === 'knowledge_base') {
          const [kb] = await calls.as(turn.caller, `select id, name, description, strategy, indexing_config, ai.kb_retrieval_config(id) as retrieval_config, ai.kb_status(id) as status, created_at
              from ai.knowledge_bases where id = $1`, [id]);
          if (!kb) return fail('No such knowledge base');
          const sources = await calls.as(turn.caller, `select s.name, s.extension, k.index_status from ai.kb_sources k join ai.sources s on s.id = k.source_id
              where k.kb_id = $1 order by k.created_at, k.id limit 100`, [id]);
          return ok({ ...kb, sources });
        }
        return fail('type must be agent, tool, workflow or knowledge_base');
      },
    },
    {
      chat: fn('execute_public_sql', `Runs one read-only SELECT on the public schema as the user (row-level security applies); at most ${SQL_MAX_ROWS} rows.`),
      call: async (args) => {
        const query = String((args as { query?: unknown })?.query ?? '').trim().replace(/;\s*$/, '');
        if (!query) return fail('query is required');
        // Each row as JSON text, a row over SQL_MAX_ROW_BYTES replaced by its size in SQL, so no value can outgrow the driver.
        const wrapped = `select case when octet_length(j) > ${SQL_MAX_ROW_BYTES} then null else j end as row, octet_length(j) as bytes
          from (select to_jsonb(q)::text as j from (${query}) q limit ${SQL_MAX_ROWS + 1}) s`;
        // The database's own words go back to the model (not the API's wording of them).
        const answer = await calls.rolledBack(turn.caller, async (c: pg.PoolClient): Promise<{ rows: unknown[] } | { error: string }> => {
          try {
            await c.query(`set local statement_timeout = '${SQL_TIMEOUT}'`);
            await c.query('set local search_path = public');
            // Parsed, not run, as a temporary view: every function and relation it uses is checked (sql/0055).
            // Extended protocol: exactly one statement, whatever the text holds.
            await c.query({ text: `create temporary view pgbase_copilot_probe as ${wrapped}`, queryMode: 'extended' } as pg.QueryConfig);
            const refused = (await c.query<{ refused: string[] }>(`select ai.copilot_sql_refusals('pg_temp.pgbase_copilot_probe'::regclass) as refused`)).rows[0]!.refused;
            if (refused.length > 0) return { error: `only the public schema and side-effect-free built-in functions can be used (the query uses ${refused.join(', ')})` };
            await c.query('drop view pg_temp.pgbase_copilot_probe');
            await c.query('set local transaction_read_only = on');
            const plan = await c.query({ text: `explain (verbose, format json) ${wrapped}`, queryMode: 'extended' } as pg.QueryConfig);
            const outside = [...schemasIn(plan.rows[0]?.['QUERY PLAN'])].filter((s) => s !== 'public');
            if (outside.length > 0) return { error: `only the public schema can be read (the query reads ${outside.join(', ')})` };
            const rows = (await c.query<{ row: string | null; bytes: number }>({ text: wrapped, queryMode: 'extended' } as pg.QueryConfig)).rows;
            return { rows: rows.map((r) => (r.row === null ? { row_omitted: `this row is ${r.bytes} bytes as JSON, more than ${SQL_MAX_ROW_BYTES}` } : JSON.parse(r.row) as unknown)) };
          } catch (err) {
            return { error: (err as Error).message };
          }
          // A connection that ran user SQL is closed, not pooled: nothing it set or took can outlive the call.
        }, { discard: true }).catch((err: Error) => ({ error: err.message }));
        if ('error' in answer) return fail(`The query failed: ${answer.error}`);
        const rows = answer.rows;
        return ok({ rows: rows.slice(0, SQL_MAX_ROWS), row_count: Math.min(rows.length, SQL_MAX_ROWS), truncated: rows.length > SQL_MAX_ROWS });
      },
    },
    {
      chat: fn('get_workflow_run_logs', 'Recent runs of this workflow, or with execution_id one run and its block logs.'),
      call: async (args) => {
        const { execution_id: id, limit } = (args ?? {}) as { execution_id?: unknown; limit?: unknown };
        if (typeof id === 'string' && id) {
          if (!UUID.test(id)) return fail('execution_id must be a run id');
          const [run] = await calls.as(turn.caller, 'select id, status, trigger, version, error, error_code, output, created_at, started_at, finished_at from ai.workflow_executions where id = $1 and workflow_id = $2', [id, turn.workflowId]);
          if (!run) return fail('No such run of this workflow');
          const logs = await calls.as(turn.caller, 'select block_id, block_type, status, error, attempts, output, logs, started_at, finished_at from ai.workflow_block_logs where execution_id = $1 order by id', [id]);
          return ok({ run, logs });
        }
        const n = typeof limit === 'number' && limit > 0 ? Math.min(Math.floor(limit), 50) : 10;
        return ok(await calls.as(turn.caller, 'select id, status, trigger, error, error_code, created_at, finished_at from ai.workflow_executions where workflow_id = $1 order by created_at desc limit $2', [turn.workflowId, n]));
      },
    },
    {
      chat: fn('manage_project_asset', 'Creates or updates an agent or a tool. Nothing happens until the user confirms: describe the change and ask them to.'),
      call: async (args) => {
        const { action, type, id, fields } = (args ?? {}) as { action?: unknown; type?: unknown; id?: unknown; fields?: unknown };
        if (action !== 'create' && action !== 'update') return fail('action must be create or update');
        if (type !== 'agent' && type !== 'tool') return fail(type === 'knowledge_base' ? 'Knowledge bases cannot be managed yet' : 'type must be agent or tool');
        if (!fields || typeof fields !== 'object' || Array.isArray(fields)) return fail('fields must be an object');
        if (action === 'update' && (typeof id !== 'string' || !UUID.test(id))) return fail('update needs the asset id');
        let given: Record<string, unknown>;
        try {
          given = assetFields(fields as Record<string, unknown>);
        } catch (err) {
          return fail((err as Error).message);
        }
        const pending: PendingAction = {
          id: randomUUID(), action, type, asset_id: action === 'update' ? String(id) : null, fields: given, status: 'pending',
          summary: `${action} ${type}${action === 'update' ? ` ${String(id)}` : ''} with ${Object.keys(given).join(', ') || 'no fields'}`,
        };
        turn.pending.push(pending);
        return ok({ status: 'awaiting_confirmation', action_id: pending.id, summary: pending.summary, note: 'Nothing is saved until the user confirms in their next message.' });
      },
    },
  ];
}

export type CopilotTools = ReturnType<typeof copilotTools>;
