// /auth/v1: GoTrue's paths and bodies, so supabase-js auth works unchanged.
// This file mounts the surface: body parsing, the API version header, rate
// limits and captcha before any handler, then one router per concept
// (sign-up, token grants, one-time tokens, the user's own routes, admin, MFA,
// OAuth). Each handler validates its input, makes one SQL call (the
// behaviour is in sql/, 0006 onwards) and shapes the answer; errors go to
// the one mapper.
import express, { type Router } from 'express';
import { jsonBody } from '../json-body.ts';
import { OAUTH_PROVIDERS } from '../config.ts';
import type { AuthDeps } from './deps.ts';
import { AUTH_API_VERSION, authErrors } from './errors.ts';
import type { OpenRoute } from '../gateway.ts';
import { adminRoutes } from './admin.ts';
import { mfaRoutes } from './mfa.ts';
import { oauthRoutes } from './oauth.ts';
import { oauthClientRoutes } from './oauth-clients.ts';
import { oauthServerRoutes } from './oauth-server.ts';
import { passkeyRoutes } from './passkeys.ts';
import { oneTimeRoutes } from './one-time.ts';
import { signUpRoutes } from './sign-up.ts';
import { tokenRoutes } from './token.ts';
import { userRoutes } from './user.ts';
import { captchaCheck } from './captcha.ts';
import { rateLimit } from './rate-limit.ts';


export function authRoutes(deps: AuthDeps): { router: Router; open: OpenRoute[] } {
  const { config, keys, pool } = deps;
  const router = express.Router();
  router.use(jsonBody({ limit: '100kb' }));
  router.use((req, res, next) => {
    const asked = req.headers['x-supabase-api-version'];
    if (typeof asked === 'string' && asked >= AUTH_API_VERSION) res.setHeader('X-Supabase-Api-Version', AUTH_API_VERSION);
    next();
  });

  const limits = {
    signIn: rateLimit('sign_in', config.AUTH_RATE_LIMIT_SIGN_IN, 'over_request_rate_limit'),
    signUp: rateLimit('sign_up', config.AUTH_RATE_LIMIT_SIGN_UP, 'over_request_rate_limit'),
    anonymous: rateLimit('anonymous_users', config.AUTH_RATE_LIMIT_ANONYMOUS_USERS, 'over_request_rate_limit'),
    refresh: rateLimit('token_refresh', config.AUTH_RATE_LIMIT_TOKEN_REFRESH, 'over_request_rate_limit'),
    verify: rateLimit('verify', config.AUTH_RATE_LIMIT_VERIFY, 'over_request_rate_limit'),
    email: rateLimit('email', config.AUTH_RATE_LIMIT_EMAIL, 'over_email_send_rate_limit'),
  };
  // An anonymous sign-in (neither e-mail nor phone: signInAnonymously) has its own limit, as GoTrue's RATE_LIMIT_ANONYMOUS_USERS.
  router.post('/signup', (req, res, next) => {
    const body = req.body as { email?: unknown; phone?: unknown } | undefined;
    (body?.email || body?.phone ? limits.signUp : limits.anonymous)(req, res, next);
  });
  router.post('/token', (req, res, next) => (req.query.grant_type === 'refresh_token' ? limits.refresh : limits.signIn)(req, res, next));
  router.use('/verify', limits.verify);
  router.post(['/otp', '/magiclink', '/recover', '/resend'], limits.email);
  router.get('/reauthenticate', limits.email);
  router.post('/reauthenticate', limits.email);
  // After the rate limits, so a flood never reaches the captcha verifier.
  const captcha = captchaCheck(config);
  router.post(['/signup', '/otp', '/magiclink', '/recover', '/resend'], captcha);
  router.post('/token', (req, res, next) => (req.query.grant_type === 'password' ? captcha(req, res, next) : next()));

  router.use(signUpRoutes(deps));
  router.use(tokenRoutes(deps));
  router.use(oneTimeRoutes(deps));
  router.use(userRoutes(deps));

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

  // The asymmetric keys' public halves (sql/0111; the legacy HS256 secret is never published), cached
  // briefly as Supabase's is: a key is published on standby before it signs, so a client's cache knows it.
  router.get('/.well-known/jwks.json', (_req, res, next) => {
    keys.jwks().then((set) => {
      res.setHeader('Cache-Control', 'public, max-age=600');
      res.json(set);
    }, next);
  });

  // SAML SSO is not built: GoTrue's answer when it is off, not a bare 404.
  router.all(['/sso', '/sso/*rest', '/admin/sso/*rest'], (_req, _res, next) => next(authErrors.samlDisabled()));

  // Opened from e-mail, without the project key.
  // The JWKS is public, as Supabase's is: a service verifying tokens holds no project key.
  const open: OpenRoute[] = [(req) => req.method === 'GET' && (req.path === '/verify' || req.path === '/.well-known/jwks.json')];

  // pgbase as an OAuth 2.1 provider (sql/0114): before the admin routes, whose /admin prefix would answer its clients' paths.
  if (config.AUTH_OAUTH_SERVER_ENABLED) {
    const provider = oauthServerRoutes(deps);
    router.use(provider.router);
    open.push(provider.open);
    router.use(oauthClientRoutes(deps, limits.signUp));
  }
  router.use(passkeyRoutes(deps, { signIn: limits.signIn, captcha }));
  router.use(adminRoutes({ config, pool }));
  router.use(mfaRoutes({ config, keys, pool }));
  const external = oauthRoutes({ config, keys, pool });
  router.use(external.router);
  open.push(...external.open);
  return { router, open };
}
