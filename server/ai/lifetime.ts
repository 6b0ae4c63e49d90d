// How long a run lives beside its client, for every AI route that runs
// something (workflows, agents, orchestrations, the copilot). A run is
// cancelled when its client goes away (nobody is left to read it), except
// while it is held (an agent paused on an approval hook): then it runs on
// after the answer with nobody attached; its result is kept in its record.
import type { Response } from 'express';
import { toApiError } from '../errors.ts';

export type RunLifetime = {
  /** Aborts when the client left while nothing held the run, or the server stops. */
  signal: AbortSignal;
  /** Holds the run past a client's departure; call the returned function to let go. */
  hold: () => () => void;
  /** Whether the client has gone (events are no longer written). */
  gone: () => boolean;
};

export function runLifetime(res: Response, stop?: AbortSignal): RunLifetime {
  const client = new AbortController();
  let holds = 0;
  let gone = false;
  res.on('close', () => {
    if (res.writableFinished) return;
    gone = true;
    if (holds === 0) client.abort();
  });
  return {
    signal: stop ? AbortSignal.any([client.signal, stop]) : client.signal,
    hold: () => {
      holds++;
      let released = false;
      return () => {
        if (!released) holds--;
        released = true;
      };
    },
    gone: () => gone,
  };
}

/** A run with no client at all (a workflow block, a worker job): only the server's stop ends it. */
export function detachedLifetime(signal: AbortSignal): RunLifetime {
  return { signal, hold: () => () => undefined, gone: () => false };
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
