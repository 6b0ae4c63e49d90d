// The skeleton every conversational run shares (an agent run, an
// orchestration run): read the session's history (compacted when it grows),
// begin the run in one statement (its session when new, the run record with
// that history, the user's message: ai.begin_run), run the body (each
// runner's own loop), end the record with its totals from the ledger and the
// session touched (one statement), and report usage and complete. A run that
// fails is recorded failed and its error carries the session and run ids, so
// a client can look it up.
// A cancel (POST …/cancel, heard from any replica through runs/watch.ts) ends
// the run's lifetime at once; the record already says `cancelled`.
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../../../db/as-role.ts';
import type { ApiError } from '../../errors.ts';
import { callerUser } from '../actor.ts';
import type { Emit } from '../steps/events.ts';
import type { AiCalls } from '../calls.ts';
import type { RunLifetime } from './lifetime.ts';
import type { ChatMessage } from '../providers/router.ts';
import type { Compactor } from '../sessions/compaction.ts';
import { messageRecorder } from '../sessions/conversation.ts';
import { memberCheckpoints, type MemberCheckpoints } from '../sessions/member-steps.ts';
import { runRecords, type RunOwner, type RunParent, type RunTotals } from '../sessions/store.ts';
import { aiErrors } from '../errors.ts';
import { checkRunMessage } from '../sessions/limits.ts';
import { ForWorker, HandedOver, Parked } from '../failures.ts';
import type { RunWatch } from './watch.ts';
import { contextFrom, inSpan } from '../../telemetry/spans.ts';
import type { LoopResume, StoredMessage } from '../steps/step.ts';
import type { ClientRequest } from '../steps/client.ts';

/** What a runner's body gets: the run's ids, its ledger tags, the history before this message, where its messages go. */
export type SessionRunContext = {
  sessionId: string;
  runId: string;
  /** The process carrying the run (a statement that lets go of it names it). */
  runner: string;
  usage: { userId: string | null; feature: 'agent' | 'orchestration'; runId: string };
  history: ChatMessage[];
  record: ReturnType<typeof messageRecorder>;
  /** Where its delegations' members store their steps, and read them back when the run resumed. */
  members: MemberCheckpoints;
  signal: AbortSignal;
  /** Told as each step starts (a failed run records how far it got). */
  onStep: (step: number) => void;
  /**
   * A resumed run: the messages it stored after the user's (its steps so far),
   * and where its loop picks up; `first`: a run a worker carries from its
   * beginning (begun in the process that took its request: AI_RUN_PLACEMENT=worker).
   */
  resumed?: { messages: StoredMessage[]; from: LoopResume; first?: boolean } | undefined;
};

/** A run that ended: its ids, its body's result, its totals. */
export type SessionRunDone<T> = { session_id: string; run_id: string; result: T; usage: RunTotals };

/** What a body answers: its loop's end; endHooks: hooks fire when it ends (OnRunComplete), after its record does. */
export type SessionRunEnd = { output: string; stop: 'answered' | 'max_steps'; steps: number; endHooks?: boolean };

export type SessionRunInput = {
  owner: RunOwner;
  message: string;
  sessionId?: string | undefined;
  /** The settings (compaction's thresholds) and system prompt the history is measured with. */
  settings: Record<string, unknown>;
  system: string | null;
  /** A run that can resume (its events are kept): the server's stop hands it over instead of failing it. */
  durable?: boolean;
  /** Only begun here, then carried by a worker (ForWorker is thrown once it has begun); a durable run only. */
  inWorker?: boolean;
  /** A workflow block's child: its parent execution resumes it (sql/0102). */
  parent?: RunParent | undefined;
};

/** A run taken up again after its process died (runs/resume.ts): its record and what it stored. */
/** `client`: what an OpenAI client brought to an agent's run (its tools, response format: sql/0107). */
export type StoredRun = { runId: string; sessionId: string; input: string; context: ChatMessage[]; messages: StoredMessage[]; from: LoopResume; traceparent: string | null; first?: boolean; client?: ClientRequest | null };

