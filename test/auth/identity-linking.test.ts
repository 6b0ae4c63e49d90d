// Manual identity linking (GoTrue's GOTRUE_SECURITY_MANUAL_LINKING_ENABLED,
// here AUTH_MANUAL_LINKING): a signed-in user links a provider's identity
// with supabase-js linkIdentity() (the provider is a real OIDC server on
// 127.0.0.1), sees both identities, cannot take another user's identity,
// unlinks one with unlinkIdentity() but never the last.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { OAuth2Server } from 'oauth2-mock-server';
import { followToApp } from '../helpers/browser.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const SITE = 'http://app.example.test';

describe('identity: manual linking', () => {
  let p: TestPlatform;
  let provider: OAuth2Server;
  let sub = 'kc-link-1';

  before(async () => {
    provider = new OAuth2Server();
    await provider.issuer.keys.generate('RS256');
    await provider.start(0, '127.0.0.1');
    const issuer = provider.issuer.url!;
    provider.service.on('beforeTokenSigning', (token) => Object.assign(token.payload, { sub, email: `${sub}@idp.test`, email_verified: true }));
    provider.service.on('beforeUserinfo', (response) => {
      response.body = { sub, email: `${sub}@idp.test`, email_verified: true };
    });
    p = await startTestPlatform({
      WORKER: 'off', SITE_URL: SITE, AUTH_BCRYPT_COST: '4', AUTH_MANUAL_LINKING: 'true',
      AUTH_EXTERNAL_KEYCLOAK_ENABLED: 'true', AUTH_EXTERNAL_KEYCLOAK_CLIENT_ID: 'pgbase-client', AUTH_EXTERNAL_KEYCLOAK_SECRET: 'pgbase-secret',
      AUTH_EXTERNAL_KEYCLOAK_ISSUER: issuer, AUTH_EXTERNAL_KEYCLOAK_AUTHORIZE_URL: `${issuer}/authorize`,
      AUTH_EXTERNAL_KEYCLOAK_TOKEN_URL: `${issuer}/token`, AUTH_EXTERNAL_KEYCLOAK_USERINFO_URL: `${issuer}/userinfo`,
    });
  });
  after(async () => {
    await stopTestPlatform(p);
    await provider.stop();
  });

  const follow = (start: string) => followToApp(p, SITE, start);
  const user = async (email: string) => {
    const sb = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    const { data } = await sb.auth.signUp({ email, password: 'a-good-password' });
    assert.ok(data.session);
    await sb.auth.setSession({ access_token: data.session.access_token, refresh_token: data.session.refresh_token });
    return sb;
  };

  it('links an identity to the signed-in user, shows both, and unlinks one but never the last', async () => {
    const ann = await user('ann-link@example.com');
    const started = await ann.auth.linkIdentity({ provider: 'keycloak', options: { redirectTo: `${SITE}/linked`, skipBrowserRedirect: true } });
    assert.equal(started.error, null, JSON.stringify(started.error));
    const landed = await follow(started.data.url!);
    assert.equal(landed.pathname, '/linked');
    const identities = await ann.auth.getUserIdentities();
    assert.deepEqual(identities.data!.identities.map((i) => i.provider).sort(), ['email', 'keycloak']);
    const linked = identities.data!.identities.find((i) => i.provider === 'keycloak')!;
    assert.equal((await ann.auth.unlinkIdentity(linked)).error, null);
    const left = await ann.auth.getUserIdentities();
    assert.deepEqual(left.data!.identities.map((i) => i.provider), ['email']);
    const last = await ann.auth.unlinkIdentity(left.data!.identities[0]!);
    assert.deepEqual([last.error?.status, last.error?.code], [422, 'single_identity_not_deletable']);
  });

  it('refuses an identity that belongs to another user', async () => {
    sub = 'kc-link-2';
    const bob = await user('bob-link@example.com');
    await follow((await bob.auth.linkIdentity({ provider: 'keycloak', options: { redirectTo: `${SITE}/linked`, skipBrowserRedirect: true } })).data.url!);
    const cy = await user('cy-link@example.com');
    const landed = await follow((await cy.auth.linkIdentity({ provider: 'keycloak', options: { redirectTo: `${SITE}/linked`, skipBrowserRedirect: true } })).data.url!);
    assert.equal(new URLSearchParams(landed.hash.slice(1)).get('error_code'), 'identity_already_exists');
    assert.deepEqual((await cy.auth.getUserIdentities()).data!.identities.map((i) => i.provider), ['email']);
  });
});
