// The one access check of /api: who the caller is, from what the gateway
// verified (never re-verified here). The service-role key acts as the
// project; a user token as that user (its `sub`). The anon key alone is
// refused. What each identity may do is decided in SQL (policies, grants).
import type { NextFunction, Request, Response } from 'express';
import { aiErrors } from './errors.ts';

export type AiIdentity = { kind: 'service'; userId: null } | { kind: 'user'; userId: string };

declare module 'express-serve-static-core' {
  interface Request {
    ai?: AiIdentity;
  }
}

export function identityOf(req: Request): AiIdentity {
  const auth = req.auth!;
  if (auth.bearer === undefined) throw aiErrors.bearerRequired();
  if (auth.role === 'service_role') return { kind: 'service', userId: null };
  const sub = auth.claims.sub;
  if (auth.role === 'anon' || typeof sub !== 'string' || !sub) throw aiErrors.userTokenOrServiceKey();
  return { kind: 'user', userId: sub };
}

/** Middleware: the caller's identity on req.ai, or 401/403. */
export function requireIdentity(req: Request, _res: Response, next: NextFunction): void {
  try {
    req.ai = identityOf(req);
    next();
  } catch (err) {
    next(err);
  }
}
