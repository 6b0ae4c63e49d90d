// Per-endpoint rate limits of the identity service, per client IP and per
// process, in memory (as GoTrue keeps them). A window starts with a client's
// first request; past `count` requests in it, the answer is 429 until it ends.
import type { RequestHandler } from 'express';
import { authErrors } from './errors.ts';

export type Rate = { count: number; seconds: number };

export function rateLimit(name: string, rate: Rate, code: 'over_request_rate_limit' | 'over_email_send_rate_limit'): RequestHandler {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, w] of windows) if (w.resetAt <= now) windows.delete(key);
  }, 60_000);
  sweep.unref();
  const message = code === 'over_email_send_rate_limit' ? 'Email rate limit exceeded' : 'Request rate limit reached';
  return (req, res, next) => {
    const key = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const now = Date.now();
    let w = windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + rate.seconds * 1000 };
      windows.set(key, w);
    }
    w.count++;
    if (w.count > rate.count) {
      res.setHeader('Retry-After', String(Math.ceil((w.resetAt - now) / 1000)));
      next(authErrors.rateLimited(code, message));
      req.log?.warn({ limit: name, ip: key }, 'auth rate limit reached');
      return;
    }
    next();
  };
}
