import { type StoredStep, outcomeOf, type LoopResume } from './step.ts';
// Where a resumed agent run picks up, read from the messages it stored after
// the user's: one assistant message per completed model call, one tool
// message per finished tool call. The last assistant message decides: an
// answer (only the run's end was lost), or tool calls, those without a
// stored result run now in their places (the one in flight at the crash
// among them: run again, with the same idempotency key). Those with a stored
// result are reported again (`done`): a crash between storing a result and
// storing its event would otherwise keep it from the run's followers.

export function resumePoint(stored: StoredStep[]): LoopResume {
  const steps = stored.filter((m) => m.role === 'assistant').length;
  const lastAt = stored.findLastIndex((m) => m.role === 'assistant');
  if (lastAt < 0) return { steps: 0, pending: [], done: [] };
  const last = stored[lastAt]!;
  if (!last.tool_calls || last.tool_calls.length === 0) return { steps, pending: [], done: [], answered: last.content ?? '' };
  const results = new Map(stored.slice(lastAt + 1).filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m]));
  const pending = last.tool_calls.map((call, n) => ({ n, call })).filter(({ call }) => !results.has(call.id));
  const done = last.tool_calls.flatMap((call) => {
    const result = results.get(call.id);
    return result ? [{ call, outcome: outcomeOf(result.content ?? '', result.is_error), latency_ms: result.latency_ms ?? 0 }] : [];
  });
  return { steps, pending, done };
}
