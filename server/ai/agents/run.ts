// One agent run (POST /api/agents/{id}/run): the session's earlier messages,
// the user's message, then model and tool calls until the model answers or
// the step cap (settings.max_steps, default 10) is reached. Every message is
// stored as it happens; every model call goes through the router (usage
// ledger, keys, 402) tagged with the run and its step; the run record ends
// with its tokens and cost (ai.finish_agent_run).
import type { Request } from 'express';
import type { ApiError } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import type { ChatMessage, ChatResult, ChatTool, ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { BUILTIN_TOOLS } from '../tools/builtin/index.ts';
import type { AgentRow } from './store.ts';
import { hookRunner, type HookRow, type HookVerdict } from './hook-runner.ts';
import type { AssignedTool, ToolRunner, ToolServices } from './tools/run.ts';

export type RunToolCall = { id: string; name: string; arguments: unknown; ok: boolean; result?: string; error?: string };
export type RunResult = {
  session_id: string; run_id: string; status: 'completed'; output: string; stop_reason: 'answered' | 'max_steps';
  steps: number; tool_calls: RunToolCall[]; usage: { tokens_in: number; tokens_out: number; cost_usd: number };
};

type MessageRow = { role: 'user' | 'assistant' | 'tool'; content: string | null; tool_calls: Array<{ id: string; name: string; arguments: string }> | null; tool_call_id: string | null };
type OfferedTool = { chat: ChatTool; assigned: AssignedTool };

const DEFAULT_MAX_STEPS = 10;

function historyOf(rows: MessageRow[]): ChatMessage[] {
  return rows.map((m): ChatMessage => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content ?? '' };
    if (m.role === 'assistant') {
      return m.tool_calls && m.tool_calls.length > 0
        ? { role: 'assistant', content: m.content, tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
        : { role: 'assistant', content: m.content ?? '' };
    }
    return { role: 'user', content: m.content ?? '' };
  });
}

