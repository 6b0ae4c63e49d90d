// Agents and orchestrations as workflow blocks (engine/blocks/agent.ts). They
// act as the workflow run's actor (its caller, or for webhook, arm and async
// runs the workflow's owner; the project only when that is explicit), with no client attached: only the workflow's own
// cancel, timeout or the server's stop end them.
//
//   agent, with agent_id   a full agent run: its session (config.session_id
//                          continues one), tools, MCP servers and hooks; an
//                          approval hook waits for its answer or timeout
//   agent, inline          config.model, system_prompt, settings (tuning and
//                          max_steps) and tools (builtin tool names), no session
//   orchestration          config.orchestration_id, a full orchestration run
import { actorContext, ledgerUser } from './actor.ts';
import type { OrchestrationRow, OrchestrationRunner } from './orchestrations/run.ts';
import type { AiCalls } from './calls.ts';
import { UUID } from './parse.ts';
import type { ChatMessage, ModelRouter } from './providers/router.ts';
import type { Settings } from './settings/accessor.ts';
import { builtinTool } from './tools/builtin/index.ts';
import { type AgentBlockCall, type WorkflowAgents } from './workflows/engine/types.ts';
import { detachedLifetime } from './lifetime.ts';
import { runLoop, type Emit, type LoopTool } from './agents/loop.ts';
import { agentTuning, type AgentRunner } from './agents/run.ts';
import type { AgentRow } from './agents/store.ts';
import type { ToolRunner } from './tools/runner.ts';
import { Failure } from './failures.ts';
import type { RunLimiter } from './runs/limiter.ts';


/** Only the text goes to the workflow stream. */
const textOnly = (delta: (text: string) => void): Emit => (e) => {
  if (e.type === 'content_delta' && typeof e.delta === 'string') delta(e.delta);
};

function idIn(config: Record<string, unknown>, key: string): string | null {
  const v = config[key];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || !UUID.test(v)) throw new Failure(`${key} must be an id`);
  return v.toLowerCase();
}

export function workflowAgents(opts: { calls: AiCalls; models: ModelRouter; settings: Settings; tools: ToolRunner; agents: AgentRunner; orchestrations: OrchestrationRunner; limiter: RunLimiter; stop: AbortSignal }): WorkflowAgents {
  const { calls, models, settings, tools, agents } = opts;

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
    const messages: ChatMessage[] = [...(prompt ? [{ role: 'system' as const, content: prompt }] : []), { role: 'user', content: c.message }];
    const result = await runLoop({
      models, model, messages, tools: toolset, maxSteps, tuning, signal: c.signal, emit: textOnly(c.delta),
      usage: { userId: ledgerUser(c.actor), feature: 'workflow', runId: c.executionId }, stepPrefix: `${c.blockId}/`,
    });
    return { content: result.output, tool_calls: result.toolCalls, stop_reason: result.stop, steps: result.steps, model };
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
      // A run this block starts draws from the actor's window as any agent run does (its 429 is the block's failure).
      opts.limiter.take('agent', c.actor);
      const agent = await agents.agent(caller, agentId).catch(() => {
        throw new Failure(`Agent ${agentId} does not exist or is not visible to the user running this workflow`);
      });
      const sessionId = idIn(c.config, 'session_id') ?? undefined;
      const run = await agents.run(caller, agent, { message: c.message, sessionId }, detachedLifetime(AbortSignal.any([c.signal, opts.stop])), textOnly(c.delta));
      return { content: run.output, tool_calls: run.tool_calls, stop_reason: run.stop_reason, steps: run.steps, session_id: run.session_id, run_id: run.run_id, usage: run.usage };
    },
    orchestration: async (c) => {
      const id = idIn(c.config, 'orchestration_id');
      if (!id) throw new Failure('an orchestration block needs orchestration_id');
      const caller = actorContext(c.actor);
      opts.limiter.take('agent', c.actor);
      const [row] = await calls.as<OrchestrationRow>(caller, 'select id, name, strategy, model, system_prompt, settings from ai.orchestrations where id = $1', [id]);
      if (!row) throw new Failure(`Orchestration ${id} does not exist or is not visible to the user running this workflow`);
      const sessionId = idIn(c.config, 'session_id') ?? undefined;
      const run = await opts.orchestrations.run(caller, row, { message: c.message, sessionId }, detachedLifetime(AbortSignal.any([c.signal, opts.stop])), textOnly(c.delta));
      return { content: run.output, delegations: run.delegations, stop_reason: run.stop_reason, steps: run.steps, session_id: run.session_id, run_id: run.run_id, usage: run.usage };
    },
  };
}
