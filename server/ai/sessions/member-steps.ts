// A delegation's own checkpoints (sql/0074): each step of a member (an
// orchestration's member, an agent's sub-agent) is stored as it completes,
// beside its run, and a resumed run's delegation in flight goes on from the
// last one instead of from its start. What a fresh run's member stored is
// read back only when its run is resumed.
import { HandedOver } from '../failures.ts';
import type { AiCalls } from '../calls.ts';
import type { RecordedMessage } from '../agents/loop.ts';
import type { StoredMessage } from './conversation.ts';

/** A delegation's steps so far, and where its next ones go. */
export type MemberCheckpoint = { stored: StoredMessage[]; record: (m: RecordedMessage) => Promise<void> };
/** A delegation's checkpoint by its name within the run (a delegation id, or a sub-agent call's idempotency key). */
export type MemberCheckpoints = (delegation: string) => Promise<MemberCheckpoint>;

export function memberCheckpoints(calls: AiCalls, run: { kind: 'agent' | 'orchestration'; id: string; runner: string; resumed: boolean }): MemberCheckpoints {
  return async (delegation) => ({
    stored: run.resumed
      ? await calls.asService<StoredMessage>('select role, content, tool_calls, tool_call_id from ai.member_messages where run_id = $1 and delegation = $2 order by id', [run.id, delegation])
      : [],
    record: async (m) => {
      const [row] = await calls.asService<{ ok: boolean }>('select ai.record_member_message($1, $2, $3, $4, $5) as ok', [run.kind, run.id, run.runner, delegation, JSON.stringify(m)]);
      // Another process carries the run now (this one was taken for dead): it stops, storing nothing more.
      if (!row?.ok) throw new HandedOver(run.id);
    },
  });
}
