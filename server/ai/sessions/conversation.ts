// A conversation as runs use it: its messages as the model reads them and
// as runs store them. Agent and orchestration runs both keep theirs here; a
// run begins in its session with ai.begin_run (store.ts); its history as the
// model reads it is compaction.ts's.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { HandedOver } from '../failures.ts';
import type { ChatMessage } from '../providers/router.ts';
import { chargeRow, chargesStored, type UsageEntry } from '../usage/ledger.ts';
import type { StoredMessage } from '../steps/step.ts';

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

/** The run a step belongs to, the process storing it, and what to do when its record says the run was cancelled. */
export type StepOwner = { kind: 'agent' | 'orchestration'; id: string; runner: string; cancelled: () => void };

/**
 * What a step statement's refusal means (sql/0090, 0091): the run was
 * cancelled while its process had not heard (it stops here, at its step
 * boundary, as a heard cancel stops it), or another process carries it now
 * (HandedOver: this one stops, storing nothing more).
 */
export function stopIfRefused(run: StepOwner, row: { stored: boolean; cancelled: boolean } | undefined): void {
  if (row?.cancelled) {
    run.cancelled();
    throw aiErrors.runCancelled();
  }
  if (!row?.stored) throw new HandedOver(run.id);
}

export type NewMessage = { role: string; content: string | null; tool_calls?: unknown; tool_call_id?: string | undefined; name?: string | undefined; is_error?: boolean | undefined; latency_ms?: number | undefined; retrieved_context?: unknown[] | undefined; charges?: UsageEntry[] | undefined };

/**
 * Stores a run's messages in its session, tied to the agent run or
 * orchestration run they belong to, with the ledger rows of the model call a
 * message answers (its `charges`), in one statement (ai.record_run_message,
 * sql/0080). Only while `runner` (this process) still carries the run: a
 * process that was taken for dead (its heartbeat stalled past
 * REALTIME_NODE_REAP_MS) and whose run another process resumed writes no
 * message more (the charges are kept: the call was made). HandedOver stops
 * it, the record left as it is. A run cancelled meanwhile stores no more
 * steps either (sql/0090): RUN_CANCELLED ends it. As the service role: the run's record binds
 * session, run and process (ai.begin_run made it as the caller).
 */
export function messageRecorder(calls: AiCalls, sessionId: string, run: StepOwner) {
  return async (m: NewMessage): Promise<void> => {
    const charges = m.charges ?? [];
    const [row] = await calls.asService<{ stored: boolean; cancelled: boolean; costs: number[] }>('select stored, cancelled, costs from ai.record_run_message(p_kind => $1, p_run => $2, p_session => $3, p_runner => $4, p_role => $5, p_content => $6, p_tool_calls => $7, p_tool_call_id => $8, p_name => $9, p_is_error => $10, p_latency_ms => $11, p_retrieved => $12, p_charges => $13)',
      [run.kind, run.id, sessionId, run.runner, m.role, m.content, m.tool_calls === undefined ? null : JSON.stringify(m.tool_calls), m.tool_call_id ?? null, m.name ?? null,
        m.is_error ?? false, m.latency_ms ?? null, JSON.stringify(m.retrieved_context ?? []), charges.length > 0 ? JSON.stringify(charges.map(chargeRow)) : null]);
    if (charges.length > 0) chargesStored(charges, row?.costs ?? []);
    stopIfRefused(run, row);
  };
}
