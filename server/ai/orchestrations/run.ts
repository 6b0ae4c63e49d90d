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
import type { ApiError } from '../../errors.ts';
import { TASK_SCHEMA, userOf, type AgentRunner } from '../agents/run.ts';
import type { RunLifetime } from '../lifetime.ts';
import { delegateToolName, runLoop, type Emit, type LoopTool, type ToolOutcome } from '../agents/loop.ts';
import type { AgentRow } from '../agents/store.ts';
import type { AiCalls } from '../calls.ts';
import type { ChatMessage, ModelRouter } from '../providers/router.ts';
import type { Compactor } from '../sessions/compaction.ts';
import { messageRecorder, openSession } from '../sessions/conversation.ts';
import type { Settings } from '../settings/accessor.ts';

export type OrchestrationRow = { id: string; name: string; strategy: string; model: string | null; system_prompt: string | null; settings: Record<string, unknown> };
type EntityRow = { id: string; entity_type: string; entity_ref_id: string; role_description: string | null; position: number };
type DelegationRow = { id: string; agent_id: string; agent_name: string; task: string; status: string; output: string | null; error: string | null; stop_reason: string | null; steps: number; tokens_in: number; tokens_out: number; cost_usd: string };

const DEFAULT_MAX_STEPS = 10;

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

