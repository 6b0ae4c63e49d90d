// A run's events as a numbered log (ai.run_events, sql/0065): the runner
// appends each event, in order, before any client is sent it; a stream is
// that log written as server-sent events with `id:` lines; a client that
// comes back (Last-Event-ID or ?after=) reads on from its number, on any
// replica, and follows new events until the run ends.
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { toApiError, type ApiError } from '../../errors.ts';
import { z } from 'zod';
import { parse, queryInt } from '../parse.ts';
import type { RunWatch } from './watch.ts';
import { ForWorker, HandedOver, Parked } from '../failures.ts';
import { metrics } from '../../telemetry/metrics.ts';
import { aiErrors } from '../errors.ts';
import type { EndWith } from '../agents/events.ts';

export type RunKind = 'agent' | 'orchestration' | 'workflow';
type Stored = { seq: number; event: { type?: string } & Record<string, unknown> };

const TABLE: Record<RunKind, string> = { agent: 'ai.agent_runs', orchestration: 'ai.orchestration_runs', workflow: 'ai.workflow_executions' };
const RUNNING = ['queued', 'running', 'waiting_approval'];
/** How long after a run's record ends its stream waits for a last event that may never come. */
const SETTLE_MS = 3000;
/** The event that ends a run's stream: its last. */
export const isLast = (event: { type?: unknown }) => event.type === 'complete' || event.type === 'run_completed' || event.type === 'error';
/** The run an event names when it is the run's first (`start` for agents and orchestrations, `run_started` for workflows). */
const runIdOf = (kind: RunKind, event: Record<string, unknown>): string | undefined =>
  kind === 'workflow' ? (event.type === 'run_started' ? (event.execution_id as string) : undefined) : event.type === 'start' ? (event.run_id as string) : undefined;

export type RunEventLog = ReturnType<typeof runEventLog>;

/** runnerId: this process's, the only one whose events a run it carries takes (sql/0077). */
export function runEventLog(calls: AiCalls, log: Logger, runnerId: string) {
  return {
    /**
     * Where a run's events go: stored in order, each then handed to `write`
     * with its number (events before the run has an id, such as a refusal
     * before it began, are handed on with none). An event that could not be
     * stored is not handed on: a client never sees what could be forgotten.
     * Once another process holds the run (this one was taken for dead), its
     * events are refused, and nothing more is stored or handed on.
     */
    recorder: (kind: RunKind, write: (seq: number | null, event: object) => void, opts: { lingerMs?: number; runId?: string } = {}) => {
      // A resumed run has its id already; a new one learns it from its first event.
      let runId: string | undefined = opts.runId;
      let lingering: NodeJS.Timeout | undefined;
      let queue: object[] = [];
      let writing: Promise<void> | undefined;
      let refused = false;
      // Whatever piled up while the last batch was being stored goes in one statement (ai.append_run_events).
      const pump = async () => {
        while (queue.length > 0) {
          const batch = queue;
          queue = [];
          const id = runId;
          if (!id) {
            for (const event of batch) write(null, event);
            continue;
          }
          if (refused) continue;
          try {
            const [row] = await calls.asService<{ first: number | null }>('select ai.append_run_events($1, $2, $3, $4) as first', [kind, id, runnerId, JSON.stringify(batch)]);
            if (row?.first == null) {
              refused = true;
              log.info({ run: id, events: batch.length }, 'run events refused: another process carries the run');
              continue;
            }
            batch.forEach((event, i) => write(row.first! + i, event));
          } catch (err) {
            log.warn({ run: id, events: batch.length, error: (err as Error).message }, 'run events were not stored');
          }
        }
      };
      const kick = (): void => {
        clearTimeout(lingering);
        lingering = undefined;
        writing ??= pump().finally(() => {
          writing = undefined;
          if (queue.length > 0) later();
        });
      };
      // With lingerMs (a run nobody streams), events gather for that long first: a short run stores them in one statement.
      const later = () => {
        if (!opts.lingerMs) return kick();
        lingering ??= setTimeout(kick, opts.lingerMs);
      };
      /**
       * The run's end, stored with its last events in one statement (sql/0081):
       * once what is being stored is, `end` gets the events not stored yet
       * (null once this process's are refused) and answers the events it
       * stored after them, numbered from `first` (null: refused), which are
       * then written. An end that failed leaves its pending events queued.
       */
      const endWith: EndWith = async (end) => {
        while (writing) await writing;
        clearTimeout(lingering);
        lingering = undefined;
        const pending = queue;
        queue = [];
        const id = runId;
        let ended: Awaited<ReturnType<typeof end>>;
        try {
          ended = await end(refused || !id ? null : pending);
        } catch (err) {
          queue = [...pending, ...queue];
          throw err;
        }
        if (!id) for (const event of [...pending, ...ended.events]) write(null, event);
        else if (ended.first == null) {
          if (!refused) log.info({ run: id, events: pending.length + ended.events.length }, 'run events refused: another process carries the run');
          refused = true;
        } else [...pending, ...ended.events].forEach((event, i) => write(ended.first! + i, event));
        return ended.value;
      };
      return {
        push: Object.assign((event: object) => {
          runId ??= runIdOf(kind, event as Record<string, unknown>);
          queue.push(event);
          if (!writing) later();
        }, { endWith }),
        /** Resolves once every event pushed so far is stored and written. */
        flush: async () => {
          while (writing || queue.length > 0) {
            if (!writing) kick();
            await writing;
          }
        },
      };
    },
    /**
     * The run's events after `after`, as the caller sees them (their runs
     * only); `ended` once its last event is among them. A run whose record
     * ended with no last event (its process died and the sweep failed it, or
     * it was cancelled while queued) ends too, once its record has been
     * ended for a few seconds (`ending` until then: the runner may still be
     * storing its last events).
     */
    read: async (caller: RequestContext, kind: RunKind, runId: string, after: number): Promise<{ events: Stored[]; ended: boolean; ending: boolean }> => {
      const events = await calls.as<Stored>(caller, 'select seq, event from ai.run_events where run_id = $1 and seq > $2 order by seq limit 1000', [runId, after]);
      if (events.some((e) => isLast(e.event))) return { events, ended: true, ending: false };
      const [run] = await calls.as<{ status: string; settled: boolean }>(caller,
        `select status, coalesce(finished_at < now() - make_interval(secs => $2), false) as settled from ${TABLE[kind]} where id = $1`, [runId, SETTLE_MS / 1000]);
      const over = !run || !RUNNING.includes(run.status);
      return { events, ended: !run || (over && run.settled && events.length < 1000), ending: over };
    },
  };
}

