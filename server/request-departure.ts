// A request's client leaving, for SQL run for the request
// (RequestContext.departure): a departed client's statement is cancelled
// instead of running on for nobody (db/statement-limits.ts). A listener on
// the response, added only while a statement runs: nothing per request.
import type { Request } from 'express';
import type { Departure } from '../db/statement-limits.ts';

export function requestDeparture(req: Request): Departure | undefined {
  const res = req.res;
  if (!res) return undefined;
  return {
    gone: () => res.closed && !res.writableFinished,
    onGone: (cb) => {
      const listener = () => {
        if (!res.writableFinished) cb();
      };
      res.once('close', listener);
      return () => res.off('close', listener);
    },
  };
}
