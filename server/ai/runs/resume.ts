// An agent or orchestration run taken up again after the process running it
// died (issue 29; sql/0067_ai_run_resume.sql), or after it parked on an
// approval (sql/0068). The sweep (or the answer, or the deadline) queues the
// ai_run_resume job; whichever worker runs it takes the run (ai.claim_run),
// rebuilds it from its checkpoints and carries it on:
//   - as the caller it was started by (the verified claims kept on the run)
//   - with the history its model read (kept as sent) and its own stored
//     messages, so the model reads the same conversation byte for byte
//   - from its last stored step (steps/resume-point.ts): completed model calls are
//     not made again, finished tool calls not run again; the one in flight
//     runs again, with the same idempotency key (a delegation in flight goes
//     on under the same id, from its member's own stored steps)
//   - its events numbered on from the last stored one, after a `resumed`
//     event, without repeating what followers already have (unrepeated)
// A run that cannot go on (its agent or orchestration deleted, its caller
// unreadable) ends failed, saying why.
import type { Logger } from 'pino';
import { z } from 'zod';
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { detachedLifetime, type RunLifetime } from './lifetime.ts';
import type { ChatMessage } from '../providers/router.ts';
import type { RunEventLog } from './events.ts';
import { recordedRun } from './recorded.ts';
import type { StoredRun } from './session-run.ts';
import { alsoTo, type Emit } from '../steps/events.ts';
import { resumePoint } from '../steps/resume-point.ts';
import { aiErrors } from '../errors.ts';
import { Parked } from '../failures.ts';
import type { StoredStep } from '../steps/step.ts';
import type { ClientRequest } from '../steps/client.ts';

export type ResumedKind = 'agent' | 'orchestration';
/**
 * What each kind of run brings to its resume (its loop, read afresh):
 * `open` finds the run's owner (the agent or the orchestration) as the
 * caller sees it now, and answers how to carry the run on from what it
 * stored, or undefined when the owner is gone (the run then cannot resume).
 */
export type RunCarrier = (who: RequestContext, ownerId: string) => Promise<((stored: StoredRun, life: RunLifetime, emit: Emit) => Promise<unknown>) | undefined>;
const Caller = z.object({ role: z.enum(['anon', 'authenticated', 'service_role']), claims: z.record(z.string(), z.unknown()) });
type Event = { type?: string; step?: number; id?: string; delta?: string; delegation_id?: string; approval_id?: string; entity_id?: string };
type RunRow = { session_id: string; owner: string | null; input: string; caller: unknown; context: ChatMessage[]; resumes: number; traceparent: string | null; client: ClientRequest | null; messages: StoredStep[]; events: Event[] };

const SHAPE = {
  agent: { table: 'ai.agent_runs', owner: 'agent_id', messages: 'run_id', events: 'agent_run_id' },
  orchestration: { table: 'ai.orchestration_runs', owner: 'orchestration_id', messages: 'orchestration_run_id', events: 'orchestration_run_id' },
} as const;

/**
 * What the run stored: its record, its messages in order, the events a
 * resume must not repeat (of the model's text, only the step after its last
 * answer: the one a crash may have cut off).
 */
const storedRun = (kind: ResumedKind) => {
  const s = SHAPE[kind];
  return `select r.session_id, r.${s.owner} as owner, r.input, r.caller, r.context, r.resumes, r.traceparent, ${kind === 'agent' ? 'r.client' : 'null::jsonb as client'},
    (select coalesce(json_agg(json_build_object('role', m.role, 'content', m.content, 'tool_calls', m.tool_calls, 'tool_call_id', m.tool_call_id, 'is_error', m.is_error, 'latency_ms', m.latency_ms) order by m.id), '[]')
       from ai.session_messages m where m.${s.messages} = r.id) as messages,
    (select coalesce(json_agg(e.event order by e.seq), '[]') from ai.run_events e
      where e.${s.events} = r.id and (e.event ->> 'type' <> 'content_delta'
        or (e.event ->> 'step')::int = 1 + (select count(*) from ai.session_messages m where m.${s.messages} = r.id and m.role = 'assistant'))) as events
  from ${s.table} r where r.id = $1`;
};

