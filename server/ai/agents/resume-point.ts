// Where a resumed agent run picks up, read from the messages it stored after
// the user's: one assistant message per completed model call, one tool
// message per finished tool call. The last assistant message decides: an
// answer (only the run's end was lost), or tool calls, those without a
// stored result run now in their places (the one in flight at the crash
// among them: run again, with the same idempotency key).
import type { StoredMessage } from '../sessions/conversation.ts';
import type { LoopResume } from './loop.ts';

export function resumePoint(stored: StoredMessage[]): LoopResume {
  const steps = stored.filter((m) => m.role === 'assistant').length;
  const lastAt = stored.findLastIndex((m) => m.role === 'assistant');
  if (lastAt < 0) return { steps: 0, pending: [] };
  const last = stored[lastAt]!;
  if (!last.tool_calls || last.tool_calls.length === 0) return { steps, pending: [], answered: last.content ?? '' };
  const answered = new Set(stored.slice(lastAt + 1).filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
  const pending = last.tool_calls.map((call, n) => ({ n, call })).filter(({ call }) => !answered.has(call.id));
  return { steps, pending };
}
