// The key check in front of every surface, as Supabase's gateway does it:
// a request must carry a project key in `apikey` (header, or query for
// WebSockets) signed with JWT_SECRET; an Authorization bearer, when present,
// must verify too and then decides the role (except where the surface's
// routes judge it, as GoTrue does: `bearerToRoutes`). Surfaces add their own rules
// (REST wants both headers, admin routes want service_role, ...) on top.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { fromBrowser } from './api-keys.ts';
import { apiError } from './errors.ts';
import type { Claims, TokenVerifier } from './keys.ts';

export type RequestAuth = {
  /** Claims of the token that decides the role: the bearer token, else the apikey. */
  claims: Claims;
  role: string;
  /** Claims of the apikey itself (anon or service_role). */
  apikey: Claims;
  /** The raw bearer token, when one was sent. */
  bearer: string | undefined;
  /** A bearer that did not verify, on a surface whose routes judge it (bearerToRoutes): why. */
  bearerRefused?: 'expired' | 'invalid';
};

declare module 'express-serve-static-core' {
  interface Request {
    auth?: RequestAuth;
  }
}

/** Paths a surface serves without a key (email links, OAuth callbacks, public objects). */
export type OpenRoute = (req: Request) => boolean;

export function bearerOf(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^bearer (.*)$/is.exec(header);
  return match ? match[1]!.trim() : undefined;
}

/** The gate's named errors, in whatever shape the surface declared. */
export const gateErrors = {
  /** Supabase's answer: a secret key never belongs in a browser (an Origin header, or a browser's User-Agent). */
  secretKeyInBrowser: () => apiError(401, 'secret_key_in_browser', 'Forbidden use of secret API key in browser: secret keys belong on a server; use the publishable key in browsers'),
  noApiKey: () => apiError(401, 'no_api_key', 'No API key found in request'),
  badApiKey: (reason: 'expired' | 'invalid' | 'legacy_disabled') => apiError(401, 'invalid_api_key',
    reason === 'expired' ? 'API key has expired' : reason === 'legacy_disabled' ? 'Legacy API keys are disabled: use a publishable or secret key (sb_…)' : 'Invalid API key'),
  badJwt: (expired: boolean) => apiError(401, expired ? 'jwt_expired' : 'bad_jwt', expired ? 'JWT expired' : 'Invalid JWT'),
};

/**
 * `bearerKey`: the surface also takes a bearer token alone as its key (the
 * OpenAI-compatible endpoint: OpenAI clients send only Authorization). The
 * token is verified the same way, so this admits no one the key would not.
 */
export function apiKeyGate(verify: TokenVerifier, open: OpenRoute[] = [], opts: { bearerKey?: boolean; bearerToRoutes?: boolean } = {}): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (open.some((isOpen) => isOpen(req))) return next();
    // The header first: reading req.query parses the query string.
    const header = req.headers.apikey;
    const apikey = typeof header === 'string' ? header : typeof req.query.apikey === 'string' ? req.query.apikey : opts.bearerKey ? bearerOf(req) : undefined;
    if (!apikey) return next(gateErrors.noApiKey());
    if (apikey.startsWith('sb_secret_') && fromBrowser(req.headers)) return next(gateErrors.secretKeyInBrowser());
    void (async () => {
      const key = await verify(apikey);
      if (!key.ok) throw gateErrors.badApiKey(key.reason);
      const bearer = bearerOf(req);
      let claims = key.claims;
      let bearerRefused: RequestAuth['bearerRefused'];
      if (bearer !== undefined && bearer !== apikey) {
        const token = await verify(bearer);
        if (!token.ok && !opts.bearerToRoutes) throw gateErrors.badJwt(token.reason === 'expired');
        if (token.ok) claims = token.claims;
        else bearerRefused = token.reason === 'expired' ? 'expired' : 'invalid';
      }
      const role = typeof claims.role === 'string' && claims.role ? claims.role : 'anon';
      req.auth = { claims, role, apikey: key.claims, bearer, ...(bearerRefused ? { bearerRefused } : {}) };
    })().then(() => next(), next);
  };
}
