// The skeleton every conversational run shares (an agent run, an
// orchestration run): open or continue the session, start the run record,
// read the history (compacted when it grows), store the user's message, run
// the body (each runner's own loop), end the record, read its totals from the
// ledger, and report usage and complete. A run that fails is recorded failed
// and its error carries the session and run ids, so a client can look it up.
// A cancel (POST …/cancel, heard from any replica through runs/watch.ts) ends
// the run's lifetime at once; the record already says `cancelled`.
import type { RequestContext } from '../../../db/as-role.ts';
import type { ApiError } from '../../errors.ts';
import { callerUser } from '../actor.ts';
import type { Emit } from '../agents/events.ts';
import type { AiCalls } from '../calls.ts';
import type { RunLifetime } from '../lifetime.ts';
import type { ChatMessage } from '../providers/router.ts';
import type { Compactor } from './compaction.ts';
import { messageRecorder, openSession, type StoredMessage } from './conversation.ts';
import { runRecords, type RunOwner, type RunTotals } from './store.ts';
import { aiErrors } from '../errors.ts';
import { Parked } from '../failures.ts';
import type { RunWatch } from '../runs/watch.ts';

/** What a runner's body gets: the run's ids, its ledger tags, the history before this message, where its messages go. */
export type SessionRunContext = {
  sessionId: string;
  runId: string;
  usage: { userId: string | null; feature: 'agent' | 'orchestration'; runId: string };
  history: ChatMessage[];
  record: ReturnType<typeof messageRecorder>;
  signal: AbortSignal;
  /** Told as each step starts (a failed run records how far it got). */
  onStep: (step: number) => void;
  /** A resumed run: the messages it stored after the user's (its steps so far). */
  resumed?: StoredMessage[] | undefined;
};

/** What a body answers: its loop's end. */
export type SessionRunEnd = { output: string; stop: 'answered' | 'max_steps'; steps: number };

export type SessionRunInput = {
  owner: RunOwner;
  message: string;
  sessionId?: string | undefined;
  /** The settings (compaction's thresholds) and system prompt the history is measured with. */
  settings: Record<string, unknown>;
  system: string | null;
};

/** A run taken up again after its process died (agents/resume.ts): its record and what it stored. */
export type StoredRun = { runId: string; sessionId: string; input: string; context: ChatMessage[]; messages: StoredMessage[] };

export function sessionRuns(deps: { calls: AiCalls; compactor: Compactor; runnerId: string; watch: RunWatch }) {
  const records = runRecords(deps.calls);
  type Opening = (record: SessionRunContext['record']) => Promise<Pick<SessionRunContext, 'history' | 'resumed'>>;

  /** The run from its record on: cancellable, opened, its body, ended, totals, usage and complete; a failure recorded with its ids. */
  const carry = async <T extends SessionRunEnd>(
    caller: RequestContext, owner: RunOwner, ids: { sessionId: string; runId: string }, life: RunLifetime, emit: Emit | undefined,
    open: Opening, body: (run: SessionRunContext) => Promise<T>, after?: (result: T) => Promise<void>,
  ) => {
    const { sessionId, runId } = ids;
    const userId = callerUser(caller);
    const record = messageRecorder(deps.calls, caller, sessionId, { column: owner.kind === 'agent' ? 'run_id' : 'orchestration_run_id', id: runId });
    let steps = 0;
    // Watched before anyone learns the run's id (the start event), so no cancel can come too early.
    const cancel = deps.watch.cancellable(runId);
    cancel.signal.addEventListener('abort', () => life.cancel(aiErrors.runCancelled()), { once: true });
    try {
      const opened = await open(record);
      const result = await body({ sessionId, runId, usage: { userId, feature: owner.kind, runId }, ...opened, record, signal: life.signal, onStep: (n) => { steps = n; } });
      steps = result.steps;
      await records.finish(owner, runId, 'completed', result.output, null, result.stop, steps);
      await after?.(result);
      const usage = await records.totals(caller, owner, runId);
      await records.touch(caller, sessionId);
      emit?.({ type: 'usage', ...usage });
      emit?.({ type: 'complete', session_id: sessionId, run_id: runId, output: result.output, stop_reason: result.stop, steps });
      return { session_id: sessionId, run_id: runId, result, usage };
    } catch (caught) {
      // Parked on an approval: the record stays open for the worker that carries it on.
      if (caught instanceof Parked && !cancel.signal.aborted) throw caught;
      const err = cancel.signal.aborted ? aiErrors.runCancelled() : caught;
      // A cancelled run's record is `cancelled` already (the finish is guarded: it changes only a running run).
      await records.finish(owner, runId, 'failed', null, (err as Error).message, null, steps).catch(() => undefined);
      throw Object.assign(err as ApiError, { details: { ...((err as ApiError).details as object | undefined), session_id: sessionId, run_id: runId } });
    } finally {
      cancel.release();
    }
  };

  const run = async <T extends SessionRunEnd>(
    caller: RequestContext, input: SessionRunInput, life: RunLifetime, emit: Emit | undefined,
    body: (run: SessionRunContext) => Promise<T>, after?: (result: T) => Promise<void>,
  ): Promise<{ session_id: string; run_id: string; result: T; usage: RunTotals }> => {
    const { owner, message } = input;
    const sessionId = await openSession(deps.calls, caller, owner.kind === 'agent' ? { agent_id: owner.agentId } : { orchestration_id: owner.orchestrationId }, input.sessionId, message);
    const runId = await records.start(caller, owner, sessionId, message, deps.runnerId);
    return carry(caller, owner, { sessionId, runId }, life, emit, async () => {
      emit?.({ type: 'start', session_id: sessionId, run_id: runId });
      const history = await deps.compactor.history(caller, sessionId, { settings: input.settings, system: input.system, message, userId: callerUser(caller), runId, feature: owner.kind, signal: life.signal, emit });
      // The user's message, with (agent runs) what a resume needs: the caller and this history.
      await records.begin(caller, owner, sessionId, runId, history, message);
      return { history };
    }, body, after);
  };

  /**
   * Carries on a run whose process died, from what it stored: the history its
   * model read, its messages after the user's. No `start` (it has one): a
   * `resumed` event at the step it picks up.
   */
  const resume = <T extends SessionRunEnd>(
    caller: RequestContext, owner: RunOwner, stored: StoredRun, life: RunLifetime, emit: Emit | undefined,
    body: (run: SessionRunContext) => Promise<T>, after?: (result: T) => Promise<void>,
  ) => carry(caller, owner, stored, life, emit, async () => ({ history: stored.context, resumed: stored.messages }), body, after);

  return Object.assign(run, { resume });
}

export type SessionRuns = ReturnType<typeof sessionRuns>;
