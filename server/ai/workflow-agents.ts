// Agents and orchestrations as workflow blocks (engine/blocks/agent.ts). They
// act as the workflow run's actor (its caller, or for webhook, arm and async
// runs the workflow's owner; the project only when that is explicit), with
// no client attached: only the workflow's own cancel, timeout or the
// server's stop end them.
//
//   agent, with agent_id   a child run (sql/0102): a full agent run (its
//                          session, config.session_id continuing one, tools,
//                          MCP servers, hooks) linked to the execution and
//                          the block's place; its events are kept, an
//                          approval hook parks it and the workflow with it
//   agent, inline          config.model, system_prompt, settings (tuning and
//                          max_steps) and tools (builtin tool names), no
//                          session; its steps are stored per block place
//   orchestration          config.orchestration_id, a child run as an agent's
//
// A resumed workflow run takes its block's child back (ai.claim_child_run)
// and carries it on from its last stored step, or reads its answer when it
// had ended: finished model and tool calls are not made again, the call in
// flight is made once more with the same idempotency key. An inline block
// goes on from its stored steps the same way.
import { actorContext, ledgerUser } from './actor.ts';
import type { OrchestrationRow, OrchestrationRunner } from './orchestrations/run.ts';
import type { AiCalls } from './calls.ts';
import { UUID } from './parse.ts';
import type { ChatMessage, ModelRouter } from './providers/router.ts';
import type { Settings } from './settings/accessor.ts';
import { builtinTool } from './tools/builtin/index.ts';
import { type AgentBlockCall, type WorkflowAgents } from './workflows/engine/types.ts';
import { detachedLifetime } from './runs/lifetime.ts';
import { runLoop, type LoopTool } from './agents/loop.ts';
import { alsoTo } from './steps/events.ts';
import { agentTuning, type AgentRunner } from './agents/run.ts';
import type { AgentRow } from './agents/store.ts';
import type { ToolRunner } from './tools/runner.ts';
import { Failure, HandedOver } from './failures.ts';
import type { RunLimiter } from './runs/limiter.ts';
import { agentAnswer } from './agents/run-answer.ts';
import { resumePoint } from './steps/resume-point.ts';
import type { RunEventLog } from './runs/events.ts';
import { recordedRun } from './runs/recorded.ts';
import type { RunResumes } from './runs/resume.ts';
import { chatMessageOf } from './sessions/conversation.ts';
import { finishedToolCalls } from './sessions/member-steps.ts';
import type { Emit } from './steps/events.ts';
import type { StoredStep } from './steps/step.ts';


/** What of a child run's events the workflow stream hears: its text, and that it waits on an approval. */
const forWorkflow = (c: AgentBlockCall): Emit => (e) => {
  if (e.type === 'content_delta' && typeof e.delta === 'string') c.delta(e.delta);
  if (e.type === 'approval_requested' && typeof e.approval_id === 'string') c.waiting({ approval_id: e.approval_id });
};
function idIn(config: Record<string, unknown>, key: string): string | null {
  const v = config[key];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || !UUID.test(v)) throw new Failure(`${key} must be an id`);
  return v.toLowerCase();
}

type ChildKind = 'agent' | 'orchestration';

