// Firing an agent's hooks during a standalone run (spec 2.3b). Hooks fire in
// ascending position; on tool events (PreToolUse, PostToolUse, OnDelegation) a `matcher`
// limits a hook to one tool; other events ignore it. Unknown events and
// disabled hooks never fire.
//
//   http   POST config.url (SSRF guard; config.headers; config.timeout_seconds,
//          default 5) with {event, agent_id, session_id, run_id, tool_name,
//          arguments, result, response}; it may answer {decision: "allow" |
//          "deny", reason, arguments}. A hook that fails or times out allows
//          (it is reported as a hook_error event), as agent SDK hooks do.
//   rule   config.condition: a JavaScript expression evaluated in the sandbox
//          with the same fields in scope; true applies config.decision
//          (default "deny") with config.reason. Or config.rules: [{condition,
//          decision, reason}], the first true one decides.
//
// A deny on PreToolUse or OnDelegation blocks the call (the model reads
// "Denied by hook: reason"); `arguments` from an allow rewrites it (a
// delegation's `task`). On other events decisions are recorded and change
// nothing. OnDelegation also carries sub_agent_id, sub_agent_name and task.
//
//   approval  pauses the run on a human (approvals.ts): approve allows (with
//          the approver's arguments, if any), deny or a timeout denies. An
//          approval that cannot be asked denies: it fails closed.
import { outboundRequest } from '../runtime/net/message.ts';
import type { ToolServices } from '../tools/runner.ts';
import type { Emit } from '../steps/events.ts';
import { idempotencyKey, withIdempotencyKey } from '../runtime/net/idempotency.ts';
import { Parked } from '../failures.ts';

export type HookRow = { id: string; event: string; type: string; config: Record<string, unknown>; matcher: string | null; position: number };
export type HookPayload = { event: string; agent_id: string; session_id: string; run_id: string; message?: string; tool_name?: string; tool_call_id?: string; step?: number; sub_agent_id?: string; sub_agent_name?: string; task?: string; arguments?: unknown; result?: unknown; response?: string };
export type HookVerdict = { decision: 'allow' | 'deny'; reason?: string; arguments?: Record<string, unknown>; hook_id?: string };

// OnDelegation is a tool event too: its tool is the sub-agent's delegate tool.
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'OnDelegation']);

type Ask = (hook: HookRow, payload: HookPayload) => Promise<HookVerdict>;

export function hookRunner(services: Pick<ToolServices, 'fetch' | 'sandbox'>, emit?: Emit, ask?: Ask) {
  const http = async (hook: HookRow, payload: HookPayload, signal: AbortSignal): Promise<HookVerdict> => {
    const url = hook.config.url;
    if (typeof url !== 'string') throw new Error('config.url is missing');
    const seconds = typeof hook.config.timeout_seconds === 'number' && hook.config.timeout_seconds > 0 ? Math.min(hook.config.timeout_seconds, 60) : 5;
    const outbound = outboundRequest('POST', hook.config.headers, payload);
    // One key per hook, run, event and tool call (with its step: a model may reuse a call id): the receiver can tell a repeat from a new firing.
    const key = idempotencyKey('hook', payload.run_id, hook.id, payload.event, String(payload.step ?? ''), payload.tool_call_id ?? '');
    const res = await services.fetch(url, { method: 'POST', ...outbound, headers: withIdempotencyKey(outbound.headers, key), timeoutMs: seconds * 1000, signal });
    if (res.status >= 400) throw new Error(`answered HTTP ${res.status}`);
    let answer: { decision?: unknown; reason?: unknown; arguments?: unknown } = {};
    try {
      answer = res.body.trim() ? JSON.parse(res.body) as typeof answer : {};
    } catch {
      throw new Error('answered something other than JSON');
    }
    return {
      decision: answer.decision === 'deny' ? 'deny' : 'allow',
      ...(typeof answer.reason === 'string' ? { reason: answer.reason } : {}),
      ...(answer.arguments && typeof answer.arguments === 'object' && !Array.isArray(answer.arguments) ? { arguments: answer.arguments as Record<string, unknown> } : {}),
    };
  };

  const rule = async (hook: HookRow, payload: HookPayload): Promise<HookVerdict> => {
    const c = hook.config;
    const rules = Array.isArray(c.rules) ? c.rules as Array<Record<string, unknown>> : [{ condition: c.condition, decision: c.decision, reason: c.reason }];
    for (const r of rules) {
      if (typeof r.condition !== 'string' || !r.condition.trim()) continue;
      const { value } = await services.sandbox.pool.run({ code: r.condition, expression: true, scope: { ...payload }, timeoutMs: Math.min(1000, services.sandbox.timeoutMs), memoryMb: services.sandbox.memoryMb });
      if (value) return { decision: r.decision === 'allow' ? 'allow' : 'deny', ...(typeof r.reason === 'string' ? { reason: r.reason } : {}) };
    }
    return { decision: 'allow' };
  };

  return {
    /** Fires the hooks of `payload.event` in order; the first deny wins, allowed argument rewrites chain. */
    fire: async (hooks: HookRow[], payload: HookPayload, signal: AbortSignal): Promise<HookVerdict> => {
      let current = payload;
      let rewritten: Record<string, unknown> | undefined;
      for (const hook of hooks) {
        if (hook.event !== payload.event) continue;
        if (TOOL_EVENTS.has(payload.event) && hook.matcher && hook.matcher !== payload.tool_name) continue;
        let verdict: HookVerdict;
        try {
          if (hook.type === 'http') verdict = await http(hook, current, signal);
          else if (hook.type === 'rule') verdict = await rule(hook, current);
          else if (hook.type === 'approval' && ask) verdict = await ask(hook, current);
          else continue;
        } catch (err) {
          // A parked run unwinds to the run skeleton: not a hook failure.
          if (err instanceof Parked) throw err;
          emit?.({ type: 'hook_error', hook_id: hook.id, event: payload.event, error: (err as Error).message });
          if (hook.type !== 'approval') continue;
          if ((err as Error).name === 'AbortError' || signal.aborted) throw err;
          return { decision: 'deny', reason: `the approval could not be asked: ${(err as Error).message}`, hook_id: hook.id };
        }
        emit?.({ type: 'hook', hook_id: hook.id, event: payload.event, decision: verdict.decision, ...(verdict.reason ? { reason: verdict.reason } : {}) });
        if (verdict.decision === 'deny') return { ...verdict, hook_id: hook.id };
        if (verdict.arguments && (payload.event === 'PreToolUse' || payload.event === 'OnDelegation')) {
          rewritten = verdict.arguments;
          current = { ...current, arguments: rewritten };
        }
      }
      return { decision: 'allow', ...(rewritten ? { arguments: rewritten } : {}) };
    },
  };
}