export function runResumes(deps: { calls: AiCalls; carriers: Record<ResumedKind, RunCarrier>; events: RunEventLog; runnerId: string; stop: AbortSignal; log: Logger }) {
  const { calls } = deps;
  /** Ends a run that cannot go on, failed with the reason, and says so as its last event. */
  const cannot = async (kind: ResumedKind, runId: string, why: string): Promise<never> => {
    const err = aiErrors.notResumable(why);
    await calls.asService(`select ai.finish_${kind}_run(p_run => $1, p_status => 'failed', p_output => null, p_error => $2, p_stop => null, p_steps => (select steps from ${SHAPE[kind].table} where id = $1))`, [runId, err.message]);
    throw err;
  };

  /**
   * Carries on a run this process has taken (ai.claim_run, or its parent's
   * ai.claim_child_run) from what it stored; answers how it ended. `tap`
   * also hears what the run tells its followers (a workflow block streams
   * the model's text on). `begin`: a run begun in the process that took its
   * request, carried here from its first step (sql/0079): no `resumed` event.
   * `signal`: what else ends it (its parent workflow's cancel or time limit).
   * `answered`: a run its client's tool results took up (sql/0107), not a resume.
   */
  const carryClaimed = (kind: ResumedKind, runId: string, how: { begin?: boolean; tap?: Emit; signal?: AbortSignal; answered?: boolean } = {}) =>
    recordedRun(deps.events, kind, async (recorded) => {
      const push = alsoTo(recorded as Emit, how.tap);
      const [row] = await calls.asService<RunRow>(storedRun(kind), [runId]);
      // The first stored message is the user's; the rest are the run's steps.
      const steps = row!.messages.slice(1);
      const from = resumePoint(steps);
      deps.log.info({ kind, run: runId, step: from.steps, resumes: row!.resumes }, 'run resumed');
      const caller = Caller.safeParse(row!.caller);
      if (!caller.success) return cannot(kind, runId, 'who it acts as is not readable');
      const who: RequestContext = caller.data;
      // Begun elsewhere and never carried yet (a run that began carrying stored a step, or was resumed, is a resume).
      const first = how.begin === true && steps.length === 0 && row!.resumes === 0;
      const stored: StoredRun = { runId, sessionId: row!.session_id, input: row!.input, context: row!.context, messages: steps, from, traceparent: row!.traceparent, first, client: row!.client };
      const life = detachedLifetime(how.signal ? AbortSignal.any([deps.stop, how.signal]) : deps.stop);
      const emit = (): Emit => {
        if (first) return push;
        // A run its client answered (sql/0107) goes on as it would have: not a resume after a crash.
        if (!how.answered) push({ type: 'resumed', run_id: runId, step: from.steps, resumes: row!.resumes });
        return unrepeated(row!.events, from.steps, push);
      };
      const carry = row!.owner ? await deps.carriers[kind](who, row!.owner).catch(() => undefined) : undefined;
      if (!carry) return cannot(kind, runId, `its ${kind} was deleted`);
      return carry(stored, life, emit());
    }, undefined, { runId, lingerMs: 0 });

  /** The job: takes the run (one process at a time), then carries it on; a failure ends it, said as its last event. */
  const resumeRun = async (kind: ResumedKind, runId: string, how: { begin?: boolean } = {}): Promise<void> => {
    // A worker of a server that is stopping takes no run: the job fails and is tried again by a live one.
    if (deps.stop.aborted) throw new Error('The server is stopping; another worker resumes this run');
    // The claim commits before what the run stored is read (not one statement): an event the process taken
    // for dead stored before the claim is read back, one after it is refused (sql/0077).
    const [claim] = await calls.asService<{ ok: boolean }>('select ai.claim_run($1, $2, $3) as ok', [kind, runId, deps.runnerId]);
    // Ended, cancelled, or another process has it already.
    if (!claim?.ok) return;
    await carryClaimed(kind, runId, how).catch(async (err: Error) => {
      // Parked again on an approval (the answer or the deadline brings it back), or handed over as the server stops.
      if (err instanceof Parked || deps.stop.aborted) return;
      deps.log.warn({ kind, run: runId, error: err.message }, 'resumed run failed');
      await failHeld(kind, runId);
    });
  };

  /**
   * A failure before the run's own skeleton took over (reading what it stored)
   * would leave it held by this live process and never resumed: it ends failed
   * instead (a no-op when the skeleton ended it, or when another process has taken it).
   */
  const failHeld = (kind: ResumedKind, runId: string) =>
    calls.asService(`select ai.finish_${kind}_run(p_run => r.id, p_status => 'failed', p_output => null, p_error => $2, p_stop => null, p_steps => r.steps) from ${SHAPE[kind].table} r where r.id = $1 and r.runner = $3`,
      [runId, 'The run could not be resumed', deps.runnerId]).catch(() => undefined);

  /**
   * An agent run its client's tool results took up in this process
   * (ai.answer_client, sql/0107), carried on from them as a resume is, its
   * events told to `tap`; it may wait for its client again (AwaitingClient).
   */
  const carryAnswered = (runId: string, tap: Emit) => carryClaimed('agent', runId, { tap, answered: true }).catch(async (err: Error) => {
    if (!(err instanceof Parked) && !deps.stop.aborted) await failHeld('agent', runId);
    throw err;
  });
  return Object.assign(resumeRun, { carryClaimed, carryAnswered });
}

export type RunResumes = ReturnType<typeof runResumes>;

/**
 * The resumed run's events without what followers already have: the tool
 * calls (and results) of its last stored step, members skipped, a
 * delegation already announced, an approval's answer already told, and the
 * part of the next model call's text streamed before the crash (the same
 * text comes again from a model that answers the same; an answer that
 * differs is sent as it is). A delegation in flight goes on from its
 * member's last stored step: the same holds for the member's own events
 * (memberRepeats).
 */
