// GET /authorize and GET /callback: sign-in with a third-party provider.
// The state sent to the provider is a short-lived encrypted JWT (JWE, key
// derived from JWT_SECRET) carrying the provider, redirect target, nonce, the
// app's PKCE flow and, for providers that require PKCE themselves, our code
// verifier: neither the browser nor the provider can read or forge it. OIDC ID tokens have issuer, audience,
// expiry and nonce checked (oauth4webapi). Which user the identity belongs to
// is decided in SQL (auth.oauth_sign_in).
import { createHmac, randomBytes } from 'node:crypto';
import express, { type Response, type Router } from 'express';
import { EncryptJWT, jwtDecrypt } from 'jose';
import * as oauth from 'oauth4webapi';
import { OAUTH_PROVIDERS, type OAuthProviderId } from '../config.ts';
import { ApiError, route, toApiError } from '../errors.ts';
import { authErrors } from './errors.ts';
import type { OpenRoute } from '../gateway.ts';
import { mapProfile, resolveProvider, type Profile, type ProviderSpec } from './providers.ts';
import { allowedRedirect } from './redirect.ts';
import { currentUser, issueSession, redirectWithSession } from './session.ts';
import type { AuthDeps } from './deps.ts';

/** link_user: a signed-in user linking this identity to themselves (manual linking), not a sign-in. */
type State = { provider: OAuthProviderId; redirect_to: string; nonce: string; flow_id: string | null; verifier: string | null; link_user?: string | null };
const STATE_AUDIENCE = 'pgbase-oauth-state';

