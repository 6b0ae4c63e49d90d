// The signed-in user's own routes: read and change the user (GET/PUT /user),
// a nonce for a secure password change (/reauthenticate), and sign out.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../errors.ts';
import { authErrors } from './errors.ts';
import { parse } from './parse.ts';
import { checkPassword, email, otpExpiry, phone, redirectTo, requireSms, userData } from './request.ts';
import type { AuthDeps } from './deps.ts';
import { currentUser } from './session.ts';

export function userRoutes({ config, pool }: AuthDeps): Router {
  const router = express.Router();

  router.get('/user', route(async (req, res) => {
    const user = currentUser(req);
    const { rows } = await pool.query<{ user: unknown }>('select auth.session_user($1, $2) as user', [user.id, user.sessionId]);
    res.json(rows[0]!.user);
  }));

  router.put('/user', route(async (req, res) => {
    const user = currentUser(req);
    const body = parse(z.object({ email, phone, password: z.string().max(1000).nullish(), data: userData, nonce: z.string().nullish() }), req.body);
    if (body.phone) requireSms(config);
    if (body.password != null) checkPassword(config, body.password);
    // A secure password change: the nonce from /reauthenticate when the session is old (GoTrue's rule, sql/0062).
    if (body.password != null && (config.AUTH_SECURE_PASSWORD_CHANGE || body.nonce)) {
      await pool.query('select auth.require_reauthentication($1, $2, $3, $4::interval)', [user.id, user.sessionId, body.nonce ?? null, otpExpiry(config)]);
    }
    const { rows } = await pool.query<{ user: unknown }>('select auth.update_user($1, $2, $3, $4, $5, $6, $7, $8) as user', [
      user.id, user.sessionId, body.email ?? null, body.phone ?? null, body.password ?? null, body.data ?? null, config.AUTH_BCRYPT_COST, redirectTo(config, req),
    ]);
    res.json(rows[0]!.user);
  }));

  // supabase-js reauthenticate() calls GET; GoTrue routes POST too.
  const reauthenticate = route(async (req, res) => {
    await pool.query('select auth.request_reauthentication($1)', [currentUser(req).id]);
    res.json({});
  });
  router.get('/reauthenticate', reauthenticate);
  router.post('/reauthenticate', reauthenticate);

  router.post('/logout', route(async (req, res) => {
    const user = currentUser(req);
    const scope = typeof req.query.scope === 'string' ? req.query.scope : 'global';
    if (!['global', 'local', 'others'].includes(scope)) throw authErrors.logoutScope(scope);
    if (user.sessionId) await pool.query('select auth.sign_out($1, $2)', [user.sessionId, scope]);
    res.status(204).end();
  }));

  return router;
}
