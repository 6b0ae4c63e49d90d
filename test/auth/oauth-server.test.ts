// pgbase as an OAuth 2.1 / OpenID Connect provider (issue 49, item 4; sql/0114),
// driven as its users drive it: a client registers itself (RFC 7591) with no
// project key, sends the browser to /oauth/authorize with a PKCE challenge,
// the consent page approves through auth-js (oauth.getAuthorizationDetails and
// approveAuthorization, as the signed-in user), and the client exchanges the
// code for the user's tokens: they carry its client_id, pass row-level
// security as the user, come with an id_token verified through the JWKS,
// refresh with rotation, and end when the user revokes the grant. The
// operator's side goes through auth-js's admin.oauth, unchanged.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { freePort } from '../helpers/cluster.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const b64url = (b: Buffer) => b.toString('base64url');

describe('the OAuth 2.1 server', () => {
  let p: TestPlatform;
  let user: SupabaseClient;
  let userId: string;
  const issuer = () => `${p.url}/auth/v1`;
  const service = () => createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false, autoRefreshToken: false } });

  before(async () => {
    // A known port, so the issuer the server names is the one the client reaches.
    const port = await freePort();
    p = await startTestPlatform({ WORKER: 'off', JWT_SIGNING_ALGORITHM: 'ES256', PORT: String(port), API_EXTERNAL_URL: `http://localhost:${port}` });
    await p.adminPool.query(`create table public.notes (id serial primary key, owner uuid default auth.uid(), body text);
      alter table public.notes enable row level security;
      create policy mine on public.notes using (owner = auth.uid());
      grant select, insert on public.notes to authenticated; grant usage on sequence public.notes_id_seq to authenticated;
      notify pgrst, 'reload schema';`);
    user = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    const { data, error } = await user.auth.signUp({ email: 'oauth-user@example.com', password: 'a-good-password', options: { data: { full_name: 'Ada Oauth' } } });
    assert.equal(error, null);
    userId = data.user!.id;
    await user.from('notes').insert({ body: 'my note' });
    await p.adminPool.query(`insert into public.notes (owner, body) values (gen_random_uuid(), 'someone else''s')`);
  });
  after(() => stopTestPlatform(p));

  const register = async (body: Record<string, unknown>) => fetch(`${issuer()}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  /** /oauth/authorize as a browser opens it: the answer is a redirect to the consent page with the authorization_id. */
  async function authorize(clientId: string, scope: string, state = 'the-state') {
    const verifier = b64url(randomBytes(32));
    const challenge = b64url(createHash('sha256').update(verifier).digest());
    const url = new URL(`${issuer()}/oauth/authorize`);
    for (const [k, v] of Object.entries({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope, state, code_challenge: challenge, code_challenge_method: 'S256', nonce: 'n-0S6' })) url.searchParams.set(k, v);
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const consent = new URL(res.headers.get('location')!);
    assert.equal(`${consent.origin}${consent.pathname}`, `${issuer()}/oauth/consent`);
    return { authorizationId: consent.searchParams.get('authorization_id')!, verifier };
  }

  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${issuer()}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form) });

  it('publishes its metadata at the RFC 8414 and OpenID paths, without a key', async () => {
    for (const path of ['/.well-known/oauth-authorization-server/auth/v1', '/.well-known/openid-configuration/auth/v1', '/auth/v1/.well-known/openid-configuration', '/auth/v1/.well-known/oauth-authorization-server']) {
      const res = await fetch(`${p.url}${path}`);
      assert.equal(res.status, 200, path);
      const meta = await res.json() as Record<string, unknown>;
      assert.equal(meta.issuer, issuer());
      assert.equal(meta.token_endpoint, `${issuer()}/oauth/token`);
      assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
      assert.equal(meta.registration_endpoint, `${issuer()}/oauth/register`);
      assert.deepEqual(meta.id_token_signing_alg_values_supported, ['ES256']);
    }
  });

  it('refuses redirect URIs that would leak a code, and unknown grants', async () => {
    for (const [uri, why] of [['http://evil.example/cb', /only for localhost/], ['javascript:alert(1)', /javascript:/], ['https://app.example/cb#frag', /fragment/], ['not a url', /absolute URL/]] as const) {
      const res = await register({ client_name: 'x', redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      assert.equal(res.status, 400, uri);
      const body = await res.json() as { msg: string; error_code: string };
      assert.equal(body.error_code, 'validation_failed');
      assert.match(body.msg, why);
    }
    assert.equal((await register({ redirect_uris: ['https://app.example/cb'], grant_types: ['implicit'] })).status, 400);
  });

  it('a dynamically registered public client signs the user in with PKCE; the tokens are the user\'s, with its client_id', async () => {
    const res = await register({ client_name: 'Notes CLI', client_uri: 'https://notes.example', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    assert.equal(res.status, 201);
    const client = await res.json() as Record<string, unknown>;
    assert.equal(client.client_type, 'public');
    assert.equal(client.registration_type, 'dynamic');
    assert.equal(client.client_secret, undefined);
    const clientId = String(client.client_id);

    const { authorizationId, verifier } = await authorize(clientId, 'openid email profile');
    // The consent page, as its signed-in user, through auth-js.
    await user.auth.signInWithPassword({ email: 'oauth-user@example.com', password: 'a-good-password' });
    const details = await user.auth.oauth.getAuthorizationDetails(authorizationId);
    assert.equal(details.error, null);
    assert.deepEqual(details.data, {
      authorization_id: authorizationId, redirect_uri: REDIRECT, scope: 'email openid profile',
      client: { id: clientId, name: 'Notes CLI', uri: 'https://notes.example', logo_uri: '' }, user: { id: userId, email: 'oauth-user@example.com' },
    });
    const approved = await user.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true });
    assert.equal(approved.error, null);
    const back = new URL(approved.data!.redirect_url);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'the-state');
    const code = back.searchParams.get('code')!;

    // A wrong verifier is refused in OAuth's words; the right one gets the tokens once.
    const wrong = await token({ grant_type: 'authorization_code', code, code_verifier: b64url(randomBytes(32)), client_id: clientId, redirect_uri: REDIRECT });
    assert.equal(wrong.status, 400);
    assert.equal((await wrong.json() as { error: string }).error, 'invalid_grant');
    const ok = await token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('cache-control'), 'no-store');
    const tokens = await ok.json() as { access_token: string; refresh_token: string; id_token: string; scope: string; token_type: string };
    assert.equal(tokens.scope, 'email openid profile');
    const replay = await token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId });
    assert.deepEqual(await replay.json(), { error: 'invalid_grant', error_description: 'Invalid authorization code' });

    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims.client_id, clientId);
    assert.equal(claims.sub, userId);
    assert.equal(claims.role, 'authenticated');
    // Row-level security applies to the client's token as to the user's own.
    const asClient = createClient(p.url, p.keys.anonKey, { global: { headers: { Authorization: `Bearer ${tokens.access_token}` } }, auth: { persistSession: false } });
    assert.deepEqual((await asClient.from('notes').select('body')).data, [{ body: 'my note' }]);

    // The id_token: for this client, verified through the published keys, with the nonce and the scopes' claims.
    const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${issuer()}/.well-known/jwks.json`)), { issuer: issuer(), audience: clientId });
    assert.equal(payload.sub, userId);
    assert.equal(payload.nonce, 'n-0S6');
    assert.equal(payload.email, 'oauth-user@example.com');
    assert.equal(payload.name, 'Ada Oauth');

    const info = await fetch(`${issuer()}/oauth/userinfo`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(info.status, 200);
    assert.deepEqual(Object.keys(await info.json() as object).sort(), ['email', 'email_verified', 'name', 'sub', 'updated_at']);

    // Refresh rotates; another client cannot use the refresh token.
    const other = await (await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })).json() as { client_id: string };
    const stolen = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: other.client_id });
    assert.deepEqual(await stolen.json(), { error: 'invalid_grant', error_description: 'Invalid refresh token' });
    const refreshed = await (await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId })).json() as { access_token: string; refresh_token: string };
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.equal(decodeJwt(refreshed.access_token).client_id, clientId);
    // Refreshed at /token (as supabase-js would) instead, the token keeps its client_id: a policy on it cannot be stepped around.
    const viaToken = await fetch(`${issuer()}/token?grant_type=refresh_token`, { method: 'POST', headers: { apikey: p.keys.anonKey, 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: refreshed.refresh_token }) });
    const rotated = await viaToken.json() as { access_token: string; refresh_token: string };
    assert.equal(decodeJwt(rotated.access_token).client_id, clientId);
    refreshed.refresh_token = rotated.refresh_token;
    refreshed.access_token = rotated.access_token;

    // A second authorization is approved at once (the consent covers it), then the user revokes the grant.
    const again = await authorize(clientId, 'email');
    const auto = await user.auth.oauth.getAuthorizationDetails(again.authorizationId);
    assert.ok(auto.data && 'redirect_url' in auto.data && new URL(auto.data.redirect_url).searchParams.get('code'));
    const grants = await user.auth.oauth.listGrants();
    assert.deepEqual(grants.data?.map((g) => [g.client.name, g.scopes]), [['Notes CLI', ['email', 'openid', 'profile']]]);
    assert.equal((await user.auth.oauth.revokeGrant({ clientId })).error, null);
    const ended = await token({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token, client_id: clientId });
    assert.equal(ended.status, 400);
    assert.equal((await fetch(`${issuer()}/oauth/userinfo`, { headers: { Authorization: `Bearer ${refreshed.access_token}` } })).status, 401, 'userinfo refuses a token whose session ended');
  });

  it('a denial sends the browser back with access_denied, and the request cannot be approved after', async () => {
    const client = await (await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })).json() as { client_id: string };
    const { authorizationId } = await authorize(client.client_id, 'email', 'deny-state');
    await user.auth.signInWithPassword({ email: 'oauth-user@example.com', password: 'a-good-password' });
    assert.ok((await user.auth.oauth.getAuthorizationDetails(authorizationId)).data);
    const denied = await user.auth.oauth.denyAuthorization(authorizationId, { skipBrowserRedirect: true });
    const back = new URL(denied.data!.redirect_url);
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), 'deny-state');
    const late = await user.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true });
    assert.equal(late.error?.status, 400);
    // Another signed-in user cannot see someone's request.
    const { authorizationId: theirs } = await authorize(client.client_id, 'email');
    assert.ok((await user.auth.oauth.getAuthorizationDetails(theirs)).data);
    const stranger = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    await stranger.auth.signUp({ email: 'stranger@example.com', password: 'a-good-password' });
    assert.equal((await stranger.auth.oauth.getAuthorizationDetails(theirs)).error?.status, 404);
  });

  it('the operator manages confidential clients through auth-js admin.oauth; their secret authenticates them', async () => {
    const admin = service().auth.admin.oauth;
    const made = await admin.createClient({ client_name: 'Backend', redirect_uris: [REDIRECT] });
    assert.equal(made.error, null);
    assert.equal(made.data!.client_type, 'confidential');
    assert.equal(made.data!.registration_type, 'manual');
    assert.match(made.data!.client_secret!, /^sb_oauth_/);
    const id = made.data!.client_id;
    assert.ok((await admin.listClients()).data.clients.some((c) => c.client_id === id));
    assert.equal((await admin.updateClient(id, { client_name: 'Backend 2' })).data!.client_name, 'Backend 2');
    const regenerated = await admin.regenerateClientSecret(id);
    assert.notEqual(regenerated.data!.client_secret, made.data!.client_secret);

    const { authorizationId, verifier } = await authorize(id, 'email');
    await user.auth.signInWithPassword({ email: 'oauth-user@example.com', password: 'a-good-password' });
    await user.auth.oauth.getAuthorizationDetails(authorizationId);
    const code = new URL((await user.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true })).data!.redirect_url).searchParams.get('code')!;
    const basic = (secret: string) => ({ Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });
    const oldSecret = await token({ grant_type: 'authorization_code', code, code_verifier: verifier }, basic(made.data!.client_secret!));
    assert.equal(oldSecret.status, 401);
    assert.equal((await oldSecret.json() as { error: string }).error, 'invalid_client');
    const ok = await token({ grant_type: 'authorization_code', code, code_verifier: verifier }, basic(regenerated.data!.client_secret!));
    assert.equal(ok.status, 200);
    assert.equal(decodeJwt((await ok.json() as { access_token: string }).access_token).client_id, id);

    assert.equal((await admin.deleteClient(id)).error, null);
    assert.equal((await admin.getClient(id)).error?.status, 404);
    // Without the service role the admin API is closed.
    assert.equal((await user.auth.admin.oauth.listClients()).error?.status, 403);
  });
});