export function workflowAgents(opts: {
  calls: AiCalls; models: ModelRouter; settings: Settings; tools: ToolRunner; agents: AgentRunner; orchestrations: OrchestrationRunner; limiter: RunLimiter;
  stop: AbortSignal; runnerId: string; events: RunEventLog; resumes: RunResumes;
}): WorkflowAgents {
  const { calls, models, settings, tools, agents } = opts;

  /**
   * The block's child run: its answer when it had ended (a resumed workflow
   * run), carried on when it was in flight, else begun (`start`) as a child
   * of the execution. Its events are its own, the workflow hears its text.
   */
  const child = async <R>(kind: ChildKind, c: AgentBlockCall, start: (life: ReturnType<typeof detachedLifetime>, emit: Emit) => Promise<R>, answer: (runId: string) => Promise<R>): Promise<R> => {
    const tap = forWorkflow(c);
    const signal = AbortSignal.any([c.signal, opts.stop]);
    if (c.resumed) {
      const [had] = await calls.asService<{ run_id: string; status: string }>(
        'select run_id, status from ai.claim_child_run(p_kind => $1, p_execution => $2, p_block => $3, p_runner => $4)', [kind, c.executionId, c.place, opts.runnerId]);
      if (had?.status === 'completed') return answer(had.run_id);
      if (had?.status === 'running' || had?.status === 'waiting_approval') return opts.resumes.carryClaimed(kind, had.run_id, { tap, signal }) as Promise<R>;
    }
    // A run this block starts draws from the actor's window as any agent run does (its 429 is the block's failure).
    opts.limiter.take('agent', c.actor);
    return recordedRun(opts.events, kind, (recorded) => start(detachedLifetime(signal), alsoTo(recorded as Emit, tap)));
  };

  const inline = async (c: AgentBlockCall, model: string) => {
    const names = c.config.tools === undefined ? [] : c.config.tools;
    if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) throw new Failure('tools must be a list of builtin tool names');
    const toolset = (names as string[]).map((name): LoopTool => {
      const def = builtinTool(name);
      if (!def) throw new Failure(`Unknown builtin tool ${name}`);
      const assigned = { kind: 'builtin' as const, name, override: {} };
      return { chat: { type: 'function', function: { name, description: def.description, parameters: def.inputSchema } }, call: (args, s, _id, key) => tools.run(assigned, args, { actor: c.actor, usage: { userId: ledgerUser(c.actor), feature: 'workflow', runId: c.executionId }, key }, s) };
    });
    const settingsIn = c.config.settings && typeof c.config.settings === 'object' && !Array.isArray(c.config.settings) ? c.config.settings as Record<string, unknown> : {};
    const prompt = typeof c.config.system_prompt === 'string' && c.config.system_prompt ? c.config.system_prompt : null;
    const pseudo = { model, settings: settingsIn } as AgentRow;
    const { maxSteps, tuning } = await agentTuning(pseudo, settings);
    // Its steps so far, when the run was taken up again with the block in flight.
    const stored = c.resumed ? await calls.asService<StoredStep>('select role, content, tool_calls, tool_call_id, is_error, latency_ms from ai.workflow_block_steps where execution_id = $1 and block_path = $2 order by id',
      [c.executionId, c.place]) : [];
    const messages: ChatMessage[] = [...(prompt ? [{ role: 'system' as const, content: prompt }] : []), { role: 'user', content: c.message }, ...stored.map(chatMessageOf)];
    const result = await runLoop({
      models, model, messages, tools: toolset, maxSteps, tuning, signal: c.signal, emit: forWorkflow(c),
      usage: { userId: ledgerUser(c.actor), feature: 'workflow', runId: c.executionId }, stepPrefix: `${c.place}/`,
      from: stored.length > 0 ? resumePoint(stored) : undefined,
      record: async (m) => {
        const [row] = await calls.asService<{ stored: boolean }>('select stored from ai.record_block_step(p_execution => $1, p_runner => $2, p_block => $3, p_message => $4)',
          [c.executionId, opts.runnerId, c.place, JSON.stringify(m)]);
        // Another process carries the run now (or it was cancelled): this one stops.
        if (!row?.stored) throw new HandedOver(c.executionId);
      },
    });
    const toolCalls = stored.length > 0 ? [...finishedToolCalls(stored), ...result.toolCalls] : result.toolCalls;
    return { content: result.output, tool_calls: toolCalls, stop_reason: result.stop, steps: result.steps, model };
  };

  return {
    agent: async (c) => {
      const agentId = idIn(c.config, 'agent_id');
      if (!agentId) {
        const model = typeof c.config.model === 'string' && c.config.model.trim() ? c.config.model.trim() : null;
        if (!model) throw new Failure('an agent block needs agent_id, or a model (with a system_prompt) to run inline');
        return inline(c, model);
      }
      const caller = actorContext(c.actor);
      const sessionId = idIn(c.config, 'session_id') ?? undefined;
      const parent = { executionId: c.executionId, block: c.place };
      const run = await child('agent', c, async (life, emit) => {
        const agent = await agents.agent(caller, agentId).catch(() => {
          throw new Failure(`Agent ${agentId} does not exist or is not visible to the user running this workflow`);
        });
        return agents.run(caller, agent, { message: c.message, sessionId }, life, emit, { durable: true, parent });
      }, agentAnswer(calls, caller));
      return { content: run.output, tool_calls: run.tool_calls, stop_reason: run.stop_reason, steps: run.steps, session_id: run.session_id, run_id: run.run_id, usage: run.usage };
    },
    orchestration: async (c) => {
      const id = idIn(c.config, 'orchestration_id');
      if (!id) throw new Failure('an orchestration block needs orchestration_id');
      const caller = actorContext(c.actor);
      const sessionId = idIn(c.config, 'session_id') ?? undefined;
      const parent = { executionId: c.executionId, block: c.place };
      const run = await child('orchestration', c, async (life, emit) => {
        const [row] = await calls.as<OrchestrationRow>(caller, 'select id, name, strategy, model, system_prompt, settings from ai.orchestrations where id = $1', [id]);
        if (!row) throw new Failure(`Orchestration ${id} does not exist or is not visible to the user running this workflow`);
        return opts.orchestrations.run(caller, row, { message: c.message, sessionId }, life, emit, { durable: true, parent });
      }, (runId) => opts.orchestrations.answer(caller, runId));
      return { content: run.output, delegations: run.delegations, stop_reason: run.stop_reason, steps: run.steps, session_id: run.session_id, run_id: run.run_id, usage: run.usage };
    },
  };
}