export function unrepeated(stored: Event[], step: number, emit: Emit): Emit {
  const top = stored.filter(isRunsOwn);
  const told = toldTools(top, step);
  const once = new Set(top.flatMap((e) => onceKey(e) ?? []));
  const inner = new Map<string, Event[]>();
  for (const e of stored) if (!isRunsOwn(e)) inner.set(e.delegation_id!, [...(inner.get(e.delegation_id!) ?? []), e]);
  const members = new Map([...inner].map(([id, events]) => [id, memberRepeats(events)]));
  const text = unstreamed(top.filter((e) => e.type === 'content_delta' && e.step === step + 1).map((e) => e.delta ?? '').join(''));
  return (event) => {
    if (isRunsOwn(event)) {
      if (told(event)) return;
      const key = onceKey(event);
      if (key && once.delete(key)) return;
      if (event.type !== 'content_delta' || event.step !== step + 1) return emit(event);
      const rest = text(event.delta);
      if (rest) emit({ ...event, delta: rest });
      return;
    }
    // A member's event inside a delegation that goes on: dropped when followers have it already.
    const repeat = members.get(event.delegation_id!); // defined: not the run's own
    if (!repeat) return emit(event);
    const rest = repeat(event);
    if (rest) emit(rest);
  };
}

/**
 * The tool calls of `step` followers already have, and the results told for
 * them after: a resumed loop reports that step's calls again (those it runs
 * again, and those whose results it stored), each dropped once. Answers
 * whether an event is such a repeat.
 */
function toldTools(events: Event[], step: number): (e: { type?: string; step?: number; id?: string }) => boolean {
  const firstOfStep = events.findIndex((e) => e.type === 'tool_call' && e.step === step);
  const calls = new Set(events.filter((e) => e.type === 'tool_call' && e.step === step).map((e) => e.id));
  // Results after the step's first call only: a model may reuse a call id in a later step.
  const results = new Set(events.filter((e, i) => e.type === 'tool_result' && i > firstOfStep && calls.has(e.id)).map((e) => e.id));
  return (e) => (e.type === 'tool_call' && e.step === step ? calls.delete(e.id) : e.type === 'tool_result' ? results.delete(e.id) : false);
}

/** The run's own events (a delegation's start and end among them), as against its members'. */
const isRunsOwn = (e: { type?: string; delegation_id?: string | undefined }) => e.delegation_id === undefined || e.type === 'delegation_started' || e.type === 'delegation_completed';

/** What names an event told once in a run: a delegation's start, an approval's answer, a member skipped. */
const onceKey = (e: Event): string | undefined =>
  e.type === 'delegation_started' ? `d:${e.delegation_id}` : e.type === 'approval_resolved' ? `a:${e.approval_id}` : e.type === 'entity_skipped' ? `s:${e.entity_id}` : undefined;

/**
 * A model's text streamed again after a crash, without the part followers
 * have (`streamed`): each delta answers what is left to send ('' when all
 * of it was streamed already). Once the text differs, everything is sent.
 */
function unstreamed(streamed: string): (delta: string) => string {
  return (delta) => {
    if (!streamed) return delta;
    if (streamed.startsWith(delta)) {
      streamed = streamed.slice(delta.length);
      return '';
    }
    const rest = delta.startsWith(streamed) ? delta.slice(streamed.length) : delta;
    streamed = '';
    return rest;
  };
}

/**
 * What a delegation in flight must not report again, from the member's
 * stored events: the tool calls of its last step (the one it goes on from)
 * and their results, the text streamed after its last tool event (a model
 * call cut off), and any other event told already.
 */
function memberRepeats(stored: Event[]): (event: Parameters<Emit>[0]) => Parameters<Emit>[0] | undefined {
  const told = toldTools(stored, Math.max(0, ...stored.filter((e) => e.type === 'tool_call').map((e) => e.step ?? 0)));
  const others = stored.filter((e) => e.type !== 'tool_call' && e.type !== 'tool_result' && e.type !== 'delegation_delta').map(sameness);
  const lastTool = stored.findLastIndex((e) => e.type === 'tool_call' || e.type === 'tool_result');
  const text = unstreamed(stored.slice(lastTool + 1).filter((e) => e.type === 'delegation_delta').map((e) => e.delta ?? '').join(''));
  return (event) => {
    const e = event as Event;
    if (e.type === 'tool_call' || e.type === 'tool_result') return told(e) ? undefined : event;
    if (e.type === 'delegation_delta') {
      const rest = text(e.delta ?? '');
      return rest ? { ...event, delta: rest } : undefined;
    }
    const at = others.indexOf(sameness(event));
    if (at < 0) return event;
    others.splice(at, 1);
    return undefined;
  };
}

/** An event as a repeat is recognised: everything but its timings, keys in order (stored events come back from jsonb with theirs sorted). */
function sameness(e: object): string {
  const sorted = (v: unknown): unknown => (Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object'
    ? Object.fromEntries(Object.keys(v).sort().filter((k) => k !== 'latency_ms').map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v);
  return JSON.stringify(sorted(e));
}
