// GoTrue's admin API: /admin/users (list, create, get, update, delete),
// /admin/generate_link and /invite. Only the service-role key gets in.
import express, { type Request, type Router } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { parse } from './parse.ts';
import { email, phone, userData } from './request.ts';
import { route } from '../errors.ts';
import { authErrors } from './errors.ts';
import { verifyLink } from '../../worker/tasks/auth-mail.ts';
import { allowedRedirect } from './redirect.ts';

const UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** GoTrue's ban_duration: a Go duration ("24h", "1h30m") or "none" (0 lifts a ban). */
export function parseBanDuration(value: string | null | undefined): number | null {
  if (value == null) return null;
  if (value === 'none') return 0;
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) {
    throw authErrors.badBanDuration(value);
  }
  return Math.ceil(parts.reduce((sum, p) => sum + Number(p[1]) * UNITS[p[2]!]!, 0));
}

export function requireAdmin(req: Request): void {
  if (req.auth?.bearerRefused) throw authErrors.badJwt(req.auth.bearerRefused, req.auth.bearer ?? '');
  if (req.auth?.role !== 'service_role') throw authErrors.notAdmin();
}

const uuid = z.string().uuid();
const userFields = {
  email,
  phone,
  password: z.string().min(1).max(72).nullish(),
  email_confirm: z.boolean().nullish(),
  phone_confirm: z.boolean().nullish(),
  user_metadata: userData,
  app_metadata: userData,
  ban_duration: z.string().max(64).nullish(),
  role: z.string().max(63).nullish(),
};


/** One page of users, newest first, with the total. */
export async function listUsers(pool: pg.Pool, page: number, perPage: number): Promise<{ users: unknown[]; total: number }> {
  const { rows } = await pool.query<{ users: unknown[]; total: string }>(
    `select coalesce((select jsonb_agg(auth.user_json(u) order by u.created_at desc, u.id)
                      from (select * from auth.users where deleted_at is null order by created_at desc, id limit $1 offset $2) u), '[]') as users,
            (select count(*) from auth.users where deleted_at is null) as total`,
    [perPage, (page - 1) * perPage],
  );
  return { users: rows[0]!.users, total: Number(rows[0]!.total) };
}

type Maybe<T> = T | null | undefined;
export type NewUser = {
  email?: Maybe<string>; phone?: Maybe<string>; password?: Maybe<string>; email_confirm?: Maybe<boolean>; phone_confirm?: Maybe<boolean>;
  user_metadata?: Maybe<Record<string, unknown>>; app_metadata?: Maybe<Record<string, unknown>>; ban_duration?: Maybe<string>; role?: Maybe<string>;
};

export async function createUser(pool: pg.Pool, config: Config, b: NewUser): Promise<unknown> {
  const { rows } = await pool.query<{ user: unknown }>('select auth.admin_create_user($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) as user', [
    b.email ?? null, b.phone ?? null, b.password ?? null, b.email_confirm ?? false, b.phone_confirm ?? false,
    b.user_metadata ?? {}, b.app_metadata ?? {}, parseBanDuration(b.ban_duration), b.role ?? null, config.AUTH_BCRYPT_COST,
  ]);
  return rows[0]!.user;
}

