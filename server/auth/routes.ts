// /auth/v1: GoTrue's paths and bodies, so supabase-js auth works unchanged.
// Each handler validates its input, makes one SQL call (the behaviour is in
// sql/0006_auth_functions.sql) and shapes the answer; errors go to the one mapper.
import express, { type Request, type Router } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { ApiError, AUTH_API_VERSION, route, toApiError } from '../errors.ts';
import type { OpenRoute } from '../gateway.ts';
import type { Keys } from '../keys.ts';
import { sessionBody, type SessionRow } from './session.ts';

export type AuthDeps = { config: Config; keys: Keys; pool: pg.Pool };

const email = z.string().trim().max(255).optional();
const phone = z.string().trim().max(32).optional();

/** Parses a body with zod; the first problem becomes GoTrue's validation_failed. */
function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ApiError('invalid_request', `${issue.path.join('.') || 'body'}: ${issue.message}`, { code: 'validation_failed' });
  }
  return result.data;
}

function clientIp(req: Request): string {
  return req.socket.remoteAddress ?? '';
}

function userAgent(req: Request): string | null {
  return typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'].slice(0, 512) : null;
}

/** The signed-in user behind the bearer token (gateway-verified). */
function currentUser(req: Request): { id: string; sessionId: string | null } {
  const claims = req.auth?.claims;
  if (!claims || claims.role !== 'authenticated' || typeof claims.sub !== 'string') {
    throw new ApiError('unauthorized', 'This endpoint requires a valid Bearer token', { code: 'no_authorization', status: 401 });
  }
  return { id: claims.sub, sessionId: typeof claims.session_id === 'string' ? claims.session_id : null };
}

function checkPassword(config: Config, password: string): void {
  if (password.length < config.AUTH_PASSWORD_MIN_LENGTH) {
    throw new ApiError('invalid_request', `Password should be at least ${config.AUTH_PASSWORD_MIN_LENGTH} characters.`, {
      status: 422,
      code: 'weak_password',
      details: { weak_password: { reasons: ['length'] } },
    });
  }
  if (Buffer.byteLength(password) > 72) {
    throw new ApiError('invalid_request', 'Password cannot be longer than 72 characters', { status: 422, code: 'weak_password', details: { weak_password: { reasons: ['length'] } } });
  }
}

export function authRoutes({ config, keys, pool }: AuthDeps): { router: Router; open: OpenRoute[] } {
  const router = express.Router();
  router.use(express.json({ limit: '100kb' }));
  router.use((req, res, next) => {
    const asked = req.headers['x-supabase-api-version'];
    if (typeof asked === 'string' && asked >= AUTH_API_VERSION) res.setHeader('X-Supabase-Api-Version', AUTH_API_VERSION);
    next();
  });

  const respondSession = async (res: express.Response, rows: SessionRow[]) => {
    res.json(await sessionBody(rows[0]!, config, keys));
  };

  router.post(
    '/signup',
    route(async (req, res) => {
      if (config.AUTH_DISABLE_SIGNUP) throw new ApiError('forbidden', 'Signups not allowed for this instance', { code: 'signup_disabled' });
      const body = parse(z.object({ email, phone, password: z.string().max(1000), data: z.record(z.string(), z.unknown()).optional() }), req.body);
      if (!body.email && body.phone) throw new ApiError('invalid_request', 'Unsupported phone provider', { code: 'phone_provider_disabled' });
      checkPassword(config, body.password);
      const { rows } = await pool.query<{ user: SessionRow['user']; confirmed: boolean }>(
        `with u as (select * from auth.sign_up($1, $2, $3, $4, $5, $6))
         select auth.user_json(u) as user, u.confirmed_at is not null as confirmed from u`,
        [body.email ?? null, body.phone ?? null, body.password, body.data ?? {}, config.AUTH_AUTOCONFIRM, config.AUTH_BCRYPT_COST],
      );
      const created = rows[0]!;
      if (!created.confirmed) {
        res.json(created.user); // confirmation mail goes out with the mail work (see README: identity status)
        return;
      }
      const session = await pool.query<SessionRow>('select * from auth.issue_session($1, $2, $3, $4)', [created.user.id, 'password', userAgent(req), clientIp(req)]);
      await respondSession(res, session.rows);
    }),
  );

  router.post(
    '/token',
    route(async (req, res) => {
      const grant = req.query.grant_type;
      try {
        if (grant === 'password') {
          const body = parse(z.object({ email, phone, password: z.string().min(1, 'Password required').max(1000) }), req.body);
          if (!body.email && !body.phone) throw new ApiError('invalid_request', 'An email address or phone number is required', { code: 'validation_failed' });
          const { rows } = await pool.query<SessionRow>('select * from auth.grant_password($1, $2, $3, $4, $5)', [body.email ?? null, body.phone ?? null, body.password, userAgent(req), clientIp(req)]);
          return await respondSession(res, rows);
        }
        if (grant === 'refresh_token') {
          const body = parse(z.object({ refresh_token: z.string().min(1, 'Refresh token required').max(255) }), req.body);
          const { rows } = await pool.query<SessionRow>('select * from auth.grant_refresh($1, make_interval(secs => $2), $3)', [body.refresh_token, config.AUTH_REFRESH_GRACE_SECONDS, clientIp(req)]);
          if (rows.length === 0) throw new ApiError('invalid_request', 'Invalid Refresh Token: Already Used', { code: 'refresh_token_already_used' });
          return await respondSession(res, rows);
        }
        throw new ApiError('invalid_request', `Unsupported grant type ${JSON.stringify(grant ?? '')}`, { code: 'unsupported_grant_type' });
      } catch (err) {
        // OAuth-style clients read error / error_description on token errors.
        const e = toApiError(err);
        if (e.status >= 500) throw err;
        const oauthError = e.code === 'unsupported_grant_type' ? 'unsupported_grant_type' : 'invalid_grant';
        throw new ApiError(e.kind, e.message, { status: e.status, ...(e.code ? { code: e.code } : {}), details: { error: oauthError, error_description: e.message } });
      }
    }),
  );

  router.get(
    '/user',
    route(async (req, res) => {
      const user = currentUser(req);
      const { rows } = await pool.query<{ user: unknown }>('select auth.session_user($1, $2) as user', [user.id, user.sessionId]);
      res.json(rows[0]!.user);
    }),
  );

  router.post(
    '/logout',
    route(async (req, res) => {
      const user = currentUser(req);
      const scope = typeof req.query.scope === 'string' ? req.query.scope : 'global';
      if (!['global', 'local', 'others'].includes(scope)) throw new ApiError('invalid_request', `Unsupported logout scope "${scope}"`, { code: 'validation_failed' });
      if (user.sessionId) await pool.query('select auth.sign_out($1, $2)', [user.sessionId, scope]);
      res.status(204).end();
    }),
  );

  router.get('/health', (_req, res) => {
    res.json({ version: 'pgbase', name: 'GoTrue', description: 'pgbase identity service, GoTrue API compatible (2.184.0)' });
  });

  router.get('/settings', (_req, res) => {
    res.json({
      external: { email: true, phone: false },
      disable_signup: config.AUTH_DISABLE_SIGNUP,
      mailer_autoconfirm: config.AUTH_AUTOCONFIRM,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
    });
  });

  // HS256 project tokens have no public key to publish: an empty set, as GoTrue serves for symmetric keys.
  router.get('/.well-known/jwks.json', (_req, res) => {
    res.json({ keys: [] });
  });

  return { router, open: [] };
}
