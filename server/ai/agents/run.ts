// One agent run (POST /api/agents/{id}/run): the session's earlier messages,
// the user's message, then the tool loop (loop.ts) until the model answers or
// the step cap (settings.max_steps, default 10) is reached. Every message is
// stored as it happens with its latency; every model call goes through the
// router (usage ledger, keys, 402) tagged with the run and its step; the run
// record ends with its tokens and cost (ai.finish_agent_run).
//
// A run acts as a caller captured from its request (contextOf), not the
// request itself: an approval may hold it after its client has gone, and a
// workflow block runs one with no request at all.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import type { ChatMessage, ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { builtinTool } from '../tools/builtin/index.ts';
import type { ApprovalDesk } from './approvals.ts';
import { hookRunner, type HookRow, type HookVerdict } from './hook-runner.ts';
import type { RunLifetime } from '../runs/lifetime.ts';
import { runLoop, type LoopResult, type LoopTool } from './loop.ts';
import type { McpTools } from './mcp-client.ts';
import { AGENT, type AgentRow } from './store.ts';
import type { SessionRunContext, SessionRunDone, SessionRuns, StoredRun } from '../runs/session-run.ts';
import type { RunParent } from '../sessions/store.ts';
import { chatMessageOf, requireSession } from '../sessions/conversation.ts';
import { delegationEvents, TASK_SCHEMA, taskOf } from './delegation.ts';
import { stepCap } from './tuning.ts';
import type { ToolRunner, ToolServices } from '../tools/runner.ts';
import type { ContextResult, contextRetriever } from '../context-handlers/retrieve.ts';
import { knowledgeTools, retrievedContext, type RetrievalSink } from './kb-tools.ts';
import type { UsageContext } from '../usage/ledger.ts';
import { actorOf } from '../actor.ts';
import type { ResourceSecrets } from '../tools/secrets.ts';
import { agentForRun, agentSetup, type AgentSetup } from './setup.ts';
import { resumePoint } from '../steps/resume-point.ts';
import { finishedToolCalls, type MemberCheckpoint } from '../sessions/member-steps.ts';
import { inSpan } from '../../telemetry/spans.ts';
import { AwaitingClient, HandedOver } from '../failures.ts';
import type { Emit } from '../steps/events.ts';
import type { LoopToolCall, ToolOutcome, StoredStep } from '../steps/step.ts';
import type { ClientRequest } from '../steps/client.ts';
import { answerCheck, clientTools, modelFormat } from './client-request.ts';
import { userContent, type AttachmentStore, type Loaded } from './attachments.ts';

export type RunResult = {
  session_id: string; run_id: string; status: 'completed'; output: string; stop_reason: 'answered' | 'max_steps';
  steps: number; tool_calls: LoopToolCall[]; usage: { tokens_in: number; tokens_out: number; cost_usd: number };
};

/** key: the call's idempotency key, which names the delegation's checkpoints (the same when a resumed run makes the call again). */
type Delegate = (sub: AgentRow, toolName: string, args: unknown, signal: AbortSignal, callId: string, key: string) => Promise<ToolOutcome>;
/**
 * How a run goes: its model's text streamed (with emit; default yes);
 * durable: its events are kept and it can resume, so it may park on a long
 * approval wait and a server's stop hands it over instead of failing it;
 * inWorker: a durable run only begun here, then carried by a worker (sql/0079).
 */
type TurnHow = {
  streamModel?: boolean; durable?: boolean; inWorker?: boolean | undefined; setup?: AgentSetup | undefined; parent?: RunParent | undefined;
  /** What an OpenAI client brought beside its messages (/api/v1: its tools, response format). */
  client?: ClientRequest | undefined;
  /** Images and files sent with the message, stored already (attachments.ts). */
  attachments?: Loaded[] | undefined;
};
/** checkpoint: where the member stores its steps, and those it stored before its run resumed (it goes on from them). */
export type MemberRun = { signal: AbortSignal; usage: { userId: string | null; feature: string; runId: string }; stepPrefix: string; emit?: Emit | undefined; onStep?: (n: number) => void; checkpoint: MemberCheckpoint };

