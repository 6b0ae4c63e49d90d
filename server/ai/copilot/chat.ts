// One copilot turn (POST /api/copilot/sessions/{id}/chat): the editor's state
// (or the saved graph), the session's history and the user's message go to
// `copilot_model` at COPILOT_TEMPERATURE with the eight tools, for at most
// COPILOT_MAX_STEPS model calls. modify_workflow changes a proposal, never
// the workflow; the turn ends with the proposal's workflow_diff against the
// state it was given. Events follow spec 6.2: status, tool_call,
// tool_result (truncated), content_delta, complete, error.
//
// A manage_project_asset call leaves a pending action on the answer; the
// user's next message confirms it (`confirm_action_id`, or a plain yes:
// "yes", "ok", "confirm", "go ahead", "do it") and it is carried out as the
// user before the model is called; any other next message drops it.
import { routeModel } from '../providers/vendors.ts';
import type { ResourceSecrets } from '../tools/secrets.ts';
import type { RequestContext } from '../../../db/as-role.ts';
import { runLoop } from '../agents/loop.ts';

/** The copilot's own stream events (status, tool_call, tool_result, content_delta, complete), spec 4.15. */
type CopilotEmit = (event: Record<string, unknown>) => void;
import { AgentBody, AgentPatch } from '../agents/routes.ts';
import { callerUser } from '../actor.ts';
import { CreateTool, UpdateTool } from '../tools/routes.ts';
import type { AiCalls } from '../calls.ts';
import type { ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { chatMessageOf } from '../sessions/conversation.ts';
import type { Graph } from '../workflows/engine/types.ts';
import { diffStates, normaliseState, stateForModel } from './state.ts';
import type { CopilotTools, CopilotTurn, PendingAction } from './tools.ts';
import type { Emit } from '../steps/events.ts';
import type { RecordedMessage, StoredMessage } from '../steps/step.ts';

export type CopilotSession = { id: string; workflow_id: string };

const TOOL_RESULT_CHARS = 2000;
const YES = /^\s*(yes|y|yep|ok|okay|sure|confirm(ed)?|approve(d)?|go ahead|do it|please do)\b/i;

const SYSTEM = `You are the copilot of a workflow editor. A workflow is a graph of blocks ({id, type, config}) joined by edges ({source, target}); runs start at a starter (or webhook) block.
Change the workflow only with modify_workflow, which validates the whole graph as saving would; if it reports errors, fix them and call it again.
Your changes are a proposal: the user reviews the diff and applies it. Use get_block_info for block types and their config, get_db_schema and execute_public_sql for the database,
list_project_assets and get_asset_details for agents, tools and workflows, get_workflow_run_logs to see why a run failed.
manage_project_asset creates or updates an agent or tool only after the user confirms: describe the change and ask them.
Reference outputs of earlier blocks as <blockId.path> and run variables as <variables.key>. Answer briefly.`;

const parsed = (text: string) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

export function copilotChat(opts: { calls: AiCalls; models: ModelRouter; settings: Settings; tools: CopilotTools; secrets: ResourceSecrets }) {
  const { calls, models, settings } = opts;

  /** Carries out a confirmed action as the user; answers what it did or why it could not. */
  const carryOut = async (caller: RequestContext, a: PendingAction): Promise<{ ok: boolean; result: unknown }> => {
    // The same rules as POST/PATCH /api/agents and /api/tools (a tool's `type` defaults to http here).
    const create = a.action === 'create';
    const schema = a.type === 'agent' ? (create ? AgentBody : AgentPatch) : (create ? CreateTool : UpdateTool);
    const checked = schema.safeParse(a.type === 'tool' && create ? { type: 'http', ...a.fields } : a.fields);
    if (!checked.success) return { ok: false, result: checked.error.issues.map((i) => i.message).join('; ') };
    const f = checked.data as Record<string, unknown>;
    const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
    try {
      if (a.type === 'agent') {
        const [row] = a.action === 'create'
          ? await calls.as(caller, 'insert into ai.agents (name, model, system_prompt, settings) values ($1, $2, $3, coalesce($4::jsonb, \'{}\')) returning id, name', [f.name ?? null, f.model ?? null, f.system_prompt ?? null, json(f.settings)])
          : await calls.as(caller, `update ai.agents set name = coalesce($2, name), model = coalesce($3, model), system_prompt = coalesce($4, system_prompt),
              settings = coalesce($5::jsonb, settings) where id = $1 returning id, name`, [a.asset_id, f.name ?? null, f.model ?? null, f.system_prompt ?? null, json(f.settings)]);
        if (!row) return { ok: false, result: 'That agent does not exist or is not yours to change' };
        return { ok: true, result: row };
      }
      // As POST/PUT /api/tools: the write and the sealing of config.headers in one transaction (sql/0056).
      const row = await calls.transactionAs(caller, async (c) => {
        const [written] = (a.action === 'create'
          ? await c.query<{ id: string; name: string }>(`insert into ai.tools (name, description, type, input_schema, config) values ($1, $2, $3, $4::jsonb, coalesce($5::jsonb, '{}')) returning id, name`,
            [f.name ?? null, f.description ?? null, f.type ?? null, json(f.input_schema), json(f.config)])
          : await c.query<{ id: string; name: string }>(`update ai.tools set name = coalesce($2, name), description = coalesce($3, description), type = coalesce($4, type),
              input_schema = coalesce($5::jsonb, input_schema), config = coalesce($6::jsonb, config) where id = $1 returning id, name`,
            [a.asset_id, f.name ?? null, f.description ?? null, f.type ?? null, json(f.input_schema), json(f.config)])).rows;
        if (written) await opts.secrets.seal(c, 'ai.tools', written.id);
        return written;
      });
      if (!row) return { ok: false, result: 'That tool does not exist or is not yours to change' };
      return { ok: true, result: row };
    } catch (err) {
      return { ok: false, result: (err as Error).message };
    }
  };

  return {
    chat: async (caller: RequestContext, session: CopilotSession, body: { message: string; workflow_state?: unknown; confirm_action_id?: string | undefined }, signal: AbortSignal, emit: CopilotEmit) => {
      const userId = callerUser(caller);
      emit({ type: 'status', message: 'Reading the workflow' });
      const given = body.workflow_state === undefined ? null : normaliseState(body.workflow_state);
      const original: Graph = given ?? (await calls.as<{ graph: Graph }>(caller, 'select ai.graph_json($1) as graph', [session.workflow_id]))[0]!.graph;

      // The answer to an action the copilot proposed last time.
      const notes: string[] = [];
      const [waiting] = await calls.as<{ id: string; pending_action: PendingAction }>(caller,
        `select id, pending_action from ai.copilot_messages where session_id = $1 and role = 'assistant' and pending_action ->> 'status' = 'pending' order by seq desc limit 1`, [session.id]);
      if (waiting) {
        const action = waiting.pending_action;
        const confirmed = body.confirm_action_id ? body.confirm_action_id === action.id : YES.test(body.message);
        if (confirmed) {
          emit({ type: 'status', message: `Carrying out: ${action.summary}` });
          const done = await carryOut(caller, action);
          await calls.as(caller, 'select ai.settle_copilot_action($1, $2, $3)', [waiting.id, done.ok ? 'done' : 'failed', JSON.stringify(done.result)]);
          emit({ type: 'tool_result', name: 'manage_project_asset', result: { action_id: action.id, status: done.ok ? 'done' : 'failed', result: done.result } });
          notes.push(`The user confirmed "${action.summary}". ${done.ok ? `It was done: ${JSON.stringify(done.result)}` : `It failed: ${JSON.stringify(done.result)}`}`);
        } else {
          await calls.as(caller, 'select ai.settle_copilot_action($1, $2, $3)', [waiting.id, 'dropped', null]);
          notes.push(`The user did not confirm "${action.summary}"; it was dropped.`);
        }
      }

      const limits = {
        maxBlockName: await settings.number('MAX_BLOCK_NAME_LEN'), maxConfigValue: await settings.number('MAX_CONFIG_VALUE_LEN'),
        maxTotal: await settings.number('MAX_TOTAL_STATE_LEN'), maxDepth: await settings.number('MAX_CONFIG_DEPTH'),
      };
      const shown = stateForModel(original, limits);
      const history = (await calls.as<StoredMessage>(caller, 'select role, content, tool_calls, tool_call_id from ai.copilot_messages where session_id = $1 order by seq', [session.id])).map(chatMessageOf);
      const system = [SYSTEM, `The workflow now (${given ? 'the editor’s state' : 'as saved'}):\n${shown.text}`, ...shown.notes.map((n) => `Note: ${n}`), ...notes.map((n) => `Note: ${n}`)].join('\n\n');

      const [{ id: turnId }] = (await calls.as<{ id: string }>(caller, 'insert into ai.copilot_messages (session_id, role, content) values ($1, $2, $3) returning id', [session.id, 'user', body.message])) as [{ id: string }];
      const turn: CopilotTurn = { caller, workflowId: session.workflow_id, original, proposal: original, pending: [] };
      const record = async (m: RecordedMessage) => {
        // The final answer is stored after the loop, with its diff.
        if (m.role === 'assistant' && !m.tool_calls) return;
        await calls.as(caller, 'insert into ai.copilot_messages (session_id, role, content, tool_calls, tool_call_id, name, is_error, latency_ms) values ($1, $2, $3, $4, $5, $6, $7, $8)',
          [session.id, m.role, m.content, m.tool_calls === undefined ? null : JSON.stringify(m.tool_calls), m.tool_call_id ?? null, m.name ?? null, m.is_error ?? false, m.latency_ms]);
      };
      const relay: Emit = (e) => {
        if (e.type === 'content_delta') emit({ type: 'content_delta', delta: e.delta });
        else if (e.type === 'tool_call') {
          emit({ type: 'status', message: `Running ${String(e.name)}` });
          emit({ type: 'tool_call', name: e.name, arguments: parsed(String(e.arguments ?? '')) });
        } else if (e.type === 'tool_result') {
          const text = e.ok ? String(e.result) : `Error: ${String(e.error)}`;
          emit({ type: 'tool_result', name: e.name, result: text.length > TOOL_RESULT_CHARS ? `${text.slice(0, TOOL_RESULT_CHARS)}[cut]` : text });
        }
      };
      const model = await settings.string('copilot_model');
      // The schemas are written for strict function calling; OpenAI's API is told so (schemas.ts).
      const strict = routeModel(model)?.provider === 'openai';
      const result = await runLoop({
        models, model,
        messages: [{ role: 'system', content: system }, ...history, { role: 'user', content: body.message }],
        tools: opts.tools(turn).map((t) => (strict ? { ...t, chat: { ...t.chat, function: { ...t.chat.function, strict: true } } } : t)), maxSteps: await settings.number('COPILOT_MAX_STEPS'), tuning: { temperature: await settings.number('COPILOT_TEMPERATURE') },
        usage: { userId, feature: 'copilot', runId: session.id }, stepPrefix: `${turnId}/`, signal, emit: relay, record,
      });
      const content = result.stop === 'max_steps' && !result.output ? `I stopped after ${result.steps} steps without finishing.` : result.output;
      const diff = diffStates(original, turn.proposal);
      const pending = turn.pending.at(-1) ?? null;
      const [{ id: messageId }] = (await calls.as<{ id: string }>(caller,
        'insert into ai.copilot_messages (session_id, role, content, workflow_diff, proposed_state, pending_action) values ($1, $2, $3, $4, $5, $6) returning id',
        [session.id, 'assistant', content, JSON.stringify(diff), JSON.stringify(turn.proposal), pending ? JSON.stringify(pending) : null])) as [{ id: string }];
      await calls.as(caller, 'update ai.copilot_sessions set updated_at = now() where id = $1', [session.id]);
      emit({
        type: 'complete', message_id: messageId, content, workflow_diff: diff, proposed_state: turn.proposal, stop_reason: result.stop, steps: result.steps,
        ...(pending ? { pending_action: pending } : {}),
      });
    },
  };
}

export type CopilotChat = ReturnType<typeof copilotChat>;
