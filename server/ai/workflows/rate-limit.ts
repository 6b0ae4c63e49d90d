// The execution rate limit (spec 8): at most N executions per 60 seconds,
// a sliding window per user (`sub`), in this replica's memory; callers
// without a `sub` (the service-role key) share one `anonymous` bucket.
// execute and execute/stream draw from the same window.
import type { RequestHandler } from 'express';
import { aiErrors } from '../errors.ts';

const WINDOW_MS = 60_000;

export function executionRateLimit(perMinute: number): RequestHandler {
  const calls = new Map<string, number[]>();
  const sweep = setInterval(() => {
    const cutoff = Date.now() - WINDOW_MS;
    for (const [key, times] of calls) if (times.at(-1)! < cutoff) calls.delete(key);
  }, WINDOW_MS);
  sweep.unref();
  return (req, res, next) => {
    const key = req.ai?.userId ?? 'anonymous';
    const now = Date.now();
    const recent = (calls.get(key) ?? []).filter((t) => t > now - WINDOW_MS);
    if (recent.length >= perMinute) {
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - now) / 1000))));
      calls.set(key, recent);
      return next(aiErrors.rateLimited(perMinute));
    }
    recent.push(now);
    calls.set(key, recent);
    next();
  };
}
