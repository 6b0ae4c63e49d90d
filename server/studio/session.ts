// Who is calling the control plane, and from where. An operator signed in to
// the Studio holds a session cookie (HttpOnly, SameSite=Strict, Secure when
// the request came over https): its token is random, stored in the database
// as its SHA-256 only (sql/0098), and every state-changing request with it
// carries `X-CSRF-Token`, an HMAC of the token the Studio reads from GET
// /api/platform/studio/state (JavaScript never sees the cookie itself).
// Scripts use a platform token as the Bearer instead (npm run
// platform-token), which needs no CSRF token: no browser sends it by itself.
// Project keys, the service-role key included, are neither: 401.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type pg from 'pg';
import { bearerOf } from '../gateway.ts';
import { verifyPlatformToken } from '../keys.ts';
import { studioErrors } from './errors.ts';

export const SESSION_COOKIE = 'pgbase_studio';
/** The cookie lives as long as a session may (sql/0098: 7 days); the database decides sooner ends. */
const COOKIE_MAX_AGE_S = 7 * 86_400;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type Operator =
  | { kind: 'session'; id: string; email: string; sessionId: string; refs: 'all' }
  | { kind: 'token'; id: null; email: string; refs: string[] };

declare module 'express-serve-static-core' {
  interface Request {
    operator?: Operator;
  }
}

export const newToken = () => randomBytes(32).toString('base64url');
export const tokenHash = (token: string) => createHash('sha256').update(token).digest();

/** The CSRF token of a session: derived from its cookie token, so nothing more is stored. */
export const csrfFor = (secret: string, token: string) => createHmac('sha256', secret).update(`studio-csrf:${token}`).digest('base64url');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The session cookie's value, if the request carries one. */
export function sessionToken(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function setSessionCookie(req: Request, res: Response, token: string | null): void {
  res.cookie(SESSION_COOKIE, token ?? '', {
    httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/',
    ...(token ? { maxAge: COOKIE_MAX_AGE_S * 1000 } : { maxAge: 0 }),
  });
}

export type SessionRow = { session_id: string; operator_id: string; email: string };

/** The live session behind a cookie token (touched at most once a minute), or undefined. */
export async function sessionOf(pool: pg.Pool, token: string): Promise<SessionRow | undefined> {
  return (await pool.query<SessionRow>('select * from studio.session($1)', [tokenHash(token)])).rows[0];
}

/**
 * Middleware: `req.operator` from a session cookie (with the CSRF token on
 * state-changing methods; never with STUDIO=off) or a platform token; 401 otherwise. A platform
 * token names the project refs it may touch; a route with `:ref` checks it.
 */
export function operatorGate(opts: { pool: pg.Pool; platformSecret: string; /** false with STUDIO=off: platform tokens only */ sessions: boolean }): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    void (async () => {
      const bearer = bearerOf(req);
      if (bearer !== undefined) {
        const claims = await verifyPlatformToken(opts.platformSecret, bearer);
        if (!claims) throw studioErrors.signInRequired();
        req.operator = { kind: 'token', id: null, email: claims.email, refs: claims.refs };
        return;
      }
      const token = opts.sessions ? sessionToken(req) : undefined;
      const session = token ? await sessionOf(opts.pool, token) : undefined;
      if (!token || !session) throw studioErrors.signInRequired();
      if (!SAFE_METHODS.has(req.method)) {
        const sent = req.headers['x-csrf-token'];
        if (typeof sent !== 'string' || !sameText(sent, csrfFor(opts.platformSecret, token))) throw studioErrors.csrf();
      }
      req.operator = { kind: 'session', id: session.operator_id, email: session.email, sessionId: session.session_id, refs: 'all' };
    })().then(() => next(), next);
  };
}
