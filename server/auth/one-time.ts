// One-time tokens by e-mail or SMS: asking for one (/otp, /magiclink,
// /recover, /resend) and spending one (/verify, by body or by the e-mailed
// link). Asking answers the same whether or not the address is known.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route, toApiError } from '../errors.ts';
import { allowedRedirect } from './redirect.ts';
import { authErrors } from './errors.ts';
import { parse } from './parse.ts';
import { clientIp, email, otpExpiry, phone, pkceFields, redirectTo, requireSms, smsExpiry, userAgent, userData } from './request.ts';
import type { AuthDeps } from './deps.ts';
import { issueSession, redirectWithSession, sessionBody, type SessionRow } from './session.ts';

const VERIFY_TYPES = ['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email', 'sms', 'phone_change'] as const;

export function oneTimeRoutes({ config, keys, pool }: AuthDeps): Router {
  const router = express.Router();

  router.post(['/otp', '/magiclink'], route(async (req, res) => {
    const body = parse(
      z.object({ email, phone, create_user: z.boolean().nullish(), data: userData, options: z.object({ data: userData, email_redirect_to: z.string().optional() }).optional(), ...pkceFields }),
      req.body,
    );
    const data = body.data ?? body.options?.data ?? {};
    if (!body.email && body.phone) {
      requireSms(config);
      await pool.query('select auth.request_phone_otp($1, $2, $3)', [body.phone, body.create_user ?? true, data]);
      return void res.json({ message_id: null });
    }
    if (!body.email) throw authErrors.emailOrPhoneRequired();
    const redirect = allowedRedirect(config, body.options?.email_redirect_to ?? req.query.redirect_to);
    await pool.query('select auth.request_email_otp($1, $2, $3, $4, $5, $6)', [body.email, body.create_user ?? true, data, redirect, body.code_challenge ?? null, body.code_challenge_method ?? null]);
    res.json({});
  }));

  router.post('/recover', route(async (req, res) => {
    const body = parse(z.object({ email: z.string().trim().min(1, 'Password recovery requires an email').max(255), ...pkceFields }), req.body);
    await pool.query('select auth.request_recovery($1, $2, $3, $4)', [body.email, redirectTo(config, req), body.code_challenge ?? null, body.code_challenge_method ?? null]);
    res.json({});
  }));

  router.post('/resend', route(async (req, res) => {
    const body = parse(z.object({ email, phone, type: z.enum(['signup', 'email_change', 'sms', 'phone_change']) }), req.body);
    const byPhone = body.type === 'sms' || body.type === 'phone_change';
    if (byPhone) requireSms(config);
    if (byPhone ? !body.phone : !body.email) throw authErrors.validation(byPhone ? 'A phone number is required' : 'An email address is required');
    await pool.query('select auth.resend($1, $2, $3, $4)', [body.type, body.email ?? null, body.phone ?? null, redirectTo(config, req)]);
    res.json({});
  }));

  router.post('/verify', route(async (req, res) => {
    const body = parse(z.object({ type: z.enum(VERIFY_TYPES), token: z.string().max(255).nullish(), token_hash: z.string().max(255).nullish(), email, phone }), req.body);
    const byPhone = body.type === 'sms' || body.type === 'phone_change';
    if (byPhone) {
      requireSms(config);
      if (!body.phone || !body.token) throw authErrors.validation('Verify requires a token with a phone number');
    } else if (!body.token_hash && !(body.token && body.email)) {
      throw authErrors.validation('Verify requires either a token with an email or a token_hash');
    }
    const { rows } = await pool.query<SessionRow>(
      `select s.* from auth.verify_one_time_token($1, $2, case when $3::text is null then null else auth.valid_phone($3) end, $4, $5, $6::interval) v,
              lateral auth.issue_session(v.user_id, v.method, $7, $8) s`,
      [body.type, body.email ?? null, byPhone ? body.phone : null, body.token ?? null, body.token_hash ?? null, byPhone ? smsExpiry(config) : otpExpiry(config), userAgent(req), clientIp(req)],
    );
    res.json(await sessionBody(rows[0]!, config, keys));
  }));

  // The e-mailed link: verifies, then sends the browser to redirect_to with the
  // session in the fragment (implicit) or an auth code in the query (PKCE).
  router.get('/verify', route(async (req, res) => {
    const type = String(req.query.type ?? '');
    const token = String(req.query.token ?? '');
    const target = redirectTo(config, req);
    try {
      if (!(VERIFY_TYPES as readonly string[]).includes(type) || !token) throw authErrors.validation('Verify requires a type and a token');
      const { rows: [v] } = await pool.query<{ user_id: string; method: string; pkce: boolean }>('select * from auth.verify_one_time_token($1, null, null, null, $2, $3::interval)', [type, token, otpExpiry(config)]);
      if (v!.pkce) {
        const { rows } = await pool.query<{ code: string }>('select auth.issue_auth_code($1, $2) as code', [v!.user_id, v!.method]);
        const url = new URL(target);
        url.searchParams.set('code', rows[0]!.code);
        return void res.redirect(303, url.toString());
      }
      res.redirect(303, await redirectWithSession(target, await issueSession(pool, req, v!.user_id, v!.method), config, keys, { type }));
    } catch (err) {
      const e = toApiError(err);
      if (e.status >= 500) throw err;
      const fragment = new URLSearchParams({ error: 'access_denied', error_code: e.code ?? e.kind, error_description: e.message });
      res.redirect(303, `${target.split('#')[0]}#${fragment.toString()}`);
    }
  }));

  return router;
}
