// The one access check of /api: who the caller is, from what the gateway
// verified (never re-verified here). The service-role key acts as the
// project; a user token as that user (its `sub`). The anon key alone is
// refused, and so is an anonymous user's token (its `is_anonymous` claim,
// as Supabase issues it) unless AI_ANONYMOUS_USERS lets them in: anonymous
// sign-ins are one request away, and the AI surface spends the project's
// model keys. What each identity may do is decided in SQL (policies, grants).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { aiErrors } from './errors.ts';

export type AiIdentity = { kind: 'service'; userId: null } | { kind: 'user'; userId: string };

declare module 'express-serve-static-core' {
  interface Request {
    ai?: AiIdentity;
  }
}

export function identityOf(req: Request, opts: { anonymousUsers: boolean }): AiIdentity {
  const auth = req.auth!;
  if (auth.bearer === undefined) throw aiErrors.bearerRequired();
  if (auth.role === 'service_role') return { kind: 'service', userId: null };
  const sub = auth.claims.sub;
  if (auth.role === 'anon' || typeof sub !== 'string' || !sub) throw aiErrors.userTokenOrServiceKey();
  if (auth.claims.is_anonymous === true && !opts.anonymousUsers) throw aiErrors.anonymousRefused();
  return { kind: 'user', userId: sub };
}

/** Middleware: the caller's identity on req.ai, or 401/403. `anonymousUsers`: AI_ANONYMOUS_USERS. */
export function requireIdentity(opts: { anonymousUsers: boolean }): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    try {
      req.ai = identityOf(req, opts);
      next();
    } catch (err) {
      next(err);
    }
  };
}
