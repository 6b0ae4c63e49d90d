// A delegation's own checkpoints (sql/0074): each step of a member (an
// orchestration's member, an agent's sub-agent) is stored as it completes,
// beside its run, and a resumed run's delegation in flight goes on from the
// last one instead of from its start. What a fresh run's member stored is
// read back only when its run is resumed.
import type { AiCalls } from '../calls.ts';
import { stopIfRefused, type StepOwner } from './conversation.ts';
import { argumentsOf, loopToolCall, outcomeOf, type LoopToolCall, type RecordedMessage, type StoredStep } from '../steps/step.ts';

/** A delegation's steps so far, and where its next ones go. */
export type MemberCheckpoint = { stored: StoredStep[]; record: (m: RecordedMessage) => Promise<void> };
/**
 * A delegation's checkpoint by its name within the run (a delegation id, or a
 * sub-agent call's idempotency key); callId: the run's tool call that
 * delegated, kept with each step so the run's timeline finds them (sql/0078).
 */
export type MemberCheckpoints = (delegation: string, callId?: string) => Promise<MemberCheckpoint>;

export function memberCheckpoints(calls: AiCalls, run: StepOwner & { resumed: boolean }): MemberCheckpoints {
  return async (delegation, callId) => ({
    stored: run.resumed
      ? await calls.asService<StoredStep>('select role, content, tool_calls, tool_call_id, is_error, latency_ms from ai.member_messages where run_id = $1 and delegation = $2 order by id', [run.id, delegation])
      : [],
    record: async (m) => {
      const [row] = await calls.asService<{ stored: boolean; cancelled: boolean }>('select stored, cancelled from ai.record_member_message(p_kind => $1, p_run => $2, p_runner => $3, p_delegation => $4, p_message => $5)',
        [run.kind, run.id, run.runner, delegation, JSON.stringify(callId ? { ...m, call_id: callId } : m)]);
      // Cancelled unheard (sql/0091), or another process carries the run now: the member stops, as its run does.
      stopIfRefused(run, row);
    },
  });
}

/**
 * The tool calls stored steps record as finished, as a loop reports them: a
 * member's before its run resumed (a delegation's record lists them all), or
 * a run's own when its answer is read back (agents/run-answer.ts).
 */
export function finishedToolCalls(stored: StoredStep[]): LoopToolCall[] {
  const results = new Map(stored.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m]));
  return stored.flatMap((m) => (m.role === 'assistant' && m.tool_calls ? m.tool_calls : [])).flatMap((call): LoopToolCall[] => {
    const done = results.get(call.id);
    if (!done) return [];
    // Arguments that were not JSON are reported as sent, as the loop reports them.
    return [loopToolCall(call, argumentsOf(call.arguments) ?? call.arguments, outcomeOf(done.content ?? '', done.is_error), done.latency_ms ?? 0)];
  });
}
