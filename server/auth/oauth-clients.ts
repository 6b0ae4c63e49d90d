// The OAuth server's clients (issue 49, item 4): GoTrue's admin API for them
// (/admin/oauth/clients, as auth-js's admin.oauth calls it), dynamic
// registration (POST /oauth/register, RFC 7591, on by setting) and a user's
// own grants (/user/oauth/grants). What a client may be is checked twice:
// its URLs here (a parser's view of them), its fields and moves in SQL
// (sql/0114).
import express, { type Router } from 'express';
import { z } from 'zod';
import { apiError, route } from '../errors.ts';
import { requireAdmin } from './admin.ts';
import type { AuthDeps } from './deps.ts';
import { parse } from './parse.ts';
import { currentUser } from './session.ts';

/** Schemes a redirect may never use: they run or read in the browser itself. */
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'ftp:', 'ws:', 'wss:']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A redirect URI a client may register (RFC 8252 and OAuth 2.1): https, http
 * only to the machine itself (native and CLI clients), or an app's own
 * scheme; never a fragment, never a scheme that runs in the browser.
 */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash || value.includes('#')) return 'must not have a fragment';
  if (REFUSED_SCHEMES.has(url.protocol)) return `may not use ${url.protocol}`;
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) return 'may use http: only for localhost (use https)';
  return null;
}

const webUrl = z.string().max(2048).refine((v) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

const redirectUris = z.array(z.string().max(2048).superRefine((v, ctx) => {
  const problem = redirectUriProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: `redirect_uri ${problem}` });
})).min(1, 'redirect_uris is required').max(20);

const authMethod = z.enum(['none', 'client_secret_basic', 'client_secret_post']);
const grantTypes = z.array(z.string().max(64)).max(4);

/** What a client registers with (RFC 7591's fields GoTrue takes; others are ignored, as the RFC allows). */
export const ClientRegistration = z.object({
  client_name: z.string().max(256).nullish(),
  client_uri: webUrl.nullish(),
  logo_uri: webUrl.nullish(),
  redirect_uris: redirectUris,
  grant_types: grantTypes.nullish(),
  response_types: z.array(z.literal('code')).max(1).nullish(),
  token_endpoint_auth_method: authMethod.nullish(),
  scope: z.string().max(1024).nullish(),
});

const update = z.object({
  client_name: z.string().max(256).nullish(),
  client_uri: webUrl.nullish(),
  logo_uri: webUrl.nullish(),
  redirect_uris: redirectUris.nullish(),
  grant_types: grantTypes.nullish(),
  token_endpoint_auth_method: authMethod.nullish(),
});

const clientId = (value: unknown): string => {
  if (typeof value !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw apiError(400, 'validation_failed', 'invalid client_id format');
  return value;
};

/** The registration fields SQL reads, nulls dropped (a missing grant_types takes the default). */
export function registrationFields(body: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null && v !== undefined)));
}

export function oauthClientRoutes({ config, pool }: AuthDeps, registerLimit: express.RequestHandler): Router {
  const router = express.Router();
  const register = async (body: unknown, type: 'manual' | 'dynamic') => {
    const { rows } = await pool.query<{ client: unknown }>('select auth.oauth_register_client($1, $2) as client', [registrationFields(parse(ClientRegistration, body)), type]);
    return rows[0]!.client;
  };

  router.post('/oauth/register', registerLimit, route(async (req, res) => {
    if (!config.AUTH_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION) throw apiError(403, 'oauth_dynamic_client_registration_disabled', 'Dynamic client registration is not enabled');
    res.status(201).json(await register(req.body, 'dynamic'));
  }));

  router.get('/admin/oauth/clients', route(async (req, res) => {
    requireAdmin(req);
    const { rows } = await pool.query<{ clients: unknown }>('select auth.oauth_client_list() as clients');
    const clients = rows[0]!.clients as unknown[];
    res.setHeader('X-Total-Count', String(clients.length));
    res.json({ clients, aud: 'authenticated' });
  }));
  router.post('/admin/oauth/clients', route(async (req, res) => {
    requireAdmin(req);
    res.status(201).json(await register(req.body, 'manual'));
  }));
  router.get('/admin/oauth/clients/:id', route(async (req, res) => {
    requireAdmin(req);
    const { rows } = await pool.query<{ client: unknown }>('select auth.oauth_client_get($1) as client', [clientId(req.params.id)]);
    res.json(rows[0]!.client);
  }));
  router.put('/admin/oauth/clients/:id', route(async (req, res) => {
    requireAdmin(req);
    const id = clientId(req.params.id);
    const body = registrationFields(parse(update, req.body));
    if (body === '{}') throw apiError(400, 'validation_failed', 'No fields provided for update');
    const { rows } = await pool.query<{ client: unknown }>('select auth.oauth_update_client($1, $2) as client', [id, body]);
    res.json(rows[0]!.client);
  }));
  router.delete('/admin/oauth/clients/:id', route(async (req, res) => {
    requireAdmin(req);
    await pool.query('select auth.oauth_delete_client($1)', [clientId(req.params.id)]);
    res.status(204).end();
  }));
  router.post('/admin/oauth/clients/:id/regenerate_secret', route(async (req, res) => {
    requireAdmin(req);
    const { rows } = await pool.query<{ client: unknown }>('select auth.oauth_regenerate_client_secret($1) as client', [clientId(req.params.id)]);
    res.json(rows[0]!.client);
  }));

  router.get('/user/oauth/grants', route(async (req, res) => {
    const { rows } = await pool.query<{ grants: unknown }>('select auth.oauth_user_grants($1) as grants', [currentUser(req).id]);
    res.json(rows[0]!.grants);
  }));
  router.delete('/user/oauth/grants', route(async (req, res) => {
    const user = currentUser(req);
    await pool.query('select auth.oauth_revoke_grant($1, $2)', [user.id, clientId(req.query.client_id)]);
    res.status(204).end();
  }));
  return router;
}
