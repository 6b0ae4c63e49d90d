// A run's events as server-sent events: `id:` lines with their numbers; a
// client that comes back (Last-Event-ID or ?after=) reads on from its
// number, on any replica, and follows new events until the run ends.
import type { RunLimiter } from './limiter.ts';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { RequestContext } from '../../../db/as-role.ts';
import { parse, queryInt } from '../parse.ts';
import { SETTLE_MS, type RunEventLog, type RunKind, type Stored } from './events.ts';
import type { RunWatch } from './watch.ts';

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
/** `limiter`: where every new run's start is counted (runs/limiter.ts). */
export type RunServices = { log: RunEventLog; watch: RunWatch; stop: AbortSignal; inWorker?: boolean; limiter: RunLimiter };