export function oauthRoutes({ config, keys, pool }: AuthDeps): { router: Router; open: OpenRoute[] } {
  const router = express.Router();
  const stateKey = createHmac('sha256', keys.jwtSecret).update('pgbase:oauth-state').digest();
  const callbackUrl = `${config.apiUrl}/auth/v1/callback`;

  const provider = (id: unknown): { id: OAuthProviderId; spec: ProviderSpec; clientId: string; secret: string } => {
    if (typeof id !== 'string' || !(OAUTH_PROVIDERS as readonly string[]).includes(id)) {
      throw authErrors.providerNotSupported();
    }
    const c = config.oauth[id as OAuthProviderId];
    if (!c) throw authErrors.providerNotEnabled();
    return { id: id as OAuthProviderId, spec: resolveProvider(id as OAuthProviderId, c), clientId: c.clientId, secret: c.secret };
  };

  /** The provider's authorize URL for a sign-in, or (linkUser) for a signed-in user linking the identity. */
  const authorizeUrl = async (req: express.Request, linkUser: string | null): Promise<string> => {
      const p = provider(req.query.provider);
      const redirectTo = allowedRedirect(config, req.query.redirect_to);
      const challenge = typeof req.query.code_challenge === 'string' && req.query.code_challenge ? req.query.code_challenge : null;
      let flowId: string | null = null;
      if (challenge && !linkUser) {
        const method = typeof req.query.code_challenge_method === 'string' ? req.query.code_challenge_method : 's256';
        flowId = (await pool.query<{ id: string }>('select auth.start_oauth_flow($1, $2, $3) as id', [p.id, challenge, method])).rows[0]!.id;
      }
      const verifier = p.spec.pkce ? oauth.generateRandomCodeVerifier() : null;
      const state: State = { provider: p.id, redirect_to: redirectTo, nonce: randomBytes(16).toString('base64url'), flow_id: flowId, verifier, link_user: linkUser };
      const sealed = await new EncryptJWT(state).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).setAudience(STATE_AUDIENCE).setIssuedAt().setExpirationTime('10m').encrypt(stateKey);
      const url = new URL(p.spec.authorize);
      const scopes = new Set([...p.spec.scopes.split(/\s+/), ...String(req.query.scopes ?? '').split(/\s+/)].filter(Boolean));
      if (p.spec.kind === 'oidc') scopes.add('openid');
      url.searchParams.set('client_id', p.clientId);
      url.searchParams.set('redirect_uri', callbackUrl);
      url.searchParams.set('response_type', 'code');
      if (scopes.size > 0) url.searchParams.set('scope', [...scopes].join(' '));
      url.searchParams.set('state', sealed);
      if (p.spec.kind === 'oidc') url.searchParams.set('nonce', state.nonce);
      if (verifier) {
        url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
        url.searchParams.set('code_challenge_method', 'S256');
      }
      // Apple posts the answer back when it shares the user's name or e-mail.
      if (p.id === 'apple') url.searchParams.set('response_mode', 'form_post');
      return url.toString();
  };

  router.get('/authorize', route(async (req, res) => res.redirect(302, await authorizeUrl(req, null))));

  // Manual identity linking (GoTrue's GOTRUE_SECURITY_MANUAL_LINKING_ENABLED): a signed-in user adds a provider's identity.
  router.get('/user/identities/authorize', route(async (req, res) => {
    if (!config.AUTH_MANUAL_LINKING) throw authErrors.manualLinkingDisabled();
    const url = await authorizeUrl(req, currentUser(req).id);
    if (req.query.skip_http_redirect === 'true') return void res.json({ url });
    res.redirect(302, url);
  }));
  router.delete('/user/identities/:id', route(async (req, res) => {
    if (!config.AUTH_MANUAL_LINKING) throw authErrors.manualLinkingDisabled();
    await pool.query('select auth.unlink_identity($1, $2)', [currentUser(req).id, String(req.params.id)]);
    res.json({});
  }));

  // Errors end at the app, not here: in the fragment (implicit) or the query (PKCE).
  const fail = (res: Response, target: string, pkce: boolean, err: unknown) => {
    const e = toApiError(err);
    const params = new URLSearchParams({ error: e.status >= 500 ? 'server_error' : 'access_denied', error_code: e.code ?? e.kind, error_description: e.message });
    const url = new URL(target);
    if (pkce) {
      params.forEach((v, k) => url.searchParams.set(k, v));
      res.redirect(302, url.toString());
    } else res.redirect(302, `${target.split('#')[0]}#${params.toString()}`);
  };

  const callback = route(async (req, res) => {
      // GET for most providers; POST (form_post) for Apple.
      const params: Record<string, unknown> = req.method === 'POST' ? { ...(req.body as Record<string, unknown>) } : { ...req.query };
      let state: State;
      try {
        const { payload } = await jwtDecrypt(String(params.state ?? ''), stateKey, { audience: STATE_AUDIENCE, keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
        state = payload as unknown as State;
      } catch {
        return fail(res, config.SITE_URL, false, authErrors.badOAuthState());
      }
      const pkce = state.flow_id !== null;
      try {
        if (typeof params.error === 'string') {
          throw authErrors.providerDenied(String(params.error_description ?? params.error));
        }
        const p = provider(state.provider);
        const { profile, providerToken } = await exchange(p, params, state);
        if (!profile) throw authErrors.noProviderUser();
        const identity = { ...profile.raw, name: profile.name, full_name: profile.name, avatar_url: profile.avatar, picture: profile.avatar, iss: p.spec.issuer ?? p.spec.authorize };
        const { rows } = state.link_user
          ? await pool.query<{ user_id: string }>('select auth.link_identity($1, $2, $3, $4) as user_id', [state.link_user, p.id, profile.id, JSON.stringify({ ...identity, email: profile.email, email_verified: profile.emailVerified })])
          : await pool.query<{ user_id: string }>('select auth.oauth_sign_in($1, $2, $3, $4, $5) as user_id', [
            p.id, profile.id, JSON.stringify(identity), profile.email, profile.emailVerified,
          ]);
        const userId = rows[0]!.user_id;
        if (pkce) {
          const code = (await pool.query<{ code: string }>('select auth.finish_oauth_flow($1, $2, $3) as code', [state.flow_id, userId, providerToken])).rows[0]!.code;
          const url = new URL(state.redirect_to);
          url.searchParams.set('code', code);
          res.redirect(302, url.toString());
          return;
        }
        const session = await issueSession(pool, req, userId, 'oauth');
        res.redirect(302, await redirectWithSession(state.redirect_to, session, config, keys, { provider_token: providerToken }));
      } catch (err) {
        if (!(err instanceof ApiError)) req.log?.warn({ error: (err as Error).message, provider: state.provider }, 'oauth callback failed');
        fail(res, state.redirect_to, pkce, err instanceof ApiError || toApiError(err).status < 500 ? err : authErrors.oauthFailed());
      }
    });
  router.get('/callback', callback);
  router.post('/callback', express.urlencoded({ extended: false, limit: '64kb' }), callback);

  async function exchange(p: ReturnType<typeof provider>, query: Record<string, unknown>, state: State): Promise<{ profile: Profile | null; providerToken: string }> {
    const insecure = (url: string | undefined) => !!url && url.startsWith('http:');
    const as: oauth.AuthorizationServer = {
      issuer: p.spec.issuer || new URL(p.spec.authorize).origin,
      authorization_endpoint: p.spec.authorize,
      token_endpoint: p.spec.token,
      ...(p.spec.userinfo ? { userinfo_endpoint: p.spec.userinfo } : {}),
    };
    const client: oauth.Client = { client_id: p.clientId };
    const auth = p.spec.clientAuth === 'basic' ? oauth.ClientSecretBasic(p.secret) : oauth.ClientSecretPost(p.secret);
    const params = new URLSearchParams();
    for (const key of ['code', 'state', 'iss']) if (typeof query[key] === 'string') params.set(key, query[key] as string);
    const options = { [oauth.allowInsecureRequests]: insecure(p.spec.token) || insecure(p.spec.userinfo) };
    const callbackParams = oauth.validateAuthResponse(as, client, params, oauth.skipStateCheck); // the state was verified above
    const response = await oauth.authorizationCodeGrantRequest(as, client, auth, callbackParams, callbackUrl, state.verifier ?? oauth.nopkce, options);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, p.spec.kind === 'oidc' ? { expectedNonce: state.nonce, requireIdToken: true } : {});
    let claims: Record<string, unknown> = {};
    if (p.spec.kind === 'oidc') claims = { ...(oauth.getValidatedIdTokenClaims(tokens) as Record<string, unknown>) };
    if (p.spec.userinfo) {
      const info = await fetch(p.spec.userinfo, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
      if (info.ok) {
        const body = (await info.json()) as Record<string, unknown>;
        // An OIDC userinfo answer about another subject is ignored.
        if (p.spec.kind !== 'oidc' || body.sub === claims.sub) claims = { ...body, ...claims };
      } else if (p.spec.kind !== 'oidc') {
        throw new Error(`userinfo answered ${info.status}`);
      }
    }
    const profile = mapProfile(claims);
    if (profile && p.id === 'github' && p.spec.userinfo) {
      // GitHub says whether an address is verified only in /user/emails.
      const emails = await fetch(`${p.spec.userinfo}/emails`, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
      const list = emails.ok ? ((await emails.json()) as Array<{ email: string; primary: boolean; verified: boolean }>) : [];
      const primary = list.find((e) => e.primary && e.verified);
      profile.email = primary ? primary.email.toLowerCase() : profile.email;
      profile.emailVerified = !!primary;
    }
    return { profile, providerToken: tokens.access_token };
  }

  // Browsers arrive here from redirects, without the project key.
  const open: OpenRoute[] = [(req) => (req.method === 'GET' && req.path === '/authorize') || ((req.method === 'GET' || req.method === 'POST') && req.path === '/callback')];
  return { router, open };
}