/** A run span's attributes: what a user searches a trace by. */
function runAttributes(owner: RunOwner, runId: string) {
  const id = owner.kind === 'agent' ? owner.agentId : owner.orchestrationId;
  return { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': id, 'pgbase.run.kind': owner.kind, 'pgbase.run_id': runId, [`pgbase.${owner.kind}_id`]: id };
}

export function sessionRuns(deps: { calls: AiCalls; compactor: Compactor; runnerId: string; watch: RunWatch }) {
  const records = runRecords(deps.calls);
  type Opened = Pick<SessionRunContext, 'sessionId' | 'history' | 'resumed'>;

  /**
   * The run from its beginning on, in its `invoke_agent` span (a resumed run's
   * joins the trace it began in): cancellable, begun (`open`), its body,
   * ended, usage and complete; a failure recorded with its ids.
   */
  /**
   * One run as the skeleton carries it: who it acts as, whose it is, its id,
   * how long it lives, where its events go, whether it can resume
   * (`durable`), how it begins or is taken up (`open`), its body, what
   * follows its end (`after`: OnRunComplete hooks), and the trace it joins.
   */
  type CarriedRun<T extends SessionRunEnd> = {
    caller: RequestContext; owner: RunOwner; runId: string; life: RunLifetime; emit: Emit | undefined; durable: boolean;
    open: () => Promise<Opened>; body: (run: SessionRunContext) => Promise<T>; after?: ((result: T) => Promise<void>) | undefined; traceparent?: string | null | undefined;
  };

  const carry = <T extends SessionRunEnd>(spec: CarriedRun<T>) =>
    inSpan('invoke_agent', { ...(spec.traceparent ? { parent: contextFrom(spec.traceparent) } : {}), attributes: runAttributes(spec.owner, spec.runId) }, (span) =>
      carried({
        ...spec,
        open: async () => {
          const opened = await spec.open();
          span?.setAttributes({ 'gen_ai.conversation.id': opened.sessionId, 'pgbase.session_id': opened.sessionId });
          return opened;
        },
      }));

  const carried = async <T extends SessionRunEnd>({ caller, owner, runId, life, emit, durable, open, body, after }: CarriedRun<T>) => {
    const userId = callerUser(caller);
    let steps = 0;
    let sessionId: string | undefined;
    // Watched before anyone learns the run's id (the start event), so no cancel can come too early.
    const cancel = deps.watch.cancellable(runId);
    // A run claimed by this worker may have been cancelled before it was watched here (its signal aborted already).
    if (cancel.signal.aborted) life.cancel(aiErrors.runCancelled());
    else cancel.signal.addEventListener('abort', () => life.cancel(aiErrors.runCancelled()), { once: true });
    try {
      const opened = await open();
      sessionId = opened.sessionId;
      // A step refused because the run was cancelled stops it as a heard cancel does (its signal aborts everywhere).
      const stepOwner = { kind: owner.kind, id: runId, runner: deps.runnerId, cancelled: cancel.found };
      const record = messageRecorder(deps.calls, sessionId, stepOwner);
      const members = memberCheckpoints(deps.calls, { ...stepOwner, resumed: opened.resumed !== undefined });
      const result = await body({ runId, runner: deps.runnerId, usage: { userId, feature: owner.kind, runId }, ...opened, record, members, signal: life.signal, onStep: (n) => { steps = n; } });
      steps = result.steps;
      const complete = { type: 'complete' as const, session_id: sessionId, run_id: runId, output: result.output, stop_reason: result.stop, steps };
      // Its events kept and no OnRunComplete hook between: the record's end and the last events are one statement.
      if (emit?.endWith && !result.endHooks) {
        const session = sessionId;
        const usage = await emit.endWith(async (pending) => {
          const done = await records.completeWithEvents(owner, runId, session, result.output, result.stop, steps, deps.runnerId, pending, complete);
          return { first: done.first, events: [{ type: 'usage', ...done.totals }, complete], value: done.totals };
        });
        return { session_id: sessionId, run_id: runId, result, usage };
      }
      const usage = await records.complete(owner, runId, sessionId, result.output, result.stop, steps);
      await after?.(result);
      emit?.({ type: 'usage', ...usage });
      emit?.(complete);
      return { session_id: sessionId, run_id: runId, result, usage };
    } catch (caught) {
      // Parked on an approval, or carried on by another process: the record stays open for it.
      if ((caught instanceof Parked || caught instanceof HandedOver) && !cancel.signal.aborted) throw caught;
      const err = cancel.signal.aborted ? aiErrors.runCancelled() : caught;
      // A run that never began (its session refused) has no record and no ids to give.
      if (!sessionId) throw err;
      // The server is stopping: the record stays running, and another process resumes the run (sql/0067).
      if (durable && life.stopping() && !cancel.signal.aborted) throw new HandedOver(runId);
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
  ): Promise<SessionRunDone<T>> => {
    const { owner, message } = input;
    // Every way into a run meets the same bound (routes check it earlier, before a stream opens).
    checkRunMessage(message);
    const runId = randomUUID();
    return carry({ caller, owner, runId, life, emit, durable: input.durable ?? false, body, after, open: async () => {
      // A compaction's events follow the run's start: kept until the run has begun.
      const early: Parameters<Emit>[0][] = [];
      const history = input.sessionId
        ? await deps.compactor.history(caller, input.sessionId, { settings: input.settings, system: input.system, message, userId: callerUser(caller), runId, feature: owner.kind, signal: life.signal, emit: (e) => early.push(e) })
        : [];
      const sessionId = await records.begin(caller, owner, runId, input.sessionId, message, deps.runnerId, history, input.parent);
      emit?.({ type: 'start', session_id: sessionId, run_id: runId });
      for (const e of early) emit?.(e);
      // Begun: a worker carries it from here (sql/0079), once the catcher has stored these events.
      if (input.inWorker && input.durable) throw new ForWorker(runId, () => records.handToWorker(owner, runId, deps.runnerId));
      return { sessionId, history };
    } });
  };

  /**
   * Carries on a run whose process died, from what it stored: the history its
   * model read, its messages after the user's. No `start` (it has one).
   */
  const resume = <T extends SessionRunEnd>(
    caller: RequestContext, owner: RunOwner, stored: StoredRun, life: RunLifetime, emit: Emit | undefined,
    body: (run: SessionRunContext) => Promise<T>, after?: (result: T) => Promise<void>,
  ) => carry({
    caller, owner, runId: stored.runId, life, emit, durable: true, body, after, traceparent: stored.traceparent,
    open: async () => ({ sessionId: stored.sessionId, history: stored.context, resumed: { messages: stored.messages, from: stored.from, ...(stored.first ? { first: true } : {}) } }),
  });

  return Object.assign(run, { resume });
}

export type SessionRuns = ReturnType<typeof sessionRuns>;
