// /api/platform/auth/{ref}: the project's users, for an operator (spec 4.2
// names the first two; the rest follow GoTrue's admin API shapes, run through
// the same SQL functions the identity service's admin routes call).
//   GET    /users?search=&page=&per_page=   a page of users, newest first; search by e-mail, phone or id
//   POST   /users                           {email, password}: a confirmed user
//   GET    /users/{id}                      the user (identities inside), MFA factors, sessions
//   PUT    /users/{id}                      {ban_duration?, user_metadata?, app_metadata?, email?, password?}
//   DELETE /users/{id}
//   POST   /users/{id}/magic-link, /users/{id}/recovery    e-mails one (SMTP_URL; kept in platform.mail_outbox without it)
//   POST   /invite                          {email}: an invite e-mail
//   GET    /config                          the identity settings in force (read-only: they are configuration)
// Bans and deletions go to the audit log.
import express, { type Router } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import { createUser, parseBanDuration } from '../auth/admin.ts';
import type { Config } from '../config.ts';
import { OAUTH_PROVIDERS } from '../config.ts';
import { route } from '../errors.ts';
import { audit } from './audit.ts';
import { studioErrors } from './errors.ts';
import { parseBody } from './parse.ts';

export const UsersQuery = z.object({ search: z.string().max(255).optional(), page: z.coerce.number().int().min(1).optional(), per_page: z.coerce.number().int().min(1).max(1000).optional() });
export const CreateUserBody = z.object({ email: z.string().trim().min(1).max(255), password: z.string().min(1).max(72) });
export const UpdateUserBody = z.object({
  ban_duration: z.string().max(64).optional(), email: z.string().trim().max(255).optional(), password: z.string().min(1).max(72).optional(),
  user_metadata: z.record(z.string(), z.unknown()).optional(), app_metadata: z.record(z.string(), z.unknown()).optional(), email_confirm: z.boolean().optional(),
});
export const InviteUserBody = z.object({ email: z.string().trim().min(3).max(255) });
const uuid = z.string().uuid('a user id');

