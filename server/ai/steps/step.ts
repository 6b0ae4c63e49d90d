// The vocabulary of a run's steps, shared by every layer that runs, stores
// or resumes them (the agent loop, sessions, runs): a tool call's outcome
// and record, a step as a run records it and as it is stored, and where a
// resumed run picks up.
import type { ChatResult } from '../providers/router.ts';
import type { UsageEntry } from '../usage/ledger.ts';

export type ToolOutcome = { ok: true; output: string } | { ok: false; error: string };
export type LoopToolCall = { id: string; name: string; arguments: unknown; ok: boolean; result?: string; error?: string; latency_ms: number };
/** A message as the run record keeps it; `charges`: the ledger entries of the model call an assistant message answers (LoopInput.chargesWithRecord). */
export type RecordedMessage = { role: 'assistant' | 'tool'; content: string | null; tool_calls?: unknown; tool_call_id?: string; name?: string; is_error?: boolean; latency_ms: number; charges?: UsageEntry[] };

/** A tool call's outcome as the model reads it (and as it is stored): its output, or its error marked as one. */
export const toolMessage = (outcome: ToolOutcome): string => (outcome.ok ? outcome.output : `Error: ${outcome.error}`);
/** A tool call's arguments as the model sent them (JSON text), parsed; undefined when they are not JSON. */
export function argumentsOf(raw: string): unknown {
  try {
    return raw ? JSON.parse(raw) : {};
  } catch {
    return undefined;
  }
}
/** A finished tool call as a run reports it. */
export const loopToolCall = (call: { id: string; name: string }, args: unknown, outcome: ToolOutcome, latencyMs: number): LoopToolCall =>
  ({ id: call.id, name: call.name, arguments: args, ok: outcome.ok, ...(outcome.ok ? { result: outcome.output } : { error: outcome.error }), latency_ms: latencyMs });
/** A stored tool message back as its outcome. */
export const outcomeOf = (content: string, isError: boolean): ToolOutcome => (isError ? { ok: false, error: content.replace(/^Error: /, '') } : { ok: true, output: content });

/**
 * Where a resumed run picks up (runs/resume.ts): the steps it completed, and
 * the tool calls of its last step that have no stored result (run now, in
 * their places), or its stored answer when only the run's end was lost.
 */
export type LoopResume = {
  steps: number;
  pending: Array<{ n: number; call: ChatResult['toolCalls'][number] }>;
  /** The last step's calls with a stored result: reported again, in order, before the pending ones run (followers drop what they have). */
  done: Array<{ call: ChatResult['toolCalls'][number]; outcome: ToolOutcome; latency_ms: number }>;
  answered?: string;
};

/** A stored message as conversations keep them (sessions and the copilot's). */
export type StoredMessage = { role: 'user' | 'assistant' | 'tool'; content: string | null; tool_calls: Array<{ id: string; name: string; arguments: string }> | null; tool_call_id: string | null };
/** A run's stored step as a resume reads it: what the model reads again, and how a tool call went. */
export type StoredStep = StoredMessage & { is_error: boolean; latency_ms: number | null };

