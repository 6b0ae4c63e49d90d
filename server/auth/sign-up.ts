// POST /signup: with an e-mail or phone and a password (a user, and a session
// when confirmation is off), or with neither (an anonymous user, when on).
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../errors.ts';
import { authErrors } from './errors.ts';
import { parse } from './parse.ts';
import { checkPassword, email, phone, pkceFields, redirectTo, requireSms, userData } from './request.ts';
import type { AuthDeps } from './deps.ts';
import { issueSession, sessionBody, type SessionRow } from './session.ts';

export function signUpRoutes({ config, keys, pool }: AuthDeps): Router {
  const router = express.Router();
  router.post('/signup', route(async (req, res) => {
    if (config.AUTH_DISABLE_SIGNUP) throw authErrors.signupDisabled();
    const raw = (req.body ?? {}) as { email?: unknown; phone?: unknown };
    if (!raw.email && !raw.phone) {
      // supabase-js signInAnonymously(): off unless enabled, as on GoTrue.
      if (!config.AUTH_ANONYMOUS_USERS) throw authErrors.anonymousDisabled();
      const body = parse(z.object({ data: userData }), req.body);
      const { rows: [made] } = await pool.query<{ user: SessionRow['user'] }>('select auth.sign_up_anonymous($1) as "user"', [body.data ?? {}]);
      return void res.json(await sessionBody(await issueSession(pool, req, made!.user.id, 'anonymous'), config, keys));
    }
    const body = parse(z.object({ email, phone, password: z.string().max(1000), data: userData, ...pkceFields }), req.body);
    if (!body.email && body.phone) requireSms(config);
    checkPassword(config, body.password);
    const { rows: [created] } = await pool.query<{ user: SessionRow['user']; confirmed: boolean }>('select * from auth.register($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
      body.email ?? null, body.email ? null : (body.phone ?? null), body.password, body.data ?? {}, body.email ? config.AUTH_AUTOCONFIRM : config.AUTH_SMS_AUTOCONFIRM,
      config.AUTH_BCRYPT_COST, redirectTo(config, req), body.code_challenge ?? null, body.code_challenge_method ?? null,
    ]);
    if (!created!.confirmed) return void res.json(created!.user);
    res.json(await sessionBody(await issueSession(pool, req, created!.user.id, 'password'), config, keys));
  }));
  return router;
}