export function userRoutes(opts: { config: Config; pool: pg.Pool }): Router {
  const { config, pool } = opts;
  const r = express.Router({ mergeParams: true });

  r.get('/users', route(async (req, res) => {
    const q = parseBody(UsersQuery, req.query);
    const page = q.page ?? 1;
    const perPage = q.per_page ?? 50;
    const search = q.search?.trim() ? q.search.trim() : null;
    const { rows } = await pool.query<{ users: unknown[]; total: string }>(
      `with found as (select * from auth.users u where u.deleted_at is null
                        and ($3::text is null or u.email ilike '%' || $3 || '%' or u.phone ilike '%' || $3 || '%' or u.id::text = lower($3)))
       select coalesce((select jsonb_agg(auth.user_json(f) order by f.created_at desc, f.id) from (select * from found order by created_at desc, id limit $1 offset $2) f), '[]') as users,
              (select count(*) from found) as total`,
      [perPage, (page - 1) * perPage, search?.replace(/[\\%_]/g, (c) => `\\${c}`) ?? null]);
    res.json({ users: rows[0]!.users, total: Number(rows[0]!.total), page, per_page: perPage });
  }));

  r.post('/users', route(async (req, res) => {
    const body = parseBody(CreateUserBody, req.body);
    if (body.password.length < config.AUTH_PASSWORD_MIN_LENGTH) throw studioErrors.invalid(`password: at least ${config.AUTH_PASSWORD_MIN_LENGTH} characters`);
    // An operator creating a user vouches for the address, as Supabase Studio's default does.
    const user = await createUser(pool, config, { email: body.email, password: body.password, email_confirm: true }) as { id: string; email: string };
    await audit(pool, req, req.operator!, 'create_user', user.email, { id: user.id });
    res.status(201).json(user);
  }));

  r.get('/users/:id', route(async (req, res) => {
    const id = parseBody(uuid, req.params.id);
    const { rows } = await pool.query<{ user: unknown; factors: unknown; sessions: unknown }>(
      `select auth.user_json(u) as user, auth.admin_factors(u.id) as factors,
              coalesce((select jsonb_agg(jsonb_build_object('id', s.id, 'created_at', s.created_at, 'updated_at', s.updated_at, 'aal', s.aal, 'user_agent', s.user_agent, 'ip', s.ip) order by s.created_at desc)
                          from auth.sessions s where s.user_id = u.id), '[]') as sessions
         from auth.users u where u.id = $1 and u.deleted_at is null`, [id]);
    if (!rows[0]) throw studioErrors.notFound('User');
    res.json(rows[0]);
  }));

  r.put('/users/:id', route(async (req, res) => {
    const id = parseBody(uuid, req.params.id);
    const b = parseBody(UpdateUserBody, req.body);
    const { rows } = await pool.query<{ user: { email?: string } }>('select auth.admin_update_user($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) as user', [
      id, b.email ?? null, null, b.password ?? null, b.email_confirm ?? null, b.user_metadata ?? null, b.app_metadata ?? null, parseBanDuration(b.ban_duration), null, config.AUTH_BCRYPT_COST,
    ]);
    if (b.ban_duration !== undefined) await audit(pool, req, req.operator!, b.ban_duration === 'none' ? 'unban_user' : 'ban_user', rows[0]!.user.email ?? id, { id, ban_duration: b.ban_duration });
    else await audit(pool, req, req.operator!, 'update_user', rows[0]!.user.email ?? id, { id, fields: Object.keys(b) });
    res.json(rows[0]!.user);
  }));

  r.delete('/users/:id', route(async (req, res) => {
    const id = parseBody(uuid, req.params.id);
    const { rows } = await pool.query<{ email: string | null }>('select email from auth.users where id = $1', [id]);
    if (!rows[0]) throw studioErrors.notFound('User');
    await pool.query('select auth.admin_delete_user($1, false)', [id]);
    await audit(pool, req, req.operator!, 'delete_user', rows[0].email ?? id, { id });
    res.json({ deleted: true });
  }));

  const mailed = (kind: 'magic-link' | 'recovery') => route(async (req, res) => {
    const id = parseBody(uuid, req.params.id);
    const { rows } = await pool.query<{ email: string | null }>('select email from auth.users where id = $1 and deleted_at is null', [id]);
    if (!rows[0]?.email) throw studioErrors.invalid('This user has no e-mail address');
    if (kind === 'magic-link') await pool.query('select auth.request_email_otp($1, false, $2, $3, null, null)', [rows[0].email, {}, config.SITE_URL]);
    else await pool.query('select auth.request_recovery($1, $2, null, null)', [rows[0].email, config.SITE_URL]);
    await audit(pool, req, req.operator!, kind === 'magic-link' ? 'send_magic_link' : 'send_recovery', rows[0].email, { id });
    res.json({ sent: true, email: rows[0].email, via: config.SMTP_URL ? 'smtp' : 'mail_outbox' });
  });
  r.post('/users/:id/magic-link', mailed('magic-link'));
  r.post('/users/:id/recovery', mailed('recovery'));

  r.post('/invite', route(async (req, res) => {
    const body = parseBody(InviteUserBody, req.body);
    const { rows } = await pool.query<{ user: { id: string; email: string } }>('select auth.invite_user($1, $2, $3) as user', [body.email, {}, config.SITE_URL]);
    await audit(pool, req, req.operator!, 'invite_user', rows[0]!.user.email, { id: rows[0]!.user.id });
    res.status(201).json(rows[0]!.user);
  }));

  r.get('/config', route(async (_req, res) => {
    res.json({
      site_url: config.SITE_URL, uri_allow_list: config.AUTH_REDIRECT_ALLOW_LIST.split(',').map((s) => s.trim()).filter(Boolean),
      disable_signup: config.AUTH_DISABLE_SIGNUP, mailer_autoconfirm: config.AUTH_AUTOCONFIRM, anonymous_users: config.AUTH_ANONYMOUS_USERS,
      manual_linking: config.AUTH_MANUAL_LINKING, secure_password_change: config.AUTH_SECURE_PASSWORD_CHANGE,
      password_min_length: config.AUTH_PASSWORD_MIN_LENGTH, jwt_expiry: config.JWT_EXPIRY, otp_expiry: config.AUTH_OTP_EXPIRY,
      refresh_token_reuse_interval: config.AUTH_REFRESH_GRACE_SECONDS, smtp: Boolean(config.SMTP_URL),
      external: Object.fromEntries(OAUTH_PROVIDERS.map((p) => [p, Boolean(config.oauth[p])])),
      rate_limits: {
        sign_in: config.AUTH_RATE_LIMIT_SIGN_IN, sign_up: config.AUTH_RATE_LIMIT_SIGN_UP, anonymous_users: config.AUTH_RATE_LIMIT_ANONYMOUS_USERS,
        token_refresh: config.AUTH_RATE_LIMIT_TOKEN_REFRESH, verify: config.AUTH_RATE_LIMIT_VERIFY, email: config.AUTH_RATE_LIMIT_EMAIL,
      },
    });
  }));
  return r;
}
