// /api/platform/studio: operators' accounts and sessions.
//
//   GET  /state             what the Studio needs to start: setup needed?, the operator and CSRF token, the project
//   POST /setup             the first operator, through the one-time link the startup log printed; signs in
//   POST /sign-in           a session cookie; per address (STUDIO_SIGN_IN_RATE) and per e-mail (sql/0098) limited
//   POST /sign-out          ends the session in the database
//   POST /invites/accept    an invited operator chooses a password; signs in
//   GET  /operators, POST /invites, GET /audit       (an operator's)
import express, { type Request, type Response, type Router } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import { route } from '../errors.ts';
import { rateWindow, type Rate } from '../rate-window.ts';
import { audit } from './audit.ts';
import { studioErrors } from './errors.ts';
import { csrfFor, newToken, operatorGate, sessionOf, sessionToken, setSessionCookie, tokenHash } from './session.ts';
import { parseBody } from './parse.ts';

export const SignInBody = z.object({
  email: z.string({ error: 'email is required' }).trim().min(3, 'email is required').max(255),
  password: z.string({ error: 'password is required' }).min(1, 'password is required').max(200),
});
export const SetupBody = SignInBody.extend({ token: z.string({ error: 'token is required' }).min(20).max(100) });
export const AcceptInviteBody = z.object({ token: z.string({ error: 'token is required' }).min(20).max(100), password: z.string({ error: 'password is required' }).min(1).max(200) });
export const InviteBody = z.object({ email: z.string({ error: 'email is required' }).trim().min(3).max(255) });
export const AuditQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).optional(), before: z.coerce.number().int().min(1).optional() });

export type ProjectInfo = { ref: string; api_url: string; anon_key: string; platform_url: string };

export function accountRoutes(opts: { pool: pg.Pool; platformSecret: string; project: () => ProjectInfo; signInRate: Rate; studio: boolean; queueInvite: (email: string, link: string) => Promise<void> }): Router {
  const { pool } = opts;
  const r = express.Router();
  const gate = operatorGate({ pool, platformSecret: opts.platformSecret, sessions: opts.studio });
  const perAddress = rateWindow(opts.signInRate);
  const ip = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

  /** A new session for the operator, its cookie set; answers what /state answers. */
  const startSession = async (req: Request, res: Response, email: string, password: string) => {
    const token = newToken();
    const [row] = (await pool.query<{ outcome: 'ok' | 'wrong' | 'locked'; operator_id: string; email: string; retry_after: number | null }>(
      'select * from studio.sign_in($1, $2, $3, $4, $5)', [email, password, ip(req), String(req.headers['user-agent'] ?? ''), tokenHash(token)])).rows;
    if (row!.outcome === 'locked') throw studioErrors.locked(row!.retry_after ?? 900);
    if (row!.outcome === 'wrong') throw studioErrors.wrongPassword();
    setSessionCookie(req, res, token);
    await audit(pool, req, { id: row!.operator_id, email: row!.email }, 'sign_in', null, {});
    res.json({ setup_needed: false, operator: { id: row!.operator_id, email: row!.email }, csrf_token: csrfFor(opts.platformSecret, token), project: opts.project() });
  };

  r.get('/studio/state', route(async (req, res) => {
    const token = sessionToken(req);
    const session = token ? await sessionOf(pool, token) : undefined;
    const setupNeeded = (await pool.query<{ needed: boolean }>('select studio.setup_needed() as needed')).rows[0]!.needed;
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      setup_needed: setupNeeded,
      operator: session ? { id: session.operator_id, email: session.email } : null,
      csrf_token: session && token ? csrfFor(opts.platformSecret, token) : null,
      // The project's public face only: never the service key or the JWT secret.
      project: session ? opts.project() : null,
    });
  }));

  r.post('/studio/sign-in', route(async (req, res) => {
    if (!opts.studio) throw studioErrors.notFound('The Studio (STUDIO=off)');
    const verdict = perAddress.hit(ip(req));
    if (!verdict.ok) throw studioErrors.tooManyFromHere(verdict.retryAfterSeconds);
    const body = parseBody(SignInBody, req.body);
    await startSession(req, res, body.email, body.password);
  }));

  r.post('/studio/setup', route(async (req, res) => {
    if (!opts.studio) throw studioErrors.notFound('The Studio (STUDIO=off)');
    const body = parseBody(SetupBody, req.body);
    const [made] = (await pool.query<{ id: string; email: string }>('select id, email from studio.create_first_operator($1, $2, $3)', [tokenHash(body.token), body.email, body.password])).rows;
    await audit(pool, req, made!, 'create_first_operator', made!.email, {});
    await startSession(req, res, body.email, body.password);
  }));

  r.post('/studio/invites/accept', route(async (req, res) => {
    if (!opts.studio) throw studioErrors.notFound('The Studio (STUDIO=off)');
    const body = parseBody(AcceptInviteBody, req.body);
    const [made] = (await pool.query<{ id: string; email: string }>('select id, email from studio.accept_invite($1, $2)', [tokenHash(body.token), body.password])).rows;
    await audit(pool, req, made!, 'accept_invite', made!.email, {});
    await startSession(req, res, made!.email, body.password);
  }));

  r.post('/studio/sign-out', gate, route(async (req, res) => {
    if (req.operator?.kind !== 'session') throw studioErrors.sessionOnly();
    await pool.query('select studio.sign_out($1)', [tokenHash(sessionToken(req)!)]);
    setSessionCookie(req, res, null);
    await audit(pool, req, req.operator, 'sign_out', null, {});
    res.json({ signed_out: true });
  }));

  r.get('/studio/operators', gate, route(async (_req, res) => {
    res.json((await pool.query(`select o.id, o.email, o.created_at, o.last_sign_in_at, b.email as invited_by
                                  from studio.operators o left join studio.operators b on b.id = o.created_by order by o.created_at`)).rows);
  }));

  // The link works once, for 7 days; it is answered here (shown once in the Studio) and e-mailed when SMTP_URL is set.
  r.post('/studio/invites', gate, route(async (req, res) => {
    const body = parseBody(InviteBody, req.body);
    const token = newToken();
    const [invite] = (await pool.query<{ id: string; email: string; expires_at: string }>('select id, email, expires_at from studio.invite($1, $2, $3)', [req.operator!.id, body.email, tokenHash(token)])).rows;
    const link = `${opts.project().platform_url}/invite#${token}`;
    await opts.queueInvite(invite!.email, link);
    await audit(pool, req, req.operator!, 'invite_operator', invite!.email, {});
    res.status(201).json({ ...invite, invite_url: link });
  }));

  r.get('/studio/audit', gate, route(async (req, res) => {
    const q = parseBody(AuditQuery, req.query);
    res.json((await pool.query(`select id, at, operator_email, action, target, detail, ip from studio.audit_log
                                 where ($1::bigint is null or id < $1) order by id desc limit $2`, [q.before ?? null, q.limit ?? 100])).rows);
  }));

  return r;
}
