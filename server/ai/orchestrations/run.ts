// One orchestration run (POST /api/orchestrations/{id}/run and /run/stream):
// a coordinator model (the orchestration's model, prompt and settings) gets
// one delegate tool per `agent` entity, described by its role_description,
// and hands tasks to members. A delegation runs the member agent's own loop
// (its prompt, tuning and tools, MCP included) on the task alone, capped at
// DELEGATE_MAX_STEPS, and its answer goes back to the coordinator. Entities of
// other types are stored and skipped. No hooks fire inside an orchestration:
// neither the orchestration's nor its members' (spec 4.10). Every strategy
// runs as `coordinator`, the one the spec describes.
//
// The run, and each delegation, is recorded with its totals from the ledger:
// every model call carries the run id, a member's also `<delegation id>/step-n`.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AgentRunner } from '../agents/run.ts';
import { delegationEvents, TASK_SCHEMA, taskOf } from '../agents/delegation.ts';
import { stepCap } from '../agents/tuning.ts';
import type { SessionRunContext, SessionRunDone, SessionRuns, StoredRun } from '../runs/session-run.ts';
import { chatMessageOf } from '../sessions/conversation.ts';
import type { RunParent } from '../sessions/store.ts';
import { aiErrors } from '../errors.ts';
import { HandedOver } from '../failures.ts';
import type { RunLifetime } from '../runs/lifetime.ts';
import { delegateToolName, runLoop, type LoopResult, type LoopTool } from '../agents/loop.ts';
import { AGENT, type AgentRow } from '../agents/store.ts';
import type { AiCalls } from '../calls.ts';
import type { ChatMessage, ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import type { Emit } from '../steps/events.ts';
import type { ToolOutcome } from '../steps/step.ts';

export type OrchestrationRow = { id: string; name: string; strategy: string; model: string | null; system_prompt: string | null; settings: Record<string, unknown> };
type EntityRow = { id: string; entity_type: string; entity_ref_id: string; role_description: string | null; position: number };
type DelegationRow = { id: string; agent_id: string; agent_name: string; task: string; status: string; output: string | null; error: string | null; stop_reason: string | null; steps: number; tokens_in: number; tokens_out: number; cost_usd: string };

const systemOf = (o: OrchestrationRow) => o.system_prompt || coordinatorPrompt(o.name);
const coordinatorPrompt = (name: string) =>
  `You coordinate the team "${name}". Hand each part of the user's request to the member best suited to it with the delegate_to_* tools, ` +
  'giving each the full context it needs, then answer the user from what the members returned.';

/** The tool name a member is delegated to by, unique within the run. */
function delegateName(agentName: string, taken: Set<string>): string {
  const base = delegateToolName(agentName).slice(0, 60);
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

export const delegationView = (d: DelegationRow) => ({
  id: d.id, agent_id: d.agent_id, agent_name: d.agent_name, task: d.task, status: d.status, output: d.output, error: d.error,
  stop_reason: d.stop_reason, steps: d.steps, usage: { tokens_in: d.tokens_in, tokens_out: d.tokens_out, cost_usd: Number(d.cost_usd) },
});

export function orchestrationRunner(opts: { calls: AiCalls; models: ModelRouter; settings: Settings; agents: AgentRunner; sessionRun: SessionRuns }) {
  const { calls, models, settings, agents } = opts;

  /** The coordinator's delegate tools: one per visible `agent` entity; others are reported skipped. */
  const memberTools = async (caller: RequestContext, orchestration: OrchestrationRow, emit: Emit | undefined, delegate: (agent: AgentRow, entity: EntityRow, args: unknown, s: AbortSignal, callId: string) => Promise<ToolOutcome>) => {
    const entities = await calls.as<EntityRow>(caller, 'select id, entity_type, entity_ref_id, role_description, position from ai.orchestration_entities where orchestration_id = $1 order by position, created_at, id', [orchestration.id]);
    const taken = new Set<string>();
    const tools: LoopTool[] = [];
    for (const entity of entities) {
      const skip = (reason: string) => emit?.({ type: 'entity_skipped', entity_id: entity.id, entity_type: entity.entity_type, reason });
      if (entity.entity_type !== 'agent') {
        skip(`entities of type ${entity.entity_type} do not run in a coordinator`);
        continue;
      }
      const [agent] = await calls.as<AgentRow>(caller, `select ${AGENT} from ai.agents where id::text = $1`, [entity.entity_ref_id]);
      if (!agent) {
        skip('the agent is gone or not visible to the caller');
        continue;
      }
      tools.push({
        chat: { type: 'function', function: { name: delegateName(agent.name, taken), description: entity.role_description || `Delegate a task to ${agent.name}`, parameters: TASK_SCHEMA } },
        call: (args, s, callId) => delegate(agent, entity, args, s, callId),
      });
    }
    return tools;
  };

  /**
   * One orchestration run's own part inside the session skeleton: the
   * coordinator's loop over its delegate tools, from the start or from a
   * resumed run's stored steps (a delegation in flight at the crash goes on
   * under the same id, from its member's own stored steps: member-steps.ts).
   */
  const coordinator = (caller: RequestContext, orchestration: OrchestrationRow, message: string, emit: Emit | undefined, how: { streamModel?: boolean }) => async (run: SessionRunContext) => {
    /** One hand-off: the member's own loop on the task, recorded as a delegation. */
    const delegate = async (agent: AgentRow, entity: EntityRow, args: unknown, s: AbortSignal, callId: string): Promise<ToolOutcome> => {
      const task = taskOf(args);
      if (!task) return { ok: false, error: 'task is required: say what the member should do' };
      // A delegation still running under this call is the one a dead process left: it runs again under its id (sql/0067).
      const [d] = await calls.asService<{ id: string }>('select ai.start_delegation(p_run => $1, p_entity => $2, p_agent => $3, p_agent_name => $4, p_tool_call_id => $5, p_task => $6) as id', [run.runId, entity.id, agent.id, agent.name, callId, task]);
      const delegationId = d!.id;
      const tag = { delegation_id: delegationId, agent_id: agent.id, agent_name: agent.name };
      emit?.({ type: 'delegation_started', ...tag, entity_id: entity.id, task });
      let memberSteps = 0;
      try {
        // Its member goes on from the steps it stored, when this delegation ran before the run resumed.
        const checkpoint = await run.members(delegationId);
        const result = await agents.member(caller, agent, task, {
          signal: s, usage: run.usage, stepPrefix: `${delegationId}/`, emit: delegationEvents(emit, delegationId), onStep: (n) => { memberSteps = n; }, checkpoint,
        });
        const [row] = await calls.asService<DelegationRow>('select * from ai.finish_delegation($1, $2, $3, null, $4, $5, $6)',
          [delegationId, 'completed', result.output, result.stop, result.steps, JSON.stringify(result.toolCalls)]);
        emit?.({ type: 'delegation_completed', ...delegationView(row!), delegation_id: delegationId, ok: true });
        return { ok: true, output: result.output };
      } catch (err) {
        // Stopped, or another process carries the run now (its member's step could not be stored): not the member's failure.
        if (s.aborted || err instanceof HandedOver) throw err;
        const reason = (err as Error).message;
        const [row] = await calls.asService<DelegationRow>('select * from ai.finish_delegation($1, $2, null, $3, null, $4, null)', [delegationId, 'failed', reason, memberSteps]);
        emit?.({ type: 'delegation_completed', ...delegationView(row!), delegation_id: delegationId, ok: false });
        return { ok: false, error: `${agent.name} could not do it: ${reason}` };
      }
    };
    const tools = await memberTools(caller, orchestration, emit, delegate);
    const { maxSteps, tuning } = stepCap(orchestration.settings);
    const model = orchestration.model || (await settings.string('AGENT_DEFAULT_MODEL'));
    const messages: ChatMessage[] = [{ role: 'system', content: systemOf(orchestration) }, ...run.history, { role: 'user', content: message }, ...(run.resumed?.messages ?? []).map(chatMessageOf)];
    return runLoop({
      models, model, messages, tools, maxSteps, tuning, signal: run.signal, record: run.record, chargesWithRecord: true, onStep: run.onStep, usage: run.usage,
      from: run.resumed?.from, ...(emit ? { emit, stream: how.streamModel ?? true } : {}),
    });
  };

  /** The run's answer: its loop's end, its delegations, its totals. */
  const answer = async (caller: RequestContext, running: Promise<SessionRunDone<LoopResult>>) => {
    const done = await running;
    const { result } = done;
    return answerOf(caller, { session_id: done.session_id, run_id: done.run_id, output: result.output, stop_reason: result.stop, steps: result.steps, usage: done.usage });
  };
  /** A run's end as its answer names it (its loop's, or its record's when a worker carried it), with its delegations read. */
  type Ended = { session_id: string; run_id: string; output: string; stop_reason: LoopResult['stop']; steps: number; usage: { tokens_in: number; tokens_out: number; cost_usd: number } };
  const answerOf = async (caller: RequestContext, ended: Ended) => {
    const delegations = await calls.as<DelegationRow>(caller, 'select * from ai.orchestration_delegations where run_id = $1 order by started_at, id', [ended.run_id]);
    return {
      session_id: ended.session_id, run_id: ended.run_id, status: 'completed' as const, output: ended.output, stop_reason: ended.stop_reason, steps: ended.steps,
      delegations: delegations.map(delegationView), usage: ended.usage,
    };
  };

  return {
    /** The orchestration as the caller sees it (404 otherwise). */
    orchestration: async (caller: RequestContext, id: string): Promise<OrchestrationRow> => {
      const [row] = await calls.as<OrchestrationRow>(caller, 'select id, name, strategy, model, system_prompt, settings from ai.orchestrations where id = $1', [id]);
      if (!row) throw aiErrors.notFound('Orchestration');
      return row;
    },
    /** Runs to the end; with `emit`: start, entity_skipped, content_delta, tool_call, delegation_started, delegation_*, tool_result, usage, complete. */
    /** `durable` (its events are kept): a server's stop hands it over (HandedOver) instead of failing it. */
    run: (caller: RequestContext, orchestration: OrchestrationRow, input: { message: string; sessionId?: string | undefined }, life: RunLifetime, emit?: Emit, how: { streamModel?: boolean; durable?: boolean; inWorker?: boolean | undefined; parent?: RunParent | undefined } = {}) =>
      answer(caller, opts.sessionRun(caller, { owner: { kind: 'orchestration', orchestrationId: orchestration.id }, message: input.message, sessionId: input.sessionId, settings: orchestration.settings, system: systemOf(orchestration), durable: how.durable ?? false, inWorker: how.inWorker ?? false, parent: how.parent },
        life, emit, coordinator(caller, orchestration, input.message, emit, how))),
    /** A completed run's answer, read back (a run a worker carried to its end: runs/json-run.ts). */
    answer: async (caller: RequestContext, runId: string) => {
      const [row] = await calls.as<Omit<Ended, 'usage'> & { tokens_in: number; tokens_out: number; cost_usd: number }>(caller,
        'select session_id, id as run_id, output, stop_reason, steps, tokens_in, tokens_out, cost_usd::float8 as cost_usd from ai.orchestration_runs where id = $1', [runId]);
      if (!row) throw aiErrors.notFound('Run');
      const { tokens_in, tokens_out, cost_usd, ...ended } = row;
      return answerOf(caller, { ...ended, usage: { tokens_in, tokens_out, cost_usd } });
    },
    /** Carries on a run whose process died (runs/resume.ts), from its stored steps. */
    resume: (caller: RequestContext, orchestration: OrchestrationRow, stored: StoredRun, life: RunLifetime, emit?: Emit) =>
      answer(caller, opts.sessionRun.resume(caller, { kind: 'orchestration', orchestrationId: orchestration.id }, stored, life, emit, coordinator(caller, orchestration, stored.input, emit, {}))),
  };
}

export type OrchestrationRunner = ReturnType<typeof orchestrationRunner>;
