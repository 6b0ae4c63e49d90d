// Approval hooks (spec 2.3b): the run pauses on a human. An approval row is
// opened (ai.request_approval: the run becomes waiting_approval), the stream
// reports `approval_requested`, and the run waits for
// POST /api/agents/{id}/runs/{run_id}/approvals/{approval_id} or the hook's
// config.timeout (seconds, default 300), which denies (ai.expire_approval).
//
// The answer is a row change, so any replica may take it: the waiting run
// re-reads its row every second, and at once when the answer arrives in this
// process. A run paused this way is held beyond its client (runs/lifetime.ts).
//
// Waiting costs nothing (issue 29, sql/0068): a run that may park (one whose
// events are kept and that can resume) lets go of its process when no answer
// came within AI_APPROVAL_PARK_AFTER_MS (ai.park_agent_run; Parked unwinds
// it). It is then a row and a resume job due at the deadline; the answer
// brings the job forward. The resumed run asks the same question again and
// finds the approval already open (or answered), so nothing is asked twice.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import type { HookPayload, HookRow, HookVerdict } from './hook-runner.ts';
import type { Emit } from '../steps/events.ts';
import { Parked } from '../failures.ts';

export type ApprovalRow = {
  id: string; run_id: string; hook_id: string | null; event: string; tool_call_id: string | null; tool_name: string | null;
  arguments: unknown; message: string | null; status: 'pending' | 'approved' | 'denied' | 'timed_out';
  decided_arguments: Record<string, unknown> | null; decided_by: string | null; created_at: string; expires_at: string; decided_at: string | null;
};

const DEFAULT_TIMEOUT_SECONDS = 300;
const POLL_MS = 1000;

/** Whether and when a waiting run lets go of its process: this process's id, after how long. */
export type Parking = { runnerId: string; afterMs: number };

export function approvalDesk(calls: AiCalls, parking: Parking) {
  const waiting = new Map<string, () => void>();

  const sleep = (id: string, ms: number, signal: AbortSignal) => new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      waiting.delete(id);
      signal.removeEventListener('abort', stop);
      resolve();
    };
    const stop = () => {
      done();
      reject(signal.reason instanceof Error ? signal.reason : new Error('The run was stopped while waiting for approval'));
    };
    const timer = setTimeout(done, Math.max(10, ms));
    waiting.set(id, done);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });

  /** A new approval, reported as approval_requested. */
  const open = async (hook: HookRow, payload: HookPayload, timeout: number, emit?: Emit): Promise<ApprovalRow> => {
    const message = typeof hook.config.message === 'string' ? hook.config.message : null;
    const [opened] = await calls.asService<ApprovalRow>('select * from ai.request_approval(p_run => $1, p_hook => $2, p_event => $3, p_tool_call_id => $4, p_tool_name => $5, p_arguments => $6, p_message => $7, p_timeout => $8)',
      [payload.run_id, hook.id, payload.event, payload.tool_call_id ?? null, payload.tool_name ?? null,
        payload.arguments === undefined ? null : JSON.stringify(payload.arguments), message, timeout]);
    const a = opened!;
    emit?.({
      type: 'approval_requested', approval_id: a.id, hook_id: hook.id, event: a.event, run_id: payload.run_id, session_id: payload.session_id,
      ...(a.tool_name ? { tool_call: { id: a.tool_call_id, name: a.tool_name, arguments: a.arguments } } : {}),
      message: a.message, expires_at: a.expires_at,
    });
    return a;
  };

  return {
    /**
     * Opens an approval for this hook firing (or finds the one a resumed run
     * already opened: `reuse`) and waits for its answer; a timeout denies.
     * With `park`, a wait longer than AI_APPROVAL_PARK_AFTER_MS parks the run.
     */
    ask: async (hook: HookRow, payload: HookPayload, signal: AbortSignal, emit?: Emit, how: { park?: boolean; reuse?: boolean } = {}): Promise<HookVerdict> => {
      const timeout = typeof hook.config.timeout === 'number' && hook.config.timeout > 0 ? Math.ceil(hook.config.timeout) : DEFAULT_TIMEOUT_SECONDS;
      const park = how.park ?? false;
      // A resumed run's question at the step it picked up may be the run's last one, open or answered already.
      const [asked] = how.reuse ? await calls.asService<ApprovalRow>(`select * from (select * from ai.agent_run_approvals where run_id = $1 order by created_at desc limit 1) last
          where hook_id = $2 and event = $3 and tool_call_id is not distinct from $4`, [payload.run_id, hook.id, payload.event, payload.tool_call_id ?? null]) : [];
      const a = asked ?? await open(hook, payload, timeout, emit);
      const since = Date.now();
      for (;;) {
        const [row] = await calls.asService<Pick<ApprovalRow, 'status' | 'decided_arguments'> & { left_ms: number }>(
          `select status, decided_arguments, greatest(0, extract(epoch from expires_at - now()) * 1000)::int as left_ms from ai.agent_run_approvals where id = $1`, [a.id]);
        if (!row) return { decision: 'deny', reason: 'the approval was removed', hook_id: hook.id };
        if (row.status === 'pending' && row.left_ms === 0) {
          await calls.asService('select ai.expire_approval($1)', [a.id]);
          continue;
        }
        if (row.status !== 'pending') {
          emit?.({ type: 'approval_resolved', approval_id: a.id, status: row.status });
          if (row.status === 'approved') return { decision: 'allow', ...(row.decided_arguments ? { arguments: row.decided_arguments } : {}), hook_id: hook.id };
          return { decision: 'deny', reason: row.status === 'timed_out' ? `no approval within ${timeout} s` : 'the approver denied it', hook_id: hook.id };
        }
        // Parked, or answered meanwhile (then the next read has it).
        if (park && Date.now() - since >= parking.afterMs) {
          const [parked] = await calls.asService<{ ok: boolean }>('select ai.park_agent_run($1, $2) as ok', [payload.run_id, parking.runnerId]);
          if (parked?.ok) throw new Parked(payload.run_id);
        }
        await sleep(a.id, Math.min(POLL_MS, row.left_ms, park ? Math.max(10, parking.afterMs - (Date.now() - since)) : POLL_MS), signal);
      }
    },

    /** An answer from the run's owner (404 / 400 / 409 from SQL); wakes the run if it waits here. */
    decide: async (caller: RequestContext, agentId: string, runId: string, approvalId: string, decision: unknown, args: unknown): Promise<ApprovalRow> => {
      const [row] = await calls.as<ApprovalRow>(caller, 'select * from ai.decide_approval(p_agent => $1, p_run => $2, p_approval => $3, p_decision => $4, p_arguments => $5)',
        [agentId, runId, approvalId, typeof decision === 'string' ? decision : null, args === undefined || args === null ? null : JSON.stringify(args)]);
      waiting.get(approvalId)?.();
      return row!;
    },
  };
}

export type ApprovalDesk = ReturnType<typeof approvalDesk>;
