// pgbase as an OAuth 2.1 and OpenID Connect provider (issue 49, item 4), in
// Supabase Auth's shapes: the metadata (RFC 8414 and OIDC discovery), the
// authorization endpoint (code with PKCE S256 only), which keeps the request
// and sends the browser to the consent page with its authorization_id; the
// consent API that page calls through auth-js (details, approve, deny); the
// token endpoint (the code, and refresh tokens rotated as every session's
// are); and userinfo. Tokens handed to a client are the user's own tokens
// with its client_id added, so row-level security applies to them unchanged.
// The moves themselves are SQL (sql/0114); this shapes HTTP around them.
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { ApiError, route, toApiError } from '../errors.ts';
import type { OpenRoute } from '../gateway.ts';
import type { AuthDeps } from './deps.ts';
import { parse } from './parse.ts';
import { clientIp, userAgent } from './request.ts';
import { currentUser, sessionBody, type SessionRow } from './session.ts';

/** The issuer: the identity service's own URL, as Supabase's is. */
export const issuerOf = (config: Config) => `${config.apiUrl}/auth/v1`;

/** Where the authorization endpoint sends the browser: the app's page, or pgbase's own. */
export const consentUrlOf = (config: Config) => config.AUTH_OAUTH_SERVER_CONSENT_URL ?? `${issuerOf(config)}/oauth/consent`;

/** RFC 8414 metadata, which also answers as the OpenID configuration. */
export function serverMetadata(config: Config, algorithms: string[]): Record<string, unknown> {
  const issuer = issuerOf(config);
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    ...(config.AUTH_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION ? { registration_endpoint: `${issuer}/oauth/register` } : {}),
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    scopes_supported: ['openid', 'email', 'profile', 'phone'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: algorithms,
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'email', 'email_verified', 'phone_number', 'phone_number_verified', 'name', 'picture'],
  };
}

/** The signing algorithms of the published keys (the legacy secret's HS256 when none is). */
export async function signingAlgorithms(jwks: () => Promise<{ keys: object[] }>): Promise<string[]> {
  const algs = new Set((await jwks()).keys.map((k) => (k as { alg?: string }).alg).filter((a): a is string => !!a));
  return algs.size > 0 ? [...algs] : ['HS256'];
}

/** Where the browser goes after a decision: the client's redirect with the code (or the error) and its state. */
function redirectUrl(r: { redirect_uri: string; code?: string; error?: string; error_description?: string; state?: string }): string {
  const url = new URL(r.redirect_uri);
  for (const key of ['code', 'error', 'error_description', 'state'] as const) if (r[key] !== undefined) url.searchParams.set(key, r[key]);
  return url.toString();
}

/** The user claims a scope lets a client read (OIDC's standard claims), from GoTrue's user body. */
function userClaims(user: SessionRow['user'], scope: string): Record<string, unknown> {
  const scopes = new Set(scope.split(' '));
  const meta = (user.user_metadata ?? {}) as Record<string, unknown>;
  const claims: Record<string, unknown> = { sub: user.id };
  if (scopes.has('email') && user.email) Object.assign(claims, { email: user.email, email_verified: !!user.email_confirmed_at });
  if (scopes.has('phone') && user.phone) Object.assign(claims, { phone_number: user.phone, phone_number_verified: !!user.phone_confirmed_at });
  if (scopes.has('profile')) {
    const name = meta.full_name ?? meta.name;
    const picture = meta.avatar_url ?? meta.picture;
    Object.assign(claims, { ...(typeof name === 'string' ? { name } : {}), ...(typeof picture === 'string' ? { picture } : {}), updated_at: user.updated_at });
  }
  return claims;
}

/** The token endpoint's errors, as OAuth clients parse them (RFC 6749 5.2): {error, error_description}. */
function oauthError(res: Response, err: unknown): void {
  const e = toApiError(err);
  if (e.status >= 500) throw err;
  const known = ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'access_denied'];
  const error = known.includes(e.code ?? '') ? e.code! : 'invalid_request';
  if (error === 'invalid_client') res.setHeader('WWW-Authenticate', 'Basic realm="oauth"');
  res.status(error === 'invalid_client' ? 401 : 400).setHeader('Cache-Control', 'no-store').json({ error, error_description: e.message });
}

