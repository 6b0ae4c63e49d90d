// How long a run lives beside its client, for every AI route that runs
// something (workflows, agents, orchestrations, the copilot). A run whose
// events are kept (agents, orchestrations, workflows: runs/events.ts) is
// detached: its client may leave and come back for the events, and only an
// explicit cancel or the server's stop ends it. Otherwise (the copilot, the
// OpenAI-compatible endpoint) a run ends when its client goes away, except
// while it is held (an agent paused on an approval hook).
import type { Response } from 'express';
import { toApiError, type ApiError } from '../../errors.ts';
import type { RunEventLog, RunKind } from './events.ts';
import { sseEvent, sseHead, streamFollowed, type RunServices } from './follow.ts';
import { failureEvent, handOff } from './recorded.ts';
import type { RequestContext } from '../../../db/as-role.ts';
import { ForWorker, HandedOver, Parked } from '../failures.ts';

export type RunLifetime = {
  /** Aborts on an explicit cancel, when the server stops, or (a run that is not detached) when the client left while nothing held the run. */
  signal: AbortSignal;
  /** Holds the run past a client's departure; call the returned function to let go. */
  hold: () => () => void;
  /** Whether the client has gone (events are no longer written). */
  gone: () => boolean;
  /** Ends the run now: an explicit cancel, heard from any replica (runs/watch.ts). */
  cancel: (reason: Error) => void;
  /** Whether the server's stop ended it (a run that can resume is then handed over, not failed). */
  stopping: () => boolean;
};

export function runLifetime(res: Response, stop?: AbortSignal, opts: { detached?: boolean } = {}): RunLifetime {
  const client = new AbortController();
  const cancelled = new AbortController();
  let holds = 0;
  let gone = false;
  res.on('close', () => {
    if (res.writableFinished) return;
    gone = true;
    if (holds === 0 && !opts.detached) client.abort();
  });
  return {
    signal: AbortSignal.any([client.signal, cancelled.signal, ...(stop ? [stop] : [])]),
    cancel: (reason) => cancelled.abort(reason),
    hold: () => {
      holds++;
      let released = false;
      return () => {
        if (!released) holds--;
        released = true;
      };
    },
    gone: () => gone,
    stopping: () => stop?.aborted ?? false,
  };
}

/** A run with no client at all (a workflow block, a worker job): the server's stop or a cancel ends it. */
export function detachedLifetime(signal: AbortSignal): RunLifetime {
  const cancelled = new AbortController();
  return { signal: AbortSignal.any([signal, cancelled.signal]), hold: () => () => undefined, gone: () => false, cancel: (reason) => cancelled.abort(reason), stopping: () => signal.aborted };
}

/**
 * Answers a run whose events are kept as server-sent events with `id:`
 * lines: each event is stored (ai.run_events) and only then written. The
 * client may leave; the run goes on and its events are kept for
 * GET …/events. A failure once the stream began is an `error` event, its
 * last, with its `error_code` and (for agents and orchestrations) the run's ids.
 */
export async function streamRun(
  res: Response, stop: AbortSignal, events: { log: RunEventLog; kind: RunKind; failure?: (e: ApiError) => object; follow?: RunServices & { caller: RequestContext } },
  run: (life: RunLifetime, send: (event: object) => void) => Promise<unknown>,
): Promise<void> {
  const life = runLifetime(res, stop, { detached: true });
  let sent = 0;
  const recorder = events.log.recorder(events.kind, (seq, event) => {
    sent = seq ?? sent;
    if (!life.gone()) res.write(sseEvent(seq, event));
  });
  res.writeHead(200, sseHead);
  let parked: Parked | undefined;
  try {
    await run(life, recorder.push);
  } catch (err) {
    if (err instanceof Parked && events.follow) parked = err;
    // The server is stopping and the run goes on elsewhere: no last event from here.
    else if (!(err instanceof HandedOver)) recorder.push((events.failure ?? failureEvent)(toApiError(err)));
  }
  // Begun for a worker to carry: let go of it once its first events are stored (a run cancelled meanwhile ends here).
  const cancelled = parked instanceof ForWorker ? await handOff(recorder, parked) : null;
  if (cancelled) {
    recorder.push((events.failure ?? failureEvent)(cancelled));
    parked = undefined;
  }
  await recorder.flush();
  // Parked on an approval, or carried by a worker: the stream follows the run's stored events.
  if (parked && events.follow && !life.gone()) await streamFollowed(res, { ...events.follow, kind: events.kind, runId: parked.runId }, sent);
  res.end();
}

/**
 * Answers a run as server-sent events, `data: {type, ...}` as workflow
 * streams are; the run lives as runLifetime says. A failure once the stream
 * began is an `error` event with its `error_code` (and, with `details`, the
 * error's extra fields such as the run's ids).
 */
export async function streamEvents(res: Response, stop: AbortSignal, run: (life: RunLifetime, send: (event: object) => void) => Promise<unknown>, opts: { details?: boolean } = {}): Promise<void> {
  const life = runLifetime(res, stop);
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  const send = (event: object) => {
    if (!life.gone()) res.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  try {
    await run(life, send);
  } catch (err) {
    const e = toApiError(err);
    send({ type: 'error', error: e.message, ...(e.code ? { error_code: e.code } : {}), ...(opts.details && e.details && typeof e.details === 'object' ? e.details : {}) });
  }
  res.end();
}
