// Sign-in with a third-party provider, end to end against a real OIDC provider
// on 127.0.0.1 (oauth2-mock-server): /authorize, the provider, /callback, the
// app. The platform reaches it through the same configuration as a real one.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { OAuth2Server } from 'oauth2-mock-server';
import { followToApp } from '../helpers/browser.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const SITE = 'http://app.example.test';

describe('identity: OAuth / OIDC sign-in', () => {
  let p: TestPlatform;
  let provider: OAuth2Server;
  let issuer: string;
  // What the provider says about the next user who signs in.
  let next: { sub: string; email?: string; email_verified?: boolean; name?: string; nonce?: string; aud?: string; iss?: string };

  before(async () => {
    provider = new OAuth2Server();
    await provider.issuer.keys.generate('RS256');
    await provider.start(0, '127.0.0.1');
    issuer = provider.issuer.url!;
    provider.service.on('beforeTokenSigning', (token) => {
      const { nonce, aud, iss, ...claims } = next
      Object.assign(token.payload, claims);
      if (nonce) token.payload.nonce = nonce;
      if (aud) token.payload.aud = aud;
      if (iss) token.payload.iss = iss;
    });
    provider.service.on('beforeUserinfo', (response) => {
      response.body = { sub: next.sub, email: next.email, email_verified: next.email_verified, name: next.name, picture: 'http://img.test/a.png' };
    });
    p = await startTestPlatform({
      WORKER: 'off',
      SITE_URL: SITE,
      AUTH_BCRYPT_COST: '4',
      AUTH_EXTERNAL_KEYCLOAK_ENABLED: 'true',
      AUTH_EXTERNAL_KEYCLOAK_CLIENT_ID: 'pgbase-client',
      AUTH_EXTERNAL_KEYCLOAK_SECRET: 'pgbase-secret',
      AUTH_EXTERNAL_KEYCLOAK_ISSUER: issuer,
      AUTH_EXTERNAL_KEYCLOAK_AUTHORIZE_URL: `${issuer}/authorize`,
      AUTH_EXTERNAL_KEYCLOAK_TOKEN_URL: `${issuer}/token`,
      AUTH_EXTERNAL_KEYCLOAK_USERINFO_URL: `${issuer}/userinfo`,
      // X (twitter) requires PKCE from us; here it is the same local provider, spoken to as plain OAuth 2.0.
      AUTH_EXTERNAL_TWITTER_ENABLED: 'true',
      // Basic auth form-encodes the client id (RFC 6749 B); the mock does not decode it, so none is needed here.
      AUTH_EXTERNAL_TWITTER_CLIENT_ID: 'pgbaseclient',
      AUTH_EXTERNAL_TWITTER_SECRET: 'pgbase-secret',
      AUTH_EXTERNAL_TWITTER_AUTHORIZE_URL: `${issuer}/authorize`,
      AUTH_EXTERNAL_TWITTER_TOKEN_URL: `${issuer}/token`,
      AUTH_EXTERNAL_TWITTER_USERINFO_URL: `${issuer}/userinfo`,
    });
  });
  after(async () => {
    await stopTestPlatform(p);
    await provider.stop();
  });
  beforeEach(() => {
    next = { sub: 'kc-user-1', email: 'oidc.user@example.com', email_verified: true, name: 'Olive Idc' };
  });

  /** Signs in through /authorize and follows the browser to the app; returns where it lands. */
  const signIn = (query: string) => followToApp(p, SITE, `${p.url}/auth/v1/authorize?${query}`);
  const fragment = (u: URL) => new URLSearchParams(u.hash.slice(1));

  it('redirects to the provider with client, callback, scopes, a sealed state and a nonce', async () => {
    const res = await fetch(`${p.url}/auth/v1/authorize?provider=keycloak&redirect_to=${encodeURIComponent(SITE + '/done')}&scopes=groups`, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const to = new URL(res.headers.get('location')!);
    assert.equal(`${to.origin}${to.pathname}`, `${issuer}/authorize`);
    assert.equal(to.searchParams.get('client_id'), 'pgbase-client');
    assert.equal(to.searchParams.get('redirect_uri'), `${p.config.apiUrl}/auth/v1/callback`);
    assert.deepEqual(to.searchParams.get('scope')!.split(' ').sort(), ['email', 'groups', 'openid', 'profile']);
    assert.equal(to.searchParams.get('state')!.split('.').length, 5, 'the state is an encrypted JWT (JWE)');
    assert.doesNotMatch(to.searchParams.get('state')!, /done/, 'the redirect target is not readable in it');
    assert.ok(to.searchParams.get('nonce'));
  });

  it('signs a new user in with tokens in the fragment, and the same user the next time', async () => {
    const landed = await signIn(`provider=keycloak&redirect_to=${encodeURIComponent(SITE + '/welcome')}`);
    assert.equal(landed.pathname, '/welcome');
    const f = fragment(landed);
    assert.equal(f.get('token_type'), 'bearer');
    assert.ok(f.get('provider_token'));
    const anon = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const { data } = await anon.auth.getUser(f.get('access_token')!);
    assert.equal(data.user?.email, 'oidc.user@example.com');
    assert.ok(data.user?.email_confirmed_at, 'a verified provider e-mail confirms the account');
    assert.deepEqual(data.user?.app_metadata, { provider: 'keycloak', providers: ['keycloak'] });
    assert.equal(data.user?.user_metadata.full_name, 'Olive Idc');
    assert.equal(data.user?.identities?.[0]?.provider, 'keycloak');

    const again = fragment(await signIn('provider=keycloak'));
    const second = await anon.auth.getUser(again.get('access_token')!);
    assert.equal(second.data.user?.id, data.user?.id);
  });

  it('links a verified provider e-mail to the existing account with that address', async () => {
    const anon = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const existing = await anon.auth.signUp({ email: 'linked@example.com', password: 'linked-secret' });
    next = { sub: 'kc-user-2', email: 'linked@example.com', email_verified: true };
    const f = fragment(await signIn('provider=keycloak'));
    const { data } = await anon.auth.getUser(f.get('access_token')!);
    assert.equal(data.user?.id, existing.data.user?.id);
    assert.deepEqual((data.user?.app_metadata.providers as string[]).sort(), ['email', 'keycloak']);
    assert.equal((await anon.auth.signInWithPassword({ email: 'linked@example.com', password: 'linked-secret' })).error, null, 'the password still works');
  });

  it('takes an unconfirmed account from whoever pre-registered the address (no pre-hijacking)', async () => {
    await p.adminPool.query(`select auth.sign_up('victim@example.com', null, 'attacker-pass', '{}', false, 4)`);
    next = { sub: 'kc-victim', email: 'victim@example.com', email_verified: true };
    const f = fragment(await signIn('provider=keycloak'));
    assert.ok(f.get('access_token'));
    const anon = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const attacker = await anon.auth.signInWithPassword({ email: 'victim@example.com', password: 'attacker-pass' });
    assert.equal(attacker.error?.code, 'invalid_credentials', "the pre-registered password no longer opens the account");
  });

  it('never links through an unverified e-mail', async () => {
    next = { sub: 'kc-user-3', email: 'linked@example.com', email_verified: false };
    const f = fragment(await signIn('provider=keycloak'));
    assert.equal(f.get('error_code'), 'email_exists');
    assert.equal(f.get('access_token'), null);
  });

  it('refuses an ID token with the wrong nonce, audience or issuer', async () => {
    for (const bad of [{ nonce: 'replayed-nonce' }, { aud: 'another-client' }, { iss: 'http://evil.test' }]) {
      next = { sub: 'kc-user-4', email: 'x@example.com', email_verified: true, ...bad };
      const f = fragment(await signIn('provider=keycloak'));
      assert.equal(f.get('error'), 'access_denied', JSON.stringify(bad));
      assert.equal(f.get('error_code'), 'bad_oauth_callback');
      assert.equal(f.get('access_token'), null);
    }
  });

  it('refuses a state it did not sign, and providers that are not enabled', async () => {
    const forged = await fetch(`${p.url}/auth/v1/callback?code=abc&state=not-a-state`, { redirect: 'manual' });
    const f = new URLSearchParams(new URL(forged.headers.get('location')!).hash.slice(1));
    assert.equal(f.get('error_code'), 'bad_oauth_state');
    const disabled = await fetch(`${p.url}/auth/v1/authorize?provider=github`, { redirect: 'manual' });
    assert.equal(disabled.status, 400);
    assert.deepEqual(await disabled.json(), { code: 400, error_code: 'validation_failed', msg: 'Unsupported provider: provider is not enabled' });
    assert.equal((await fetch(`${p.url}/auth/v1/authorize?provider=myspace`, { redirect: 'manual' })).status, 400);
  });

  it('keeps redirect_to to the allow-list', async () => {
    const landed = await signIn(`provider=keycloak&redirect_to=${encodeURIComponent('http://evil.test/steal')}`);
    assert.equal(landed.origin, SITE);
  });

  it('runs the PKCE flow with supabase-js: the code comes back in the query and is exchanged', async () => {
    const client = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, flowType: 'pkce', detectSessionInUrl: false } });
    const { data, error } = await client.auth.signInWithOAuth({ provider: 'keycloak', options: { redirectTo: `${SITE}/cb`, skipBrowserRedirect: true } });
    assert.equal(error, null);
    const start = new URL(data.url!);
    assert.ok(start.searchParams.get('code_challenge'));
    const landed = await signIn(start.search.slice(1));
    const code = landed.searchParams.get('code');
    assert.ok(code, landed.toString());
    const exchanged = await client.auth.exchangeCodeForSession(code);
    assert.equal(exchanged.error, null);
    assert.equal(exchanged.data.user?.email, 'oidc.user@example.com');
  });

  it('sends PKCE to providers that require it (X), and the exchange carries the verifier', async () => {
    const res = await fetch(`${p.url}/auth/v1/authorize?provider=twitter`, { redirect: 'manual' });
    const to = new URL(res.headers.get('location')!);
    assert.equal(to.searchParams.get('code_challenge_method'), 'S256');
    assert.match(to.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
    next = { sub: 'x-user-1', email: 'x.user@example.com', email_verified: true };
    const f = fragment(await signIn('provider=twitter'));
    assert.ok(f.get('access_token'), f.toString());
    const anon = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const { data } = await anon.auth.getUser(f.get('access_token')!);
    assert.equal(data.user?.identities?.[0]?.provider, 'twitter');
  });

  it('accepts the callback as a form post (response_mode=form_post, as Apple answers)', async () => {
    const start = await fetch(`${p.url}/auth/v1/authorize?provider=keycloak`, { redirect: 'manual' });
    const atProvider = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const back = new URL(atProvider.headers.get('location')!);
    const posted = await fetch(`${p.url}/auth/v1/callback`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code: back.searchParams.get('code')!, state: back.searchParams.get('state')! }),
    });
    assert.equal(posted.status, 302);
    assert.ok(fragment(new URL(posted.headers.get('location')!)).get('access_token'));
  });
});
