// A conversation as the playground shows it: turns of a user's message and
// the agent's answer, each answer built from its run's events (text as it
// streams, tool calls with their results, approvals asked and answered,
// delegations, usage). Pure: the same events give the same turns, whether
// they arrive live or are read again from a run's stored stream.
import type { RunEvent } from '../../api/events.ts';

export type ToolCall = { id: string; name: string; arguments: unknown; ok?: boolean; result?: string; error?: string };
export type Approval = { id: string; message: string | null; tool: { name: string; arguments: unknown } | null; status: 'pending' | string };
export type Delegation = { id: string; agent: string; task: string; text: string; ok?: boolean };
export type Turn = {
  key: string; user: string; answer: string; runId: string | null; status: 'running' | 'completed' | 'failed';
  tools: ToolCall[]; approvals: Approval[]; delegations: Delegation[]; usage: { tokens_in: number; tokens_out: number; cost_usd: number } | null; error: string | null;
};

export const newTurn = (key: string, user: string): Turn => ({ key, user, answer: '', runId: null, status: 'running', tools: [], approvals: [], delegations: [], usage: null, error: null });

/** One event's change to a turn. */
export function applyRunEvent(turn: Turn, e: RunEvent['data']): Turn {
  const d = e as Record<string, unknown>;
  const s = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : '');
  switch (e.type) {
    case 'start': return { ...turn, runId: s('run_id') };
    case 'content_delta': return d.delegation_id ? turn : { ...turn, answer: turn.answer + s('delta') };
    case 'tool_call': return d.delegation_id ? turn : { ...turn, tools: [...turn.tools.filter((t) => t.id !== s('id')), { id: s('id'), name: s('name'), arguments: d.arguments }] };
    case 'tool_result': return { ...turn, tools: turn.tools.map((t) => (t.id === s('id') ? { ...t, ok: d.ok === true, ...(d.result !== undefined ? { result: s('result') } : {}), ...(d.error !== undefined ? { error: s('error') } : {}) } : t)) };
    case 'approval_requested': {
      const call = d.tool_call as { name?: string; arguments?: unknown } | undefined;
      const approval: Approval = { id: s('approval_id'), message: typeof d.message === 'string' ? d.message : null, tool: call?.name ? { name: call.name, arguments: call.arguments } : null, status: 'pending' };
      return { ...turn, approvals: [...turn.approvals.filter((a) => a.id !== approval.id), approval] };
    }
    case 'approval_resolved': return { ...turn, approvals: turn.approvals.map((a) => (a.id === s('approval_id') ? { ...a, status: s('status') } : a)) };
    case 'delegation_started': return { ...turn, delegations: [...turn.delegations, { id: s('delegation_id'), agent: s('agent_name'), task: s('task'), text: '' }] };
    case 'delegation_delta': return { ...turn, delegations: turn.delegations.map((x) => (x.id === s('delegation_id') ? { ...x, text: x.text + s('delta') } : x)) };
    case 'delegation_completed': return { ...turn, delegations: turn.delegations.map((x) => (x.id === s('delegation_id') ? { ...x, ok: d.ok === true } : x)) };
    case 'usage': return { ...turn, usage: { tokens_in: Number(d.tokens_in), tokens_out: Number(d.tokens_out), cost_usd: Number(d.cost_usd) } };
    case 'complete': return { ...turn, status: 'completed', answer: typeof d.output === 'string' && d.output ? d.output : turn.answer };
    case 'error': return { ...turn, status: 'failed', error: s('error') };
  }
  return turn;
}