/** The model, step cap and remaining tuning of an agent (max_steps is the loop's, not the model's). */
export async function agentTuning(agent: Pick<AgentRow, 'model' | 'settings'>, settings: Settings, cap?: number) {
  return { model: agent.model || (await settings.string('AGENT_DEFAULT_MODEL')), ...stepCap(agent.settings, cap) };
}

export function agentRunner(opts: { calls: AiCalls; models: ModelRouter; tools: ToolRunner; mcp: McpTools; settings: Settings; approvals: ApprovalDesk; sessionRun: SessionRuns; hookServices: Pick<ToolServices, 'fetch' | 'sandbox'>; retrieve: ReturnType<typeof contextRetriever>; secrets: ResourceSecrets; attachments: AttachmentStore }) {
  const { calls, models, tools, settings, mcp } = opts;
  const kbTools = knowledgeTools(opts.retrieve, settings);
  const setupOf = agentSetup(calls);
  const forRun = agentForRun(calls);

  /**
   * The agent's tools as the model sees them: assigned builtins and custom
   * tools, sub-agents when `delegate` runs them (a standalone run; members of
   * an orchestration and sub-agents themselves get none: one level deep),
   * then its knowledge bases' search tools and its enabled MCP servers' tools
   * (from `setup` when the run read it already: setup.ts).
   */
  const toolset = async (caller: RequestContext, agentId: string, usage: UsageContext, signal: AbortSignal, emit?: Emit, delegate?: Delegate, retrieved?: RetrievalSink, setup?: AgentSetup): Promise<{ tools: LoopTool[]; close: () => Promise<void> }> => {
    const known = setup ?? await setupOf(caller, agentId);
    // Custom tools' headers, decrypted for the runner only (they are stored sealed: sql/0056).
    const rows = await opts.secrets.reveal('ai.tools', known.tools.map((r) => ({ ...r, id: r.tool_id ?? '' })));
    const who = { actor: actorOf(caller), usage };
    const assigned = rows.flatMap((r): LoopTool[] => {
      if (r.tool_type === 'builtin') {
        const def = builtinTool(r.tool_name);
        if (!def) return [];
        const a = { kind: 'builtin' as const, name: def.name, override: r.config_override };
        return [{ chat: { type: 'function', function: { name: def.name, description: def.description, parameters: def.inputSchema } }, call: (args, s, _id, key) => tools.run(a, args, { ...who, key }, s) }];
      }
      if (r.tool_type === 'agent') {
        // A sub-agent the caller can no longer see is not offered.
        if (!r.sub || !delegate) return [];
        const sub = r.sub;
        return [{
          chat: { type: 'function', function: { name: r.tool_name, description: `Delegate a task to the agent ${sub.name}${sub.system_prompt ? `: ${sub.system_prompt.slice(0, 200)}` : ''}`, parameters: TASK_SCHEMA } },
          call: (args, s, callId, key) => delegate(sub, r.tool_name, args, s, callId, key),
        }];
      }
      // A custom tool the caller can no longer see (deleted, or not theirs) is not offered.
      if (!r.input_schema) return [];
      const a = { kind: 'custom' as const, name: r.tool_name, config: r.config ?? {} };
      return [{ chat: { type: 'function', function: { name: r.tool_name, description: r.description ?? '', parameters: r.input_schema } }, call: (args, s, _id, key) => tools.run(a, args, { ...who, key }, s) }];
    });
    const searches = kbTools(caller, known.kbs, emit, retrieved);
    const remote = known.mcp ? await mcp.connect(agentId, signal, emit) : { tools: [], close: async () => undefined };
    return { tools: [...assigned, ...searches, ...remote.tools], close: remote.close };
  };

  /** A member's own loop on a task (a delegation): its prompt, tuning and tools, capped at DELEGATE_MAX_STEPS; no hooks, no sub-agents. */
  const member = (caller: RequestContext, agent: AgentRow, task: string, o: MemberRun) => inSpan(`invoke_agent ${agent.name}`, {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': agent.id, 'gen_ai.agent.name': agent.name, 'pgbase.delegation': o.stepPrefix.replace(/\/$/, ''), 'pgbase.run_id': o.usage.runId },
  }, async () => {
    const { model, maxSteps, tuning } = await agentTuning(agent, settings, await settings.number('DELEGATE_MAX_STEPS'));
    const offered = await toolset(caller, agent.id, o.usage, o.signal, o.emit);
    try {
      const { stored, record } = o.checkpoint;
      const messages: ChatMessage[] = [...(agent.system_prompt ? [{ role: 'system' as const, content: agent.system_prompt }] : []), { role: 'user', content: task }, ...stored.map(chatMessageOf)];
      const result = await runLoop({
        models, model, messages, tools: offered.tools, maxSteps, tuning, signal: o.signal, usage: o.usage, stepPrefix: o.stepPrefix, record,
        from: stored.length > 0 ? resumePoint(stored) : undefined, ...(o.onStep ? { onStep: o.onStep } : {}), ...(o.emit ? { emit: o.emit } : {}),
      });
      // A member that went on from its stored steps reports the tool calls it made before too.
      return stored.length > 0 ? { ...result, toolCalls: [...finishedToolCalls(stored), ...result.toolCalls] } : result;
    } finally {
      await offered.close().catch(() => undefined);
    }
  });

  return {
    toolset,
    member,
    /** The agent as the caller sees it (404 otherwise). */
    agent: async (caller: RequestContext, id: string): Promise<AgentRow> => {
      const [row] = await calls.as<AgentRow>(caller, `select ${AGENT} from ai.agents where id = $1`, [id]);
      if (!row) throw aiErrors.notFound('Agent');
      return row;
    },
    /** The agent as the caller sees it (404 otherwise), with the setup its run will need: pass it to run() as `how.setup`. */
    forRun: async (caller: RequestContext, id: string): Promise<{ agent: AgentRow; setup: AgentSetup }> => {
      const found = await forRun(caller, id);
      if (!found) throw aiErrors.notFound('Agent');
      return found;
    },
    /** 404 unless the caller can use this session (checked before a stream's headers go out). */
    requireSession: (caller: RequestContext, sessionId: string) => requireSession(calls, caller, sessionId),
    /**
     * Runs to the end. With `emit` the model calls stream and the run reports
     * as it goes: start, content_delta, tool_call, tool_result, hook,
     * approval_requested, approval_resolved, usage, complete.
     */
    /** `durable`: the run may park on a long approval wait (Parked is thrown then) and is handed over when the server stops (HandedOver). */
    run: (caller: RequestContext, agent: AgentRow, input: { message: string; sessionId?: string | undefined }, life: RunLifetime, emit?: Emit, how: TurnHow = {}): Promise<RunResult> => {
      const turn = agentTurn(caller, agent, input.message, life, emit, how);
      return turn.answer(opts.sessionRun(caller, { owner: { kind: 'agent', agentId: agent.id }, message: input.message, sessionId: input.sessionId, settings: agent.settings, system: agent.system_prompt, durable: how.durable ?? false, inWorker: how.inWorker ?? false, parent: how.parent }, life, emit, turn.body, turn.after));
    },
    /** Carries on a run whose process died (runs/resume.ts), from its stored steps; its events go on where they stopped. `setup`: read with the agent (forRun). */
    resume: (caller: RequestContext, agent: AgentRow, stored: StoredRun, life: RunLifetime, emit?: Emit, setup?: AgentSetup): Promise<RunResult> => {
      const turn = agentTurn(caller, agent, stored.input, life, emit, { durable: true, setup, client: stored.client ?? undefined });
      return turn.answer(opts.sessionRun.resume(caller, { kind: 'agent', agentId: agent.id }, stored, life, emit, turn.body, turn.after));
    },
  };

  /**
   * One agent run's own part inside the session skeleton (runs/session-run.ts):
   * hooks, tools (delegation and knowledge bases included), the loop; from
   * the start, or from a resumed run's stored steps.
   */
  function agentTurn(caller: RequestContext, agent: AgentRow, message: string, life: RunLifetime, emit: Emit | undefined, how: TurnHow) {
    const signal = life.signal;
    let toolCalls: LoopToolCall[] = [];
    let fire: (event: string, extra?: Record<string, unknown>) => Promise<HookVerdict> = async () => ({ decision: 'allow' });
    const body = async (run: SessionRunContext) => {
      // What the knowledge-base tools retrieved goes with the answer that used it.
      const retrievals: ContextResult[] = [];
      const record: typeof run.record = (m) => (m.role === 'assistant' && !m.tool_calls && retrievals.length ? run.record({ ...m, retrieved_context: retrievedContext(retrievals.splice(0)) }) : run.record(m));
      // Read with the agent when a route started the run (forRun); a resumed run reads it afresh.
      const setup = how.setup ?? await setupOf(caller, agent.id);
      const hooks = await opts.secrets.reveal('ai.agent_hooks', setup.hooks);
      // An approval holds the run past its client: the answer may come after the stream has gone.
      // A run whose events are kept may park on a long wait; a resumed run first looks for the question it already asked.
      const resumedAt = run.resumed?.from.steps;
      const ask = async (hook: HookRow, payload: Parameters<ApprovalDesk['ask']>[1]) => {
        const release = life.hold();
        try {
          return await opts.approvals.ask(hook, payload, signal, emit, { park: how.durable ?? false, reuse: resumedAt !== undefined && (payload.step ?? resumedAt) === resumedAt });
        } finally {
          release();
        }
      };
      const firing = hookRunner(opts.hookServices, emit, ask);
      const base = { agent_id: agent.id, session_id: run.sessionId, run_id: run.runId };
      fire = (event, extra = {}) => (hooks.length === 0 ? Promise.resolve({ decision: 'allow' }) : firing.fire(hooks, { event, ...base, ...extra }, signal));
      // A resumed run told its hooks it started before it stopped.
      if (!run.resumed || run.resumed.first) await fire('OnRunStart', { message });
      const { model, maxSteps, tuning } = await agentTuning(agent, settings);
      const offered = await toolset(caller, agent.id, run.usage, signal, emit, delegation(caller, run, emit, (event, extra) => fire(event, extra)), (r) => retrievals.push(r), setup);
      try {
        // An OpenAI client's own tools and response format (/api/v1), kept on the run for its resumes (sql/0107).
        const client = how.client;
        if (client && !run.resumed) await calls.asService('select ai.set_run_client($1, $2)', [run.runId, JSON.stringify(client)]);
        // Images and files: named on the run's message as it begins; a resumed run reads them back from storage.
        if (how.attachments?.length && !run.resumed) await opts.attachments.attach(run.runId, how.attachments);
        const attached = how.attachments ?? (run.resumed ? await opts.attachments.ofRun(run.runId) : []);
        const messages: ChatMessage[] = [...(agent.system_prompt ? [{ role: 'system' as const, content: agent.system_prompt }] : []), ...run.history,
          { role: 'user', content: userContent(message, attached) } as ChatMessage, ...(run.resumed?.messages ?? []).map(chatMessageOf)];
        const result = await runLoop({
          models, model, messages, tools: [...offered.tools, ...clientTools(client, offered.tools)], maxSteps, tuning, signal, record, chargesWithRecord: true, usage: run.usage, onStep: run.onStep,
          ...(client ? { awaitClient: awaitClient(run, emit), toolChoice: client.tool_choice, responseFormat: modelFormat(client.response_format), checkAnswer: answerCheck(client.response_format) } : {}),
          // No hooks, no firing: the loop then stores a model call's ledger rows with its answer (loop.ts).
          ...(hooks.length > 0 ? { fire } : {}),
          from: run.resumed?.from, ...(emit ? { emit, stream: how.streamModel ?? true } : {}),
        });
        // A resumed run reports the tool calls it finished before too (a workflow block's output lists them all).
        toolCalls = run.resumed ? [...finishedToolCalls(run.resumed.messages as StoredStep[]), ...result.toolCalls] : result.toolCalls;
        return { ...result, endHooks: hooks.some((h) => h.event === 'OnRunComplete') };
      } finally {
        await offered.close().catch(() => undefined);
      }
    };
    return {
      body,
      after: async (result: { output: string }) => void (await fire('OnRunComplete', { response: result.output })),
      answer: async (running: Promise<SessionRunDone<LoopResult>>): Promise<RunResult> => {
        const done = await running;
        const { result } = done;
        return { session_id: done.session_id, run_id: done.run_id, status: 'completed', output: result.output, stop_reason: result.stop, steps: result.steps, tool_calls: toolCalls, usage: done.usage };
      },
    };
  }

  /**
   * Hands the calls of the client's tools to it: the run waits for their
   * results, let go of (ai.await_client), told as its event with its totals
   * so far, and AwaitingClient unwinds it. The event is stored after the run
   * is let go of, which a run no process holds allows (sql/0077); its
   * request answers only once it is stored, so no client answers earlier.
   */
  function awaitClient(run: SessionRunContext, emit: Emit | undefined) {
    return async (handed: Array<{ id: string; name: string; arguments: string }>): Promise<never> => {
      const [usage] = await calls.asService<{ tokens_in: number; tokens_out: number; cost_usd: number }>('select tokens_in, tokens_out, cost_usd from ai.await_client($1, $2)', [run.runId, run.runner]);
      emit?.({ type: 'client_tool_calls', session_id: run.sessionId, run_id: run.runId, calls: handed, usage: usage! });
      throw new AwaitingClient(run.runId, run.sessionId, handed, usage!);
    };
  }

  /** A sub-agent call: OnDelegation hooks may deny it, rewrite its task or ask a human first. */
  function delegation(caller: RequestContext, run: SessionRunContext, emit: Emit | undefined, fire: (event: string, extra: Record<string, unknown>) => Promise<HookVerdict>): Delegate {
    return async (sub, toolName, args, s, callId, key) => {
      let task = taskOf(args);
      if (!task) return { ok: false, error: 'task is required: say what the sub-agent should do' };
      const verdict = await fire('OnDelegation', { tool_name: toolName, tool_call_id: callId, arguments: { task }, sub_agent_id: sub.id, sub_agent_name: sub.name, task });
      if (verdict.decision === 'deny') return { ok: false, error: `Denied by hook: ${verdict.reason ?? 'no reason given'}` };
      if (typeof verdict.arguments?.task === 'string' && verdict.arguments.task.trim()) task = verdict.arguments.task.trim();
      const tag = { delegation_id: callId, agent_id: sub.id, agent_name: sub.name };
      emit?.({ type: 'delegation_started', ...tag, task });
      try {
        const checkpoint = await run.members(key, callId);
        const result = await member(caller, sub, task, { signal: s, usage: run.usage, stepPrefix: `${callId}/`, emit: delegationEvents(emit, callId), checkpoint });
        emit?.({ type: 'delegation_completed', ...tag, ok: true, output: result.output, stop_reason: result.stop, steps: result.steps });
        return { ok: true, output: result.output };
      } catch (err) {
        // Stopped, or another process carries the run now (its member's step could not be stored): not the member's failure.
        if (s.aborted || err instanceof HandedOver) throw err;
        emit?.({ type: 'delegation_completed', ...tag, ok: false, error: (err as Error).message });
        return { ok: false, error: `${sub.name} could not do it: ${(err as Error).message}` };
      }
    };
  }
}

export type AgentRunner = ReturnType<typeof agentRunner>;