export function agentRunner(opts: { calls: AiCalls; models: ModelRouter; tools: ToolRunner; settings: Settings; hookServices: Pick<ToolServices, 'fetch' | 'sandbox'> }) {
  const { calls, models, tools, settings } = opts;

  /** The agent's assigned tools as the model sees them, and how to run each. */
  const offered = async (req: Request, agentId: string): Promise<OfferedTool[]> => {
    const rows = await calls.call<{ tool_name: string; tool_type: 'builtin' | 'custom'; config_override: Record<string, unknown>; description: string | null; input_schema: Record<string, unknown> | null; config: Record<string, unknown> | null }>(req,
      `select a.tool_name, a.tool_type, a.config_override, t.description, t.input_schema, t.config
         from ai.agent_tools a left join ai.tools t on t.id = a.tool_id where a.agent_id = $1 order by a.created_at, a.id`, [agentId]);
    return rows.flatMap((r): OfferedTool[] => {
      if (r.tool_type === 'builtin') {
        const def = BUILTIN_TOOLS.find((t) => t.name === r.tool_name);
        if (!def) return [];
        return [{ chat: { type: 'function', function: { name: def.name, description: def.description, parameters: def.inputSchema } }, assigned: { kind: 'builtin', name: def.name, override: r.config_override } }];
      }
      // A custom tool the caller can no longer see (deleted, or not theirs) is not offered.
      if (!r.input_schema) return [];
      return [{ chat: { type: 'function', function: { name: r.tool_name, description: r.description ?? '', parameters: r.input_schema } }, assigned: { kind: 'custom', name: r.tool_name, config: r.config ?? {} } }];
    });
  };

  const session = async (req: Request, agentId: string, sessionId: string | undefined, message: string) => {
    if (sessionId) {
      const [row] = await calls.call<{ id: string }>(req, 'select id from ai.sessions where id = $1', [sessionId]);
      if (!row) throw aiErrors.notFound('Session');
      return row.id;
    }
    const title = message.length > 80 ? `${message.slice(0, 77)}...` : message;
    return (await calls.call<{ id: string }>(req, 'insert into ai.sessions (agent_id, title) values ($1, $2) returning id', [agentId, title]))[0]!.id;
  };

  return {
    /** 404 unless the caller can use this session (checked before a stream's headers go out). */
    requireSession: async (req: Request, sessionId: string) => {
      if ((await calls.call(req, 'select 1 from ai.sessions where id = $1', [sessionId])).length === 0) throw aiErrors.notFound('Session');
    },
    /**
     * Runs to the end. With `emit`, model calls stream and the run reports as
     * it goes: start, content_delta, tool_call, tool_result, usage, complete.
     */
    run: async (req: Request, agent: AgentRow, message: string, sessionId: string | undefined, signal: AbortSignal, emit?: (event: Record<string, unknown>) => void): Promise<RunResult> => {
      const userId = req.auth!.role === 'service_role' ? null : String(req.auth!.claims.sub);
      const sid = await session(req, agent.id, sessionId, message);
      const history = historyOf(await calls.call<MessageRow>(req, 'select role, content, tool_calls, tool_call_id from ai.session_messages where session_id = $1 order by id', [sid]));
      const [{ id: runId }] = (await calls.call<{ id: string }>(req, 'insert into ai.agent_runs (session_id, agent_id, input) values ($1, $2, $3) returning id', [sid, agent.id, message])) as [{ id: string }];
      const store = (m: { role: string; content: string | null; tool_calls?: unknown; tool_call_id?: string; name?: string; is_error?: boolean }) =>
        calls.call(req, 'insert into ai.session_messages (session_id, run_id, role, content, tool_calls, tool_call_id, name, is_error) values ($1, $2, $3, $4, $5, $6, $7, $8)',
          [sid, runId, m.role, m.content, m.tool_calls === undefined ? null : JSON.stringify(m.tool_calls), m.tool_call_id ?? null, m.name ?? null, m.is_error ?? false]);
      const finish = (status: 'completed' | 'failed', output: string | null, error: string | null, stop: string | null, steps: number) =>
        calls.asService('select ai.finish_agent_run($1, $2, $3, $4, $5, $6)', [runId, status, output, error, stop, steps]);

      let steps = 0;
      emit?.({ type: 'start', session_id: sid, run_id: runId });
      const hooks = await calls.call<HookRow>(req, 'select id, event, type, config, matcher, position from ai.agent_hooks where agent_id = $1 and enabled order by position, created_at, id', [agent.id]);
      const firing = hookRunner(opts.hookServices, emit);
      const base = { agent_id: agent.id, session_id: sid, run_id: runId };
      const fire = (event: string, extra: Record<string, unknown> = {}): Promise<HookVerdict> => (hooks.length === 0 ? Promise.resolve({ decision: 'allow' }) : firing.fire(hooks, { event, ...base, ...extra }, signal));
      try {
        await store({ role: 'user', content: message });
        await fire('OnRunStart', { message });
        const model = agent.model || (await settings.string('AGENT_DEFAULT_MODEL'));
        const { max_steps: maxStepsSetting, ...tuning } = agent.settings as { max_steps?: unknown } & Record<string, unknown>;
        const maxSteps = typeof maxStepsSetting === 'number' && Number.isInteger(maxStepsSetting) && maxStepsSetting > 0 ? Math.min(maxStepsSetting, 100) : DEFAULT_MAX_STEPS;
        const toolset = await offered(req, agent.id);
        const messages: ChatMessage[] = [...(agent.system_prompt ? [{ role: 'system' as const, content: agent.system_prompt }] : []), ...history, { role: 'user', content: message }];
        const toolCalls: RunToolCall[] = [];
        let output = '';
        let stop: 'answered' | 'max_steps' = 'max_steps';
        while (steps < maxSteps) {
          steps++;
          const request = {
            model, messages, settings: tuning, signal,
            ...(toolset.length > 0 ? { tools: toolset.map((t) => t.chat) } : {}),
            context: { userId, feature: 'agent', runId, step: `step-${steps}` },
          };
          let result: ChatResult | undefined;
          if (emit) {
            for await (const event of models.chatStream(request)) {
              if (event.type === 'content' && event.delta) emit({ type: 'content_delta', delta: event.delta, step: steps });
              else if (event.type === 'done') result = event.result;
            }
            if (!result) throw new Error('the model stream ended without a result');
          } else result = await models.chat(request);
          output = result.content ?? '';
          if (result.toolCalls.length === 0) {
            stop = 'answered';
            await fire('PreResponse', { response: output });
            await store({ role: 'assistant', content: output });
            break;
          }
          messages.push({ role: 'assistant', content: result.content, tool_calls: result.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) });
          await store({ role: 'assistant', content: result.content, tool_calls: result.toolCalls });
          for (const call of result.toolCalls) {
            const tool = toolset.find((t) => t.assigned.name === call.name);
            emit?.({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments, step: steps });
            let args: unknown;
            let outcome: { ok: true; output: string } | { ok: false; error: string };
            try {
              args = call.arguments ? JSON.parse(call.arguments) : {};
            } catch {
              args = undefined;
            }
            if (args === undefined) outcome = { ok: false, error: `The arguments of ${call.name} are not valid JSON` };
            else if (!tool) outcome = { ok: false, error: `Unknown tool ${call.name}: it is not assigned to this agent` };
            else {
              const verdict = await fire('PreToolUse', { tool_name: call.name, arguments: args });
              if (verdict.decision === 'deny') outcome = { ok: false, error: `Denied by hook: ${verdict.reason ?? 'no reason given'}` };
              else {
                if (verdict.arguments) args = verdict.arguments;
                outcome = await tools.run(tool.assigned, args, { userId }, signal);
                await fire('PostToolUse', { tool_name: call.name, arguments: args, result: outcome.ok ? outcome.output : { error: outcome.error } });
              }
            }
            if (args === undefined) args = call.arguments;
            const content = outcome.ok ? outcome.output : `Error: ${outcome.error}`;
            toolCalls.push({ id: call.id, name: call.name, arguments: args, ok: outcome.ok, ...(outcome.ok ? { result: outcome.output } : { error: outcome.error }) });
            emit?.({ type: 'tool_result', id: call.id, name: call.name, ok: outcome.ok, ...(outcome.ok ? { result: outcome.output } : { error: outcome.error }) });
            messages.push({ role: 'tool', tool_call_id: call.id, content });
            await store({ role: 'tool', content, tool_call_id: call.id, name: call.name, is_error: !outcome.ok });
          }
        }
        await finish('completed', output, null, stop, steps);
        await fire('OnRunComplete', { response: output });
        const [usage] = await calls.call<{ tokens_in: number; tokens_out: number; cost_usd: string }>(req, 'select tokens_in, tokens_out, cost_usd from ai.agent_runs where id = $1', [runId]);
        await calls.call(req, 'update ai.sessions set updated_at = now() where id = $1', [sid]);
        const answer: RunResult = {
          session_id: sid, run_id: runId, status: 'completed', output, stop_reason: stop, steps, tool_calls: toolCalls,
          usage: { tokens_in: usage!.tokens_in, tokens_out: usage!.tokens_out, cost_usd: Number(usage!.cost_usd) },
        };
        emit?.({ type: 'usage', ...answer.usage });
        emit?.({ type: 'complete', session_id: sid, run_id: runId, output, stop_reason: stop, steps });
        return answer;
      } catch (err) {
        await finish('failed', null, (err as Error).message, null, steps).catch(() => undefined);
        throw Object.assign(err as ApiError, { details: { ...((err as ApiError).details as object | undefined), session_id: sid, run_id: runId } });
      }
    },
  };
}

export type AgentRunner = ReturnType<typeof agentRunner>;