/** The client's credentials: HTTP Basic (client_secret_basic) or the body (client_secret_post, or a public client's id). */
function clientCredentials(req: Request, body: { client_id?: string | null | undefined; client_secret?: string | null | undefined }): { id: string; secret: string | null } {
  const basic = /^basic (.+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!.trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new ApiError('unauthorized', 'Malformed Basic credentials', { status: 401, code: 'invalid_client' });
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  }
  if (!body.client_id) throw new ApiError('unauthorized', 'Client authentication required', { status: 401, code: 'invalid_client' });
  return { id: body.client_id, secret: body.client_secret ?? null };
}

const tokenRequest = z.object({
  grant_type: z.string().max(64).nullish(),
  code: z.string().max(255).nullish(),
  refresh_token: z.string().max(255).nullish(),
  redirect_uri: z.string().max(2048).nullish(),
  client_id: z.string().max(64).nullish(),
  client_secret: z.string().max(255).nullish(),
  code_verifier: z.string().max(128).nullish(),
  resource: z.string().max(2048).nullish(),
});

type GrantRow = SessionRow & { scope: string | null; nonce?: string | null; auth_time?: string | null };

/** The endpoints an OAuth client (or the user's browser) reaches without a project key, as Supabase opens them. */
const OPEN_PATHS = new Set(['/oauth/authorize', '/oauth/token', '/oauth/register', '/oauth/userinfo', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);

export function oauthServerRoutes({ config, keys, pool }: AuthDeps): { router: Router; open: OpenRoute } {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '20kb', parameterLimit: 20 });

  router.get(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], route(async (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=600');
    res.json(serverMetadata(config, await signingAlgorithms(keys.jwks)));
  }));

  // GET /oauth/authorize: opened by the user's browser, without a project key.
  router.get('/oauth/authorize', route(async (req, res) => {
    const q = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string).slice(0, 2048) : null);
    if (!q('client_id')) throw new ApiError('invalid_request', 'client_id is required', { status: 400, code: 'validation_failed' });
    if (!q('redirect_uri')) throw new ApiError('invalid_request', 'redirect_uri is required', { status: 400, code: 'validation_failed' });
    if ((q('response_type') ?? 'code') !== 'code') throw new ApiError('invalid_request', 'Only response_type=code is supported', { status: 400, code: 'validation_failed' });
    const { rows } = await pool.query<{ id: string }>('select auth.oauth_begin_authorization($1, $2, $3, $4, $5, $6, $7, $8) as id', [
      q('client_id'), q('redirect_uri'), q('scope'), q('state'), q('code_challenge'), q('code_challenge_method'), q('resource'), q('nonce'),
    ]);
    const target = new URL(consentUrlOf(config));
    target.searchParams.set('authorization_id', rows[0]!.id);
    res.redirect(302, target.toString());
  }));

  // The consent page's calls (auth-js's oauth.getAuthorizationDetails, approveAuthorization, denyAuthorization), as the signed-in user.
  router.get('/oauth/authorizations/:id', route(async (req, res) => {
    const user = currentUser(req);
    const { rows } = await pool.query<{ r: { details?: unknown; redirect?: Parameters<typeof redirectUrl>[0] } }>('select auth.oauth_authorization_details($1, $2) as r', [req.params.id, user.id]);
    const r = rows[0]!.r;
    res.json(r.redirect ? { redirect_url: redirectUrl(r.redirect) } : r.details);
  }));
  router.post('/oauth/authorizations/:id/consent', route(async (req, res) => {
    const user = currentUser(req);
    const { action } = parse(z.object({ action: z.enum(['approve', 'deny'], { message: "action must be 'approve' or 'deny'" }) }), req.body);
    const { rows } = await pool.query<{ r: Parameters<typeof redirectUrl>[0] }>('select auth.oauth_settle_authorization($1, $2, $3) as r', [req.params.id, user.id, action === 'approve']);
    res.json({ redirect_url: redirectUrl(rows[0]!.r) });
  }));

  // POST /oauth/token: form-encoded (or JSON), the client authenticated first, then its grant.
  router.post('/oauth/token', form, async (req, res, next) => {
    try {
      const body = parse(tokenRequest, req.body ?? {});
      const credentials = clientCredentials(req, body);
      const { rows: [client] } = await pool.query<{ id: string }>('select auth.oauth_authenticate_client($1, $2) as id', [credentials.id, credentials.secret]);
      let row: GrantRow | undefined;
      if (body.grant_type === 'authorization_code') {
        if (!body.code) throw new ApiError('invalid_request', 'code is required for authorization_code grant', { status: 400, code: 'invalid_request' });
        ({ rows: [row] } = await pool.query<GrantRow>('select * from auth.oauth_grant_code($1, $2, $3, $4, $5, $6, $7)', [
          client!.id, body.code, body.code_verifier ?? null, body.redirect_uri ?? null, body.resource ?? null, userAgent(req), clientIp(req)]));
      } else if (body.grant_type === 'refresh_token') {
        if (!body.refresh_token) throw new ApiError('invalid_request', 'refresh_token is required', { status: 400, code: 'invalid_request' });
        ({ rows: [row] } = await pool.query<GrantRow>('select * from auth.oauth_grant_refresh($1, $2, make_interval(secs => $3), $4)', [
          client!.id, body.refresh_token, config.AUTH_REFRESH_GRACE_SECONDS, clientIp(req)]));
        // No row: the token was used again after its grace (sql/0006), and its session has ended.
        if (!row) throw new ApiError('invalid_request', 'Invalid Refresh Token: Already Used', { status: 400, code: 'invalid_grant' });
      } else {
        throw new ApiError('invalid_request', body.grant_type ? `Unsupported grant type: ${body.grant_type}` : 'grant_type is required', { status: 400, code: body.grant_type ? 'unsupported_grant_type' : 'invalid_request' });
      }
      const scope = row!.scope ?? 'email';
      const session = await sessionBody({ ...row!, client_id: client!.id }, config, keys);
      const idToken = scope.split(' ').includes('openid') && body.grant_type === 'authorization_code'
        ? await keys.sign({ iss: issuerOf(config), aud: client!.id, auth_time: Number(row!.auth_time), ...(row!.nonce ? { nonce: row!.nonce } : {}), ...userClaims(row!.user, scope) }, config.JWT_EXPIRY)
        : undefined;
      res.setHeader('Cache-Control', 'no-store');
      res.json({ ...session, scope, ...(idToken ? { id_token: idToken } : {}) });
    } catch (err) {
      try {
        oauthError(res, err);
      } catch (unexpected) {
        next(unexpected);
      }
    }
  });

  // GET|POST /oauth/userinfo: the claims the token's scopes allow; the bearer alone, as OIDC clients send it.
  router.all('/oauth/userinfo', route(async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'POST') throw new ApiError('invalid_request', 'Use GET or POST', { status: 405, code: 'method_not_allowed' });
    const bearer = /^bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    const verdict = bearer ? await keys.verify(bearer) : undefined;
    const claims = verdict?.ok ? verdict.claims : undefined;
    if (!claims || claims.role !== 'authenticated' || typeof claims.sub !== 'string') {
      res.setHeader('WWW-Authenticate', `Bearer error="invalid_token"`);
      res.status(401).json({ error: 'invalid_token', error_description: 'A valid access token is required' });
      return;
    }
    // A session that has ended (signed out, the grant revoked) or a user gone: the token no longer speaks for anyone.
    const found = await pool.query<{ user: SessionRow['user']; scope: string | null }>(
      'select auth.session_user($1, $2) as user, (select scope from auth.oauth_session($2)) as scope', [claims.sub, typeof claims.session_id === 'string' ? claims.session_id : null],
    ).then((r) => r.rows[0]!, (err: unknown) => {
      if (toApiError(err).status === 403) return undefined;
      throw err;
    });
    if (!found) {
      res.setHeader('WWW-Authenticate', `Bearer error="invalid_token"`);
      res.status(401).json({ error: 'invalid_token', error_description: 'The session of this token has ended' });
      return;
    }
    res.json(userClaims(found.user, found.scope ?? 'openid email profile phone'));
  }));
  return { router, open: (req) => OPEN_PATHS.has(req.path) };
}
