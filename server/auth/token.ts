// POST /token: the grants (password, refresh_token, id_token, pkce), each one
// SQL call that answers a session row. Errors carry OAuth's error and
// error_description beside GoTrue's code, as OAuth-style clients read them.
import express, { type Router } from 'express';
import { z } from 'zod';
import { ApiError, route, toApiError } from '../errors.ts';
import { authErrors } from './errors.ts';
import { verifyIdToken } from './id-token.ts';
import { parse } from './parse.ts';
import { clientIp, email, phone, userAgent } from './request.ts';
import type { AuthDeps } from './deps.ts';
import { issueSession, sessionBody, type SessionRow } from './session.ts';

export function tokenRoutes({ config, keys, pool }: AuthDeps): Router {
  const grants: Record<string, (req: express.Request) => Promise<SessionRow>> = {
    // Sign-in with a wallet is not built: GoTrue's answer when its Web3 provider is off.
    web3: async (req) => {
      const chain = (req.body as { chain?: unknown } | undefined)?.chain;
      throw authErrors.web3Disabled(chain === 'solana' ? 'Solana ' : chain === 'ethereum' ? 'Ethereum ' : '');
    },
    password: async (req) => {
      const body = parse(z.object({ email, phone, password: z.string().min(1, 'Password required').max(1000) }), req.body);
      if (!body.email && !body.phone) throw authErrors.emailOrPhoneRequired();
      const { rows } = await pool.query<SessionRow>('select * from auth.grant_password($1, case when $2::text is null then null else auth.valid_phone($2) end, $3, $4, $5)', [body.email ?? null, body.email ? null : (body.phone ?? null), body.password, userAgent(req), clientIp(req)]);
      return rows[0]!;
    },
    refresh_token: async (req) => {
      const body = parse(z.object({ refresh_token: z.string().min(1, 'Refresh token required').max(255) }), req.body);
      // The session's OAuth client comes along (sql/0114): its tokens keep client_id.
      const { rows } = await pool.query<SessionRow>('select * from auth.grant_refresh_keeping_client($1, make_interval(secs => $2), $3)', [body.refresh_token, config.AUTH_REFRESH_GRACE_SECONDS, clientIp(req)]);
      if (rows.length === 0) throw authErrors.refreshTokenUsed();
      return rows[0]!;
    },
    // signInWithIdToken: a provider's ID token verified against its published keys, then sign in or up as OAuth does.
    id_token: async (req) => {
      const body = parse(z.object({ provider: z.string().min(1).max(64), id_token: z.string().min(1).max(16_384), nonce: z.string().max(1024).nullish(), access_token: z.string().max(16_384).nullish() }), req.body);
      const { provider, profile, claims } = await verifyIdToken(config, body.provider, body.id_token, body.nonce ?? null);
      const identity = { ...profile.raw, name: profile.name, full_name: profile.name, avatar_url: profile.avatar, picture: profile.avatar, iss: claims.iss };
      const { rows } = await pool.query<{ user_id: string }>('select auth.oauth_sign_in($1, $2, $3, $4, $5) as user_id', [provider, profile.id, JSON.stringify(identity), profile.email, profile.emailVerified]);
      return issueSession(pool, req, rows[0]!.user_id, 'oauth');
    },
    pkce: async (req) => {
      const body = parse(z.object({ auth_code: z.string().min(1).max(255), code_verifier: z.string().min(43).max(128) }), req.body);
      const { rows } = await pool.query<SessionRow>('select * from auth.grant_pkce($1, $2, make_interval(secs => $3), $4, $5)', [body.auth_code, body.code_verifier, 300, userAgent(req), clientIp(req)]);
      return rows[0]!;
    },
  };

  const router = express.Router();
  router.post('/token', route(async (req, res) => {
    const grant = req.query.grant_type;
    try {
      const run = typeof grant === 'string' && Object.hasOwn(grants, grant) ? grants[grant]! : undefined;
      if (!run) throw authErrors.unsupportedGrant(grant);
      res.json(await sessionBody(await run(req), config, keys));
    } catch (err) {
      const e = toApiError(err);
      if (e.status >= 500) throw err;
      const oauthError = e.code === 'unsupported_grant_type' ? 'unsupported_grant_type' : 'invalid_grant';
      throw new ApiError(e.kind, e.message, { status: e.status, ...(e.code ? { code: e.code } : {}), details: { error: oauthError, error_description: e.message } });
    }
  }));
  return router;
}
