// Per-endpoint rate limits of the identity service, per client IP and per
// process, in memory (as GoTrue keeps them): a window starts with a client's
// first request; past `count` requests in it, the answer is 429 until it ends.
import type { RequestHandler } from 'express';
import { rateWindow, type Rate } from '../rate-window.ts';
import { authErrors } from './errors.ts';

export type { Rate };

export function rateLimit(name: string, rate: Rate, code: 'over_request_rate_limit' | 'over_email_send_rate_limit'): RequestHandler {
  const window = rateWindow(rate);
  const message = code === 'over_email_send_rate_limit' ? 'Email rate limit exceeded' : 'Request rate limit reached';
  return (req, res, next) => {
    const key = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const verdict = window.hit(key);
    if (!verdict.ok) {
      res.setHeader('Retry-After', String(verdict.retryAfterSeconds));
      next(authErrors.rateLimited(code, message));
      req.log?.warn({ limit: name, ip: key }, 'auth rate limit reached');
      return;
    }
    next();
  };
}