describe('the OAuth 2.1 server, as an operator sets it', () => {
  let p: TestPlatform;
  before(async () => {
    const port = await freePort();
    p = await startTestPlatform({
      WORKER: 'off', JWT_SIGNING_ALGORITHM: 'ES256', PORT: String(port), API_EXTERNAL_URL: `http://localhost:${port}`,
      AUTH_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: 'false', AUTH_OAUTH_SERVER_CONSENT_URL: 'https://app.example/oauth/consent',
    });
  });
  after(() => stopTestPlatform(p));

  it('refuses dynamic registration when it is off, and sends the browser to the app\'s own consent page', async () => {
    const meta = await (await fetch(`${p.url}/.well-known/oauth-authorization-server/auth/v1`)).json() as Record<string, unknown>;
    assert.equal(meta.registration_endpoint, undefined, 'the metadata offers no registration');
    const refused = await fetch(`${p.url}/auth/v1/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) });
    assert.equal(refused.status, 403);
    assert.equal((await refused.json() as { error_code: string }).error_code, 'oauth_dynamic_client_registration_disabled');

    const admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false, autoRefreshToken: false } }).auth.admin.oauth;
    const { data: client } = await admin.createClient({ client_name: 'Made by the operator', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const url = new URL(`${p.url}/auth/v1/oauth/authorize`);
    for (const [k, v] of Object.entries({ client_id: client!.client_id, redirect_uri: REDIRECT, code_challenge: b64url(createHash('sha256').update('v'.repeat(43)).digest()), code_challenge_method: 'S256' })) url.searchParams.set(k, v);
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const to = new URL(res.headers.get('location')!);
    assert.equal(`${to.origin}${to.pathname}`, 'https://app.example/oauth/consent');
    assert.ok(to.searchParams.get('authorization_id'));
  });
});
