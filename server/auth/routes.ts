// /auth/v1: GoTrue's paths and bodies, so supabase-js auth works unchanged.
// Each handler validates its input, makes one SQL call (the behaviour is in
// sql/0006_auth_functions.sql) and shapes the answer; errors go to the one mapper.
import express, { type Request, type Router } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import { OAUTH_PROVIDERS, type Config } from '../config.ts';
import { parse } from './parse.ts';
import { ApiError, route, toApiError } from '../errors.ts';
import { AUTH_API_VERSION, authErrors } from './errors.ts';
import type { OpenRoute } from '../gateway.ts';
import type { Keys } from '../keys.ts';
import { adminRoutes } from './admin.ts';
import { mfaRoutes } from './mfa.ts';
import { verifyIdToken } from './id-token.ts';
import { oauthRoutes } from './oauth.ts';
import { captchaCheck } from './captcha.ts';
import { rateLimit } from './rate-limit.ts';
import { allowedRedirect } from './redirect.ts';
import { currentUser, redirectWithSession, sessionBody, type SessionRow } from './session.ts';

export type AuthDeps = { config: Config; keys: Keys; pool: pg.Pool };

const email = z.string().trim().max(255).nullish();
const phone = z.string().trim().max(32).nullish();


function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}

function userAgent(req: Request): string | null {
  return typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'].slice(0, 512) : null;
}

function checkPassword(config: Config, password: string): void {
  if (password.length < config.AUTH_PASSWORD_MIN_LENGTH) {
    throw authErrors.passwordTooShort(config.AUTH_PASSWORD_MIN_LENGTH);
  }
  if (Buffer.byteLength(password) > 72) {
    throw authErrors.passwordTooLong();
  }
}

const pkceFields = {
  code_challenge: z.string().min(43).max(128).nullish(),
  code_challenge_method: z.enum(['s256', 'plain', 'S256', 'PLAIN']).nullish(),
};

const VERIFY_TYPES = ['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email', 'sms', 'phone_change'] as const;

