// signInWithIdToken (POST /token?grant_type=id_token), as native Google and
// Apple sign-in use it: the token checked against the provider's published
// keys (a JWKS server on 127.0.0.1 stands in for Google's), its issuer, its
// audience (the client id or an additional one, a mobile app's), its expiry
// and the nonce (the token holds the SHA-256 of the raw nonce); then the
// user signed up, signed in again by the same identity, or linked by a
// verified e-mail.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const ISSUER = 'https://accounts.google.com';

describe('identity: signInWithIdToken', () => {
  let p: TestPlatform;
  let jwksServer: http.Server;
  let jwksHits = 0;
  let sign: (claims: Record<string, unknown>, opts?: { expiresIn?: string; audience?: string; rogue?: boolean }) => Promise<string>;
  const anon = () => createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
  const hashed = (nonce: string) => createHash('sha256').update(nonce).digest('hex');

  before(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const rogue = await generateKeyPair('RS256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'google-1', alg: 'RS256', use: 'sig' };
    jwksServer = http.createServer((_req, res) => {
      jwksHits++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
    sign = (claims, opts = {}) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'google-1' }).setIssuer(ISSUER).setAudience(opts.audience ?? 'ios-client')
      .setIssuedAt().setExpirationTime(opts.expiresIn ?? '5m').sign(opts.rogue ? rogue.privateKey : privateKey);
    p = await startTestPlatform({
      WORKER: 'off', AUTH_EXTERNAL_GOOGLE_ENABLED: 'true', AUTH_EXTERNAL_GOOGLE_CLIENT_ID: 'web-client', AUTH_EXTERNAL_GOOGLE_SECRET: 'web-secret',
      AUTH_EXTERNAL_GOOGLE_ADDITIONAL_CLIENT_IDS: 'ios-client, android-client', AUTH_EXTERNAL_GOOGLE_JWKS_URL: `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/certs`,
    });
  });
  after(async () => {
    await stopTestPlatform(p);
    jwksServer.closeAllConnections();
    await new Promise<void>((r) => jwksServer.close(() => r()));
  });

  it('signs up with a valid token and nonce, then signs the same identity in again', async () => {
    const token = await sign({ sub: 'google-123', email: 'Native@Example.com', email_verified: true, name: 'Nat', nonce: hashed('raw-nonce') });
    const first = await anon().auth.signInWithIdToken({ provider: 'google', token, nonce: 'raw-nonce' });
    assert.equal(first.error, null, JSON.stringify(first.error));
    assert.equal(first.data.user!.email, 'native@example.com');
    assert.ok(first.data.user!.email_confirmed_at, 'a verified e-mail is confirmed');
    assert.deepEqual(first.data.user!.identities!.map((i) => [i.provider, i.id]), [['google', 'google-123']]);
    const again = await anon().auth.signInWithIdToken({ provider: 'google', token: await sign({ sub: 'google-123', email: 'native@example.com', email_verified: true }, { audience: 'web-client' }) });
    assert.equal(again.data.user!.id, first.data.user!.id, 'the same identity, the same user');
    assert.ok(jwksHits >= 1 && jwksHits <= 2, `the keys are fetched and cached (${jwksHits} fetches)`);
  });

  it('links a verified e-mail to the user who has it', async () => {
    const existing = await anon().auth.signUp({ email: 'linked@example.com', password: 'a-good-password' });
    const linked = await anon().auth.signInWithIdToken({ provider: 'google', token: await sign({ sub: 'google-456', email: 'linked@example.com', email_verified: true }) });
    assert.equal(linked.error, null, JSON.stringify(linked.error));
    assert.equal(linked.data.user!.id, existing.data.user!.id);
  });

  it('refuses a wrong audience, another key, an expired token, a nonce that does not match, and a provider not enabled', async () => {
    const refused = async (token: string, nonce?: string, provider = 'google') => {
      const { data, error } = await anon().auth.signInWithIdToken({ provider: provider as 'google', token, ...(nonce ? { nonce } : {}) });
      assert.equal(data.session, null);
      return error!;
    };
    assert.match((await refused(await sign({ sub: 'x' }, { audience: 'someone-else' }))).message, /Bad ID token: .*aud/);
    assert.equal((await refused(await sign({ sub: 'x' }, { rogue: true }))).code, 'bad_jwt');
    assert.match((await refused(await sign({ sub: 'x' }, { expiresIn: '-1m' }))).message, /Bad ID token: .*exp/);
    assert.match((await refused(await sign({ sub: 'x', nonce: hashed('one') }), 'two')).message, /Nonces mismatch/);
    assert.match((await refused(await sign({ sub: 'x', nonce: hashed('one') }))).message, /should either both exist or not/);
    const apple = await refused(await sign({ sub: 'x' }), undefined, 'apple');
    assert.deepEqual([apple.status, apple.code, apple.message], [400, 'provider_disabled', 'Provider (issuer "https://appleid.apple.com") is not enabled']);
    const custom = await refused(await sign({ sub: 'x' }), undefined, 'my-oidc');
    assert.deepEqual([custom.status, custom.code, custom.message], [400, 'provider_disabled', 'Custom OIDC provider "my-oidc" not allowed']);
  });
});