/**
 * Lets go of a run begun here for a worker (ForWorker, sql/0079) once the
 * events pushed so far are stored: null then; a run cancelled meanwhile
 * stays here, and its cancel (with its id) is answered, to end its events with.
 */
export async function handOff(recorder: { flush: () => Promise<void> }, begun: ForWorker): Promise<ApiError | null> {
  await recorder.flush();
  return (await begun.handOff()) ? null : Object.assign(aiErrors.runCancelled(), { details: { run_id: begun.runId } });
}

/** A failed run's last event: its message, code and extra fields (the run's ids among them). */
export const failureEvent = (e: ApiError): object => ({ type: 'error', error: e.message, ...(e.code ? { error_code: e.code } : {}), ...(e.details && typeof e.details === 'object' ? e.details : {}) });

/**
 * A run with no stream (a JSON answer, a webhook, a queued run) whose events
 * are kept all the same: a client follows them at GET …/events. They gather
 * for 50 ms at a time (a short run stores them in one statement). A
 * failure is stored as the run's last event, then thrown on.
 */
export async function recordedRun<T>(log: RunEventLog, kind: RunKind, run: (push: (event: object) => void) => Promise<T>, failure: (e: ApiError) => object = failureEvent, opts: { runId?: string; lingerMs?: number } = {}): Promise<T> {
  const recorder = log.recorder(kind, () => undefined, { lingerMs: 50, ...opts });
  // How the run ended, for /metrics: its last event says (a workflow job reports a failure without throwing).
  let last: { type?: unknown; error_code?: unknown } = {};
  const push = Object.assign((event: object) => {
    last = event;
    recorder.push(event);
  }, {
    endWith: (async (end) => {
      const value = await recorder.push.endWith(end);
      last = { type: 'complete' };
      return value;
    }) as EndWith,
  });
  let ended = false;
  try {
    const result = await run(push);
    ended = true;
    return result;
  } catch (err) {
    // A parked or handed-over run has not ended: its last event comes from whichever worker carries it on.
    if (err instanceof HandedOver) throw aiErrors.stoppedBeforeEnd(err.runId);
    const cancelled = err instanceof ForWorker ? await handOff(recorder, err) : null;
    if (cancelled) {
      push(failure(cancelled));
      ended = true;
      throw cancelled;
    }
    if (!(err instanceof Parked)) {
      push(failure(toApiError(err)));
      ended = true;
    }
    throw err;
  } finally {
    if (ended) metrics.runsFinished.inc({ kind, status: last.type !== 'error' ? 'completed' : last.error_code === 'RUN_CANCELLED' || last.error_code === 'CANCELLED' ? 'cancelled' : 'failed' });
    await recorder.flush();
  }
}

