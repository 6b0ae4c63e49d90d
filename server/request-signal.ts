// A request's lifetime as an AbortSignal: it aborts when the client goes away
// before its answer is written. SQL run for the request carries it
// (RequestContext.signal), so a departed client's statement is cancelled
// instead of running on for nobody (db/statement-limits.ts).
import type { Request } from 'express';

const signals = new WeakMap<Request, AbortSignal>();

export function requestSignal(req: Request): AbortSignal | undefined {
  const res = req.res;
  if (!res) return undefined;
  let signal = signals.get(req);
  if (!signal) {
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    signal = gone.signal;
    signals.set(req, signal);
  }
  return signal;
}