export function adminRoutes({ config, pool }: { config: Config; pool: pg.Pool }): Router {
  const router = express.Router();
  router.use(['/admin', '/invite'], (req, _res, next) => {
    requireAdmin(req);
    next();
  });

  router.get(
    '/admin/users',
    route(async (req, res) => {
      // GoTrue's pagination: positive integers, else 400.
      const positive = (key: string, fallback: number) => {
        const raw = req.query[key];
        if (raw === undefined || raw === '') return fallback;
        const n = Number(raw);
        if (!Number.isInteger(n) || n < 1) throw authErrors.badPagination(`${key} must be a positive integer`);
        return n;
      };
      const page = positive('page', 1);
      const perPage = Math.min(1000, positive('per_page', 50));
      const { users, total } = await listUsers(pool, page, perPage);
      const last = Math.max(1, Math.ceil(total / perPage));
      const link = (p: number, rel: string) => `</admin/users?page=${p}&per_page=${perPage}>; rel="${rel}"`;
      res.setHeader('X-Total-Count', String(total));
      res.setHeader('Link', [...(page < last ? [link(page + 1, 'next')] : []), link(last, 'last')].join(', '));
      res.json({ users, aud: 'authenticated' });
    }),
  );

  router.post(
    '/admin/users',
    route(async (req, res) => {
      res.json(await createUser(pool, config, parse(z.object(userFields), req.body)));
    }),
  );

  router.get(
    '/admin/users/:id',
    route(async (req, res) => {
      const id = parse(uuid, req.params.id);
      const { rows } = await pool.query<{ user: unknown }>('select auth.user_json(u) as user from auth.users u where u.id = $1 and u.deleted_at is null', [id]);
      if (rows.length === 0) throw authErrors.userNotFound();
      res.json(rows[0]!.user);
    }),
  );

  router.put(
    '/admin/users/:id',
    route(async (req, res) => {
      const id = parse(uuid, req.params.id);
      const b = parse(z.object(userFields), req.body);
      const { rows } = await pool.query<{ user: unknown }>('select auth.admin_update_user($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) as user', [
        id, b.email ?? null, b.phone ?? null, b.password ?? null, b.email_confirm ?? null,
        b.user_metadata ?? null, b.app_metadata ?? null, parseBanDuration(b.ban_duration), b.role ?? null, config.AUTH_BCRYPT_COST,
      ]);
      res.json(rows[0]!.user);
    }),
  );

  router.get(
    '/admin/users/:id/factors',
    route(async (req, res) => {
      const { rows } = await pool.query<{ factors: unknown }>('select auth.admin_factors($1) as factors', [parse(uuid, req.params.id)]);
      res.json(rows[0]!.factors);
    }),
  );

  router.delete(
    '/admin/users/:id/factors/:factorId',
    route(async (req, res) => {
      const { rows } = await pool.query<{ factor: unknown }>('select auth.admin_delete_factor($1, $2) as factor', [parse(uuid, req.params.id), parse(uuid, req.params.factorId)]);
      res.json(rows[0]!.factor);
    }),
  );

  router.delete(
    '/admin/users/:id',
    route(async (req, res) => {
      const id = parse(uuid, req.params.id);
      const soft = parse(z.object({ should_soft_delete: z.boolean().nullish() }), req.body).should_soft_delete ?? false;
      await pool.query('select auth.admin_delete_user($1, $2)', [id, soft]);
      res.json({});
    }),
  );

  router.post(
    '/admin/generate_link',
    route(async (req, res) => {
      const b = parse(
        z.object({
          type: z.enum(['signup', 'invite', 'magiclink', 'recovery', 'email_change_current', 'email_change_new']),
          email: z.string().trim().min(1).max(255),
          password: z.string().max(72).nullish(),
          data: userData,
          new_email: z.string().max(255).nullish(),
          redirect_to: z.string().nullish(),
        }),
        req.body,
      );
      const redirect = allowedRedirect(config, b.redirect_to ?? req.query.redirect_to);
      const { rows } = await pool.query<{ user_json: Record<string, unknown>; code: string; token_hash: string; verification_type: string }>(
        'select * from auth.generate_link($1, $2, $3, $4, $5, $6)',
        [b.type, b.email, b.password ?? null, b.data ?? {}, b.new_email ?? null, config.AUTH_BCRYPT_COST],
      );
      const r = rows[0]!;
      res.json({
        ...r.user_json,
        action_link: verifyLink(config, { token_hash: r.token_hash, type: r.verification_type, redirect_to: redirect }),
        email_otp: r.code,
        hashed_token: r.token_hash,
        verification_type: r.verification_type,
        redirect_to: redirect,
      });
    }),
  );

  router.post(
    '/invite',
    route(async (req, res) => {
      const b = parse(z.object({ email: z.string().trim().min(1).max(255), data: userData }), req.body);
      const { rows } = await pool.query<{ user: unknown }>('select auth.invite_user($1, $2, $3) as user', [b.email, b.data ?? {}, allowedRedirect(config, req.query.redirect_to)]);
      res.json(rows[0]!.user);
    }),
  );

  return router;
}