export function orchestrationRunner(opts: { calls: AiCalls; models: ModelRouter; settings: Settings; agents: AgentRunner; compactor: Compactor; runnerId: string }) {
  const { calls, models, settings, agents } = opts;

  return {
    /** Runs to the end; with `emit`: start, entity_skipped, content_delta, tool_call, delegation_started, delegation_*, tool_result, usage, complete. */
    run: async (caller: RequestContext, orchestration: OrchestrationRow, input: { message: string; sessionId?: string | undefined }, life: RunLifetime, emit?: Emit) => {
      const { message } = input;
      const signal = life.signal;
      const userId = userOf(caller);
      const sid = await openSession(calls, caller, { orchestration_id: orchestration.id }, input.sessionId, message);
      const [{ id: runId }] = (await calls.as<{ id: string }>(caller, 'insert into ai.orchestration_runs (orchestration_id, session_id, input, runner) values ($1, $2, $3, $4) returning id', [orchestration.id, sid, message, opts.runnerId])) as [{ id: string }];
      const store = messageRecorder(calls, caller, sid, { column: 'orchestration_run_id', id: runId });
      const finish = (status: 'completed' | 'failed', output: string | null, error: string | null, stop: string | null, steps: number) =>
        calls.asService('select ai.finish_orchestration_run($1, $2, $3, $4, $5, $6)', [runId, status, output, error, stop, steps]);

      let steps = 0;
      emit?.({ type: 'start', session_id: sid, run_id: runId });
      try {
        const system = orchestration.system_prompt || coordinatorPrompt(orchestration.name);
        const history = await opts.compactor.history(caller, sid, { settings: orchestration.settings, system, message, userId, runId, feature: 'orchestration', signal, emit });
        await store({ role: 'user', content: message });
        const entities = await calls.as<EntityRow>(caller, 'select id, entity_type, entity_ref_id, role_description, position from ai.orchestration_entities where orchestration_id = $1 order by position, created_at, id', [orchestration.id]);
        const taken = new Set<string>();
        const tools: LoopTool[] = [];
        for (const entity of entities) {
          const skip = (reason: string) => emit?.({ type: 'entity_skipped', entity_id: entity.id, entity_type: entity.entity_type, reason });
          if (entity.entity_type !== 'agent') {
            skip(`entities of type ${entity.entity_type} do not run in a coordinator`);
            continue;
          }
          const [agent] = await calls.as<AgentRow>(caller, 'select id, owner_id, name, model, system_prompt, settings, created_at, updated_at from ai.agents where id::text = $1', [entity.entity_ref_id]);
          if (!agent) {
            skip('the agent is gone or not visible to the caller');
            continue;
          }
          tools.push({
            chat: {
              type: 'function',
              function: {
                name: delegateName(agent.name, taken),
                description: entity.role_description || `Delegate a task to ${agent.name}`,
                parameters: TASK_SCHEMA,
              },
            },
            call: (args, s, callId) => delegate(agent, entity, args, s, callId),
          });
        }

        /** One hand-off: the member's own loop on the task, recorded as a delegation. */
        const delegate = async (agent: AgentRow, entity: EntityRow, args: unknown, s: AbortSignal, callId: string): Promise<ToolOutcome> => {
          const task = args && typeof (args as { task?: unknown }).task === 'string' ? (args as { task: string }).task.trim() : '';
          if (!task) return { ok: false, error: 'task is required: say what the member should do' };
          const [d] = await calls.asService<{ id: string }>('insert into ai.orchestration_delegations (run_id, entity_id, agent_id, agent_name, tool_call_id, task) values ($1, $2, $3, $4, $5, $6) returning id',
            [runId, entity.id, agent.id, agent.name, callId, task]);
          const delegationId = d!.id;
          const tag = { delegation_id: delegationId, agent_id: agent.id, agent_name: agent.name };
          emit?.({ type: 'delegation_started', ...tag, entity_id: entity.id, task });
          // A member's own events, marked as its delegation's; its text streams as delegation_delta.
          const memberEmit: Emit | undefined = emit && ((e) => emit(e.type === 'content_delta' ? { type: 'delegation_delta', delegation_id: delegationId, delta: e.delta } : { ...e, delegation_id: delegationId }));
          let memberSteps = 0;
          try {
            const result = await agents.member(caller, agent, task, {
              signal: s, usage: { userId, feature: 'orchestration', runId }, stepPrefix: `${delegationId}/`, emit: memberEmit, onStep: (n) => { memberSteps = n; },
            });
            const [row] = await calls.asService<DelegationRow>('select * from ai.finish_delegation($1, $2, $3, null, $4, $5, $6)',
              [delegationId, 'completed', result.output, result.stop, result.steps, JSON.stringify(result.toolCalls)]);
            emit?.({ type: 'delegation_completed', ...delegationView(row!), delegation_id: delegationId, ok: true });
            return { ok: true, output: result.output };
          } catch (err) {
            if (s.aborted) throw err;
            const reason = (err as Error).message;
            const [row] = await calls.asService<DelegationRow>('select * from ai.finish_delegation($1, $2, null, $3, null, $4, null)', [delegationId, 'failed', reason, memberSteps]);
            emit?.({ type: 'delegation_completed', ...delegationView(row!), delegation_id: delegationId, ok: false });
            return { ok: false, error: `${agent.name} could not do it: ${reason}` };
          }
        };

        const { max_steps: asked, ...tuning } = orchestration.settings as { max_steps?: unknown } & Record<string, unknown>;
        const maxSteps = typeof asked === 'number' && Number.isInteger(asked) && asked > 0 ? Math.min(asked, 100) : DEFAULT_MAX_STEPS;
        const model = orchestration.model || (await settings.string('AGENT_DEFAULT_MODEL'));
        const messages: ChatMessage[] = [{ role: 'system', content: system }, ...history, { role: 'user', content: message }];
        const result = await runLoop({
          models, model, messages, tools, maxSteps, tuning, signal, record: store, onStep: (n) => { steps = n; },
          usage: { userId, feature: 'orchestration', runId }, ...(emit ? { emit } : {}),
        });
        await finish('completed', result.output, null, result.stop, result.steps);
        await calls.as(caller, 'update ai.sessions set updated_at = now() where id = $1', [sid]);
        const record = await opts.calls.as<{ tokens_in: number; tokens_out: number; cost_usd: string }>(caller, 'select tokens_in, tokens_out, cost_usd from ai.orchestration_runs where id = $1', [runId]);
        const delegations = await calls.as<DelegationRow>(caller, 'select * from ai.orchestration_delegations where run_id = $1 order by started_at, id', [runId]);
        const usage = { tokens_in: record[0]!.tokens_in, tokens_out: record[0]!.tokens_out, cost_usd: Number(record[0]!.cost_usd) };
        emit?.({ type: 'usage', ...usage });
        emit?.({ type: 'complete', session_id: sid, run_id: runId, output: result.output, stop_reason: result.stop, steps: result.steps });
        return {
          session_id: sid, run_id: runId, status: 'completed' as const, output: result.output, stop_reason: result.stop, steps: result.steps,
          delegations: delegations.map(delegationView), usage,
        };
      } catch (err) {
        await finish('failed', null, (err as Error).message, null, steps).catch(() => undefined);
        throw Object.assign(err as ApiError, { details: { ...((err as ApiError).details as object | undefined), session_id: sid, run_id: runId } });
      }
    },
  };
}

export type OrchestrationRunner = ReturnType<typeof orchestrationRunner>;