export function authRoutes({ config, keys, pool }: AuthDeps): { router: Router; open: OpenRoute[] } {
  /** redirect_to from the query (supabase-js) or body, checked against the allow-list. */
  const redirectTo = (req: Request): string => allowedRedirect(config, req.query.redirect_to ?? (req.body as { redirect_to?: unknown } | undefined)?.redirect_to);
  const otpExpiry = `${config.AUTH_OTP_EXPIRY} seconds`;
  const smsExpiry = `${config.AUTH_SMS_OTP_EXPIRY} seconds`;
  /** Phone features need an SMS provider, as on GoTrue. */
  const requireSms = () => {
    if (!config.AUTH_SMS_PROVIDER) throw authErrors.phoneProviderDisabled();
  };

  const router = express.Router();
  router.use(express.json({ limit: '100kb' }));
  router.use((req, res, next) => {
    const asked = req.headers['x-supabase-api-version'];
    if (typeof asked === 'string' && asked >= AUTH_API_VERSION) res.setHeader('X-Supabase-Api-Version', AUTH_API_VERSION);
    next();
  });

  const limits = {
    signIn: rateLimit('sign_in', config.AUTH_RATE_LIMIT_SIGN_IN, 'over_request_rate_limit'),
    signUp: rateLimit('sign_up', config.AUTH_RATE_LIMIT_SIGN_UP, 'over_request_rate_limit'),
    refresh: rateLimit('token_refresh', config.AUTH_RATE_LIMIT_TOKEN_REFRESH, 'over_request_rate_limit'),
    verify: rateLimit('verify', config.AUTH_RATE_LIMIT_VERIFY, 'over_request_rate_limit'),
    email: rateLimit('email', config.AUTH_RATE_LIMIT_EMAIL, 'over_email_send_rate_limit'),
  };
  router.post('/signup', limits.signUp);
  router.post('/token', (req, res, next) => (req.query.grant_type === 'refresh_token' ? limits.refresh : limits.signIn)(req, res, next));
  router.use('/verify', limits.verify);
  router.post(['/otp', '/magiclink', '/recover', '/resend'], limits.email);
  // After the rate limits, so a flood never reaches the captcha verifier.
  const captcha = captchaCheck(config);
  router.post(['/signup', '/otp', '/magiclink', '/recover', '/resend'], captcha);
  router.post('/token', (req, res, next) => (req.query.grant_type === 'password' ? captcha(req, res, next) : next()));

  const respondSession = async (res: express.Response, rows: SessionRow[]) => {
    res.json(await sessionBody(rows[0]!, config, keys));
  };

  router.post(
    '/signup',
    route(async (req, res) => {
      if (config.AUTH_DISABLE_SIGNUP) throw authErrors.signupDisabled();
      // Neither e-mail nor phone: an anonymous sign-in (supabase-js signInAnonymously), when it is on, as GoTrue.
      const raw = (req.body ?? {}) as { email?: unknown; phone?: unknown; data?: unknown };
      if (!raw.email && !raw.phone) {
        if (!config.AUTH_ANONYMOUS_USERS) throw authErrors.anonymousDisabled();
        const anonymous = parse(z.object({ data: z.record(z.string(), z.unknown()).nullish() }), req.body);
        const { rows: [made] } = await pool.query<{ user: SessionRow['user'] }>('select auth.sign_up_anonymous($1) as "user"', [anonymous.data ?? {}]);
        const session = await pool.query<SessionRow>('select * from auth.issue_session($1, $2, $3, $4)', [made!.user.id, 'anonymous', userAgent(req), clientIp(req)]);
        return void (await respondSession(res, session.rows));
      }
      const body = parse(z.object({ email, phone, password: z.string().max(1000), data: z.record(z.string(), z.unknown()).nullish(), ...pkceFields }), req.body);
      if (!body.email && body.phone) requireSms();
      checkPassword(config, body.password);
      const { rows } = await pool.query<{ user: SessionRow['user']; confirmed: boolean }>('select * from auth.register($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
        body.email ?? null, body.email ? null : (body.phone ?? null), body.password, body.data ?? {}, body.email ? config.AUTH_AUTOCONFIRM : config.AUTH_SMS_AUTOCONFIRM,
        config.AUTH_BCRYPT_COST, redirectTo(req), body.code_challenge ?? null, body.code_challenge_method ?? null,
      ]);
      const created = rows[0]!;
      if (!created.confirmed) {
        res.json(created.user);
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
          if (!body.email && !body.phone) throw authErrors.emailOrPhoneRequired();
          const { rows } = await pool.query<SessionRow>('select * from auth.grant_password($1, case when $2::text is null then null else auth.valid_phone($2) end, $3, $4, $5)', [body.email ?? null, body.email ? null : (body.phone ?? null), body.password, userAgent(req), clientIp(req)]);
          return await respondSession(res, rows);
        }
        if (grant === 'refresh_token') {
          const body = parse(z.object({ refresh_token: z.string().min(1, 'Refresh token required').max(255) }), req.body);
          const { rows } = await pool.query<SessionRow>('select * from auth.grant_refresh($1, make_interval(secs => $2), $3)', [body.refresh_token, config.AUTH_REFRESH_GRACE_SECONDS, clientIp(req)]);
          if (rows.length === 0) throw authErrors.refreshTokenUsed();
          return await respondSession(res, rows);
        }
        if (grant === 'id_token') {
          const body = parse(z.object({ provider: z.string().min(1).max(64), id_token: z.string().min(1).max(16_384), nonce: z.string().max(1024).nullish(), access_token: z.string().max(16_384).nullish() }), req.body);
          const { provider, profile, claims } = await verifyIdToken(config, body.provider, body.id_token, body.nonce ?? null);
          const identity = { ...profile.raw, name: profile.name, full_name: profile.name, avatar_url: profile.avatar, picture: profile.avatar, iss: claims.iss };
          const { rows } = await pool.query<{ user_id: string }>('select auth.oauth_sign_in($1, $2, $3, $4, $5) as user_id', [provider, profile.id, JSON.stringify(identity), profile.email, profile.emailVerified]);
          const session = await pool.query<SessionRow>('select * from auth.issue_session($1, $2, $3, $4)', [rows[0]!.user_id, 'oauth', userAgent(req), clientIp(req)]);
          return await respondSession(res, session.rows);
        }
        if (grant === 'pkce') {
          const body = parse(z.object({ auth_code: z.string().min(1).max(255), code_verifier: z.string().min(43).max(128) }), req.body);
          const { rows } = await pool.query<SessionRow>('select * from auth.grant_pkce($1, $2, make_interval(secs => $3), $4, $5)', [body.auth_code, body.code_verifier, 300, userAgent(req), clientIp(req)]);
          return await respondSession(res, rows);
        }
        throw authErrors.unsupportedGrant(grant);
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
      if (!['global', 'local', 'others'].includes(scope)) throw authErrors.logoutScope(scope);
      if (user.sessionId) await pool.query('select auth.sign_out($1, $2)', [user.sessionId, scope]);
      res.status(204).end();
    }),
  );


  router.post(
    ['/otp', '/magiclink'],
    route(async (req, res) => {
      const body = parse(
        z.object({ email, phone, create_user: z.boolean().nullish(), data: z.record(z.string(), z.unknown()).nullish(), options: z.object({ data: z.record(z.string(), z.unknown()).nullish(), email_redirect_to: z.string().optional() }).optional(), ...pkceFields }),
        req.body,
      );
      if (!body.email && body.phone) {
        requireSms();
        await pool.query('select auth.request_phone_otp($1, $2, $3)', [body.phone, body.create_user ?? true, body.data ?? body.options?.data ?? {}]);
        res.json({ message_id: null }); // the same answer whether or not the number is known
        return;
      }
      if (!body.email) throw authErrors.emailOrPhoneRequired();
      const redirect = allowedRedirect(config, body.options?.email_redirect_to ?? req.query.redirect_to);
      await pool.query('select auth.request_email_otp($1, $2, $3, $4, $5, $6)', [
        body.email, body.create_user ?? true, body.data ?? body.options?.data ?? {}, redirect, body.code_challenge ?? null, body.code_challenge_method ?? null,
      ]);
      res.json({}); // the same answer whether or not the address is known
    }),
  );

  router.post(
    '/recover',
    route(async (req, res) => {
      const body = parse(z.object({ email: z.string().trim().min(1, 'Password recovery requires an email').max(255), ...pkceFields }), req.body);
      await pool.query('select auth.request_recovery($1, $2, $3, $4)', [body.email, redirectTo(req), body.code_challenge ?? null, body.code_challenge_method ?? null]);
      res.json({}); // always 200: no user enumeration
    }),
  );

  router.post(
    '/resend',
    route(async (req, res) => {
      const body = parse(z.object({ email, phone, type: z.enum(['signup', 'email_change', 'sms', 'phone_change']) }), req.body);
      const byPhone = body.type === 'sms' || body.type === 'phone_change';
      if (byPhone) requireSms();
      if (byPhone ? !body.phone : !body.email) throw authErrors.validation(byPhone ? 'A phone number is required' : 'An email address is required');
      await pool.query('select auth.resend($1, $2, $3, $4)', [body.type, body.email ?? null, body.phone ?? null, redirectTo(req)]);
      res.json({});
    }),
  );

  router.post(
    '/verify',
    route(async (req, res) => {
      const body = parse(
        z.object({ type: z.enum(VERIFY_TYPES), token: z.string().max(255).nullish(), token_hash: z.string().max(255).nullish(), email, phone }),
        req.body,
      );
      const phoneType = body.type === 'sms' || body.type === 'phone_change';
      if (phoneType) {
        requireSms();
        if (!body.phone || !body.token) throw authErrors.validation('Verify requires a token with a phone number');
      } else if (!body.token_hash && !(body.token && body.email)) {
        throw authErrors.validation('Verify requires either a token with an email or a token_hash');
      }
      const { rows } = await pool.query<SessionRow>(
        `select s.* from auth.verify_one_time_token($1, $2, case when $3::text is null then null else auth.valid_phone($3) end, $4, $5, $6::interval) v,
                lateral auth.issue_session(v.user_id, v.method, $7, $8) s`,
        [body.type, body.email ?? null, phoneType ? body.phone : null, body.token ?? null, body.token_hash ?? null, phoneType ? smsExpiry : otpExpiry, userAgent(req), clientIp(req)],
      );
      await respondSession(res, rows);
    }),
  );

  // The e-mailed link: verifies, then sends the browser to redirect_to with the
  // session in the fragment (implicit) or an auth code in the query (PKCE).
  router.get(
    '/verify',
    route(async (req, res) => {
      const type = String(req.query.type ?? '');
      const token = String(req.query.token ?? '');
      const target = redirectTo(req);
      try {
        if (!(VERIFY_TYPES as readonly string[]).includes(type) || !token) throw authErrors.validation('Verify requires a type and a token');
        const verified = await pool.query<{ user_id: string; method: string; pkce: boolean }>('select * from auth.verify_one_time_token($1, null, null, null, $2, $3::interval)', [type, token, otpExpiry]);
        const v = verified.rows[0]!;
        if (v.pkce) {
          const { rows } = await pool.query<{ code: string }>('select auth.issue_auth_code($1, $2) as code', [v.user_id, v.method]);
          const url = new URL(target);
          url.searchParams.set('code', rows[0]!.code);
          res.redirect(303, url.toString());
          return;
        }
        const { rows } = await pool.query<SessionRow>('select * from auth.issue_session($1, $2, $3, $4)', [v.user_id, v.method, userAgent(req), clientIp(req)]);
        res.redirect(303, await redirectWithSession(target, rows[0]!, config, keys, { type }));
      } catch (err) {
        const e = toApiError(err);
        if (e.status >= 500) throw err;
        const fragment = new URLSearchParams({ error: 'access_denied', error_code: e.code ?? e.kind, error_description: e.message });
        res.redirect(303, `${target.split('#')[0]}#${fragment.toString()}`);
      }
    }),
  );

  router.put(
    '/user',
    route(async (req, res) => {
      const user = currentUser(req);
      const body = parse(
        z.object({ email, phone, password: z.string().max(1000).nullish(), data: z.record(z.string(), z.unknown()).nullish(), nonce: z.string().nullish() }),
        req.body,
      );
      if (body.phone) requireSms();
      if (body.password != null) checkPassword(config, body.password);
      // A secure password change: the nonce from /reauthenticate when the session is old (GoTrue's rule, sql/0062).
      if (body.password != null && (config.AUTH_SECURE_PASSWORD_CHANGE || body.nonce)) {
        await pool.query('select auth.require_reauthentication($1, $2, $3, $4::interval)', [user.id, user.sessionId, body.nonce ?? null, otpExpiry]);
      }
      const { rows } = await pool.query<{ user: unknown }>('select auth.update_user($1, $2, $3, $4, $5, $6, $7, $8) as user', [
        user.id, user.sessionId, body.email ?? null, body.phone ?? null, body.password ?? null, body.data ?? null, config.AUTH_BCRYPT_COST, redirectTo(req),
      ]);
      res.json(rows[0]!.user);
    }),
  );

  // GET /reauthenticate: a nonce by e-mail (or SMS) for a secure password change (supabase-js reauthenticate(), as GoTrue routes it).
  const reauthenticate = route(async (req, res) => {
    const user = currentUser(req);
    await pool.query('select auth.request_reauthentication($1)', [user.id]);
    res.json({});
  });
  router.get('/reauthenticate', limits.email, reauthenticate);
  router.post('/reauthenticate', limits.email, reauthenticate);

  router.get('/health', (_req, res) => {
    res.json({ version: 'pgbase', name: 'GoTrue', description: 'pgbase identity service, GoTrue API compatible (2.184.0)' });
  });

  router.get('/settings', (_req, res) => {
    res.json({
      external: { anonymous_users: config.AUTH_ANONYMOUS_USERS, email: true, phone: !!config.AUTH_SMS_PROVIDER, ...Object.fromEntries(OAUTH_PROVIDERS.map((id) => [id, !!config.oauth[id]])) },
      disable_signup: config.AUTH_DISABLE_SIGNUP,
      mailer_autoconfirm: config.AUTH_AUTOCONFIRM,
      phone_autoconfirm: config.AUTH_SMS_AUTOCONFIRM,
      sms_provider: config.AUTH_SMS_PROVIDER ?? '',
      saml_enabled: false,
    });
  });

  // HS256 project tokens have no public key to publish: an empty set, as GoTrue serves for symmetric keys.
  router.get('/.well-known/jwks.json', (_req, res) => {
    res.json({ keys: [] });
  });

  // SAML SSO is not built: GoTrue's answer when it is off, not a bare 404.
  router.all(['/sso', '/sso/*rest', '/admin/sso/*rest'], (_req, _res, next) => next(authErrors.samlDisabled()));

  router.use(adminRoutes({ config, pool }));
  router.use(mfaRoutes({ config, keys, pool }));
  const external = oauthRoutes({ config, keys, pool });
  router.use(external.router);

  // Opened from e-mail, without the project key.
  const open: OpenRoute[] = [(req) => req.method === 'GET' && req.path === '/verify', ...external.open];
  return { router, open };
}
