// A conversation as runs use it: its messages as the model reads them and
// as runs store them. Agent and orchestration runs both keep theirs here; a
// run begins in its session with ai.begin_run (store.ts); its history as the
// model reads it is compaction.ts's.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { HandedOver } from '../failures.ts';
import type { ChatMessage } from '../providers/router.ts';

/** A stored message as conversations keep them (sessions and the copilot's). */
export type StoredMessage = { role: 'user' | 'assistant' | 'tool'; content: string | null; tool_calls: Array<{ id: string; name: string; arguments: string }> | null; tool_call_id: string | null };
/** A run's stored step as a resume reads it: what the model reads again, and how a tool call went. */
export type StoredStep = StoredMessage & { is_error: boolean; latency_ms: number | null };

/** A stored message as the model reads it: assistant tool calls and tool results included. */
export function chatMessageOf(m: StoredMessage): ChatMessage {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content ?? '' };
  if (m.role === 'assistant') {
    return m.tool_calls && m.tool_calls.length > 0
      ? { role: 'assistant', content: m.content, tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
      : { role: 'assistant', content: m.content ?? '' };
  }
  return { role: 'user', content: m.content ?? '' };
}

/** A new session's title: its first message, cut to 80 characters. */
export const sessionTitle = (message: string) => (message.length > 80 ? `${message.slice(0, 77)}...` : message);

/** 404 unless the caller can use this session (checked before a stream's headers go out). */
export async function requireSession(calls: AiCalls, caller: RequestContext, sessionId: string): Promise<void> {
  if ((await calls.as(caller, 'select 1 from ai.sessions where id = $1', [sessionId])).length === 0) throw aiErrors.notFound('Session');
}

export type NewMessage = { role: string; content: string | null; tool_calls?: unknown; tool_call_id?: string | undefined; name?: string | undefined; is_error?: boolean | undefined; latency_ms?: number | undefined; retrieved_context?: unknown[] | undefined };

/**
 * Stores a run's messages in its session as the caller, tied to the agent run
 * or orchestration run they belong to: only while `runner` (this process)
 * still carries the run. A process that was taken for dead (its heartbeat
 * stalled past REALTIME_NODE_REAP_MS) and whose run another process resumed
 * writes nothing more: HandedOver stops it, the record left as it is.
 */
export function messageRecorder(calls: AiCalls, caller: RequestContext, sessionId: string, run: { column: 'run_id' | 'orchestration_run_id'; id: string; runner: string }) {
  const table = run.column === 'run_id' ? 'ai.agent_runs' : 'ai.orchestration_runs';
  return async (m: NewMessage): Promise<void> => {
    const stored = await calls.as(caller, `insert into ai.session_messages (session_id, ${run.column}, role, content, tool_calls, tool_call_id, name, is_error, latency_ms, retrieved_context)
        select $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 where exists (select 1 from ${table} r where r.id = $2 and r.runner = $11) returning 1`,
      [sessionId, run.id, m.role, m.content, m.tool_calls === undefined ? null : JSON.stringify(m.tool_calls), m.tool_call_id ?? null, m.name ?? null, m.is_error ?? false, m.latency_ms ?? null, JSON.stringify(m.retrieved_context ?? []), run.runner]);
    if (stored.length === 0) throw new HandedOver(run.id);
  };
}