/** GET …/events' query: `after`, the last event number the client has (a `Last-Event-ID` header wins). */
export const EventsQuery = z.object({ after: queryInt('after', 0, 2_147_483_647).optional() });

/** The cursor a returning client gives: `Last-Event-ID`, else `?after=`, else 0 (from the first event). */
export function cursorOf(req: Request): number {
  const header = req.headers['last-event-id'];
  return parse(EventsQuery, header === undefined ? req.query : { after: header }).after ?? 0;
}

export const sseHead = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;
export const sseEvent = (seq: number | null, event: object) => `${seq === null ? '' : `id: ${seq}\n`}data: ${JSON.stringify(event)}\n\n`;

/**
 * GET …/events: the run's events after the client's cursor, then the new
 * ones as they are stored (heard through `watch` from any replica), until
 * the run's last event. The run must be one the caller can read (404 first).
 */
export async function followRun(req: Request, res: Response, deps: FollowedRun): Promise<void> {
  const cursor = cursorOf(req);
  const first = await deps.log.read(deps.caller, deps.kind, deps.runId, cursor);
  res.writeHead(200, sseHead);
  await streamFollowed(res, deps, cursor, first);
  res.end();
}

/** A run a client follows: whose, which, and the services that follow it. */
export type FollowedRun = RunServices & { caller: RequestContext; kind: RunKind; runId: string };

/** Writes the run's events after `cursor` to a stream already begun, until its last event (or the client leaves). */
export async function streamFollowed(res: Response, deps: FollowedRun, cursor: number, first?: Awaited<ReturnType<RunEventLog['read']>>): Promise<void> {
  const closed = new AbortController();
  const onClose = () => closed.abort();
  res.on('close', onClose);
  // A run may wait long (an approval): a comment now and then keeps proxies from closing an idle stream.
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  keepAlive.unref();
  try {
    await followEvents(deps, cursor, (seq, event) => void res.write(sseEvent(seq, event)), closed.signal, first);
  } finally {
    clearInterval(keepAlive);
    res.off('close', onClose);
  }
}

/**
 * Hands on the run's events after `cursor` as they are stored, until its
 * last event, `closed`, or the server's stop; resolves with the last one
 * handed on (the run's end, when it ended).
 */
export async function followEvents(deps: FollowedRun, cursor: number, write: (seq: number, event: Stored['event']) => void, closed: AbortSignal, first?: Awaited<ReturnType<RunEventLog['read']>>): Promise<Stored['event'] | undefined> {
  let reading = Promise.resolve();
  let again = false;
  let done = false;
  let last: Stored['event'] | undefined;
  let resolveEnd!: () => void;
  const ended = new Promise<void>((r) => (resolveEnd = r));
  const finish = () => {
    done = true;
    resolveEnd();
  };
  const take = (got: { events: Stored[]; ended: boolean; ending: boolean }) => {
    for (const e of got.events) write(e.seq, e.event);
    last = got.events.at(-1)?.event ?? last;
    cursor = got.events.at(-1)?.seq ?? cursor;
    if (got.ended) finish();
    else if (got.events.length === 1000) readMore();
    else if (got.ending) setTimeout(readMore, SETTLE_MS + 200).unref();
  };
  // One read at a time; a notice during a read asks for one more after it.
  function readMore(): void {
    if (done) return;
    if (again) return;
    again = true;
    reading = reading.then(async () => {
      again = false;
      if (!done) take(await deps.log.read(deps.caller, deps.kind, deps.runId, cursor));
    }).catch(() => finish());
  }
  const unfollow = deps.watch.follow(deps.runId, readMore);
  closed.addEventListener('abort', finish, { once: true });
  deps.stop.addEventListener('abort', finish, { once: true });
  if (first) take(first);
  // A notice may have come between the first read and following: read once more.
  if (!done) readMore();
  await ended;
  unfollow();
  closed.removeEventListener('abort', finish);
  deps.stop.removeEventListener('abort', finish);
  await reading;
  return last;
}

/**
 * What a run's routes need: its event log, the watch over every replica's
 * runs, the server's stop, and whether runs are carried by the workers
 * (AI_RUN_PLACEMENT=worker: a route only begins a run, then follows it).
 */
export type RunServices = { log: RunEventLog; watch: RunWatch; stop: AbortSignal; inWorker?: boolean };
