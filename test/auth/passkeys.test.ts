// Passkeys as an MFA factor (issue 49, item 3; sql/0115) through supabase-js's
// auth.mfa with webauthn parameters, unchanged, and a software authenticator
// made in the test (a real P-256 key pair signing the client data:
// test/helpers/passkey.ts): enrolling registers the passkey (attestation
// none) and raises the session to aal2 with the mfa/webauthn method; a later
// sign-in is raised by an assertion. Refused: another key's signature, a
// wrong origin, a challenge used twice, a cloned authenticator whose counter
// does not move, and the same passkey enrolled twice. The admin API lists
// and deletes the factor.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { softwarePasskey, type Passkey } from '../helpers/passkey.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const ORIGIN = 'https://app.example.com';
const rp = { rpId: 'app.example.com', rpOrigins: [ORIGIN] };

describe('identity: passkeys (WebAuthn) as an MFA factor', () => {
  let p: TestPlatform;
  const client = (): SupabaseClient => createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
  async function signedIn(email: string): Promise<SupabaseClient> {
    const c = client();
    const { error } = await c.auth.signInWithPassword({ email, password: 'passkey-secret' });
    assert.equal(error, null);
    return c;
  }

  /** Enrolment as mfa.webauthn.register does it, with the software authenticator in the browser's place. */
  async function enroll(c: SupabaseClient, key: Passkey, name: string) {
    const { data: factor, error } = await c.auth.mfa.enroll({ factorType: 'webauthn', friendlyName: name });
    assert.equal(error, null);
    const { data: challenge, error: challengeError } = await c.auth.mfa.challenge({ factorId: factor!.id, webauthn: rp });
    assert.equal(challengeError, null);
    assert.ok(challenge && 'webauthn' in challenge && challenge.webauthn);
    assert.equal(challenge.webauthn.type, 'create');
    const publicKey = challenge.webauthn.credential_options.publicKey as unknown as { challenge: ArrayBuffer; rp: { id: string; name: string }; attestation: string };
    assert.deepEqual([publicKey.rp.id, publicKey.attestation], ['app.example.com', 'none']);
    const credential = key.create(publicKey, ORIGIN);
    return { factorId: factor!.id, verified: await c.auth.mfa.verify({ factorId: factor!.id, challengeId: challenge.id, webauthn: { type: 'create', ...rp, credential_response: credential as never } }) };
  }

  /** An assertion, as mfa.webauthn.authenticate does it. */
  async function assertWith(c: SupabaseClient, factorId: string, sign: (options: { challenge: ArrayBuffer; rpId?: string }) => { toJSON: () => object }) {
    const { data: challenge } = await c.auth.mfa.challenge({ factorId, webauthn: rp });
    assert.ok(challenge && 'webauthn' in challenge && challenge.webauthn);
    assert.equal(challenge.webauthn.type, 'request');
    const credential = sign(challenge.webauthn.credential_options.publicKey as unknown as { challenge: ArrayBuffer; rpId?: string });
    return { challengeId: challenge.id, credential, result: await c.auth.mfa.verify({ factorId, challengeId: challenge.id, webauthn: { type: 'request', ...rp, credential_response: credential as never } }) };
  }

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', AUTH_BCRYPT_COST: '4', SITE_URL: ORIGIN });
    for (const email of ['passkey@example.com', 'clone@example.com']) await client().auth.signUp({ email, password: 'passkey-secret' });
  });
  after(async () => stopTestPlatform(p));

  it('enrolls a passkey and raises the session to aal2; a later sign-in is raised by an assertion', async () => {
    const key = softwarePasskey();
    const c = await signedIn('passkey@example.com');
    const { factorId, verified } = await enroll(c, key, 'laptop');
    assert.equal(verified.error, null);
    const claims = decodeJwt(verified.data!.access_token);
    assert.equal(claims.aal, 'aal2');
    assert.ok((claims.amr as Array<{ method: string }>).some((m) => m.method === 'mfa/webauthn'));
    const factors = await c.auth.mfa.listFactors();
    assert.deepEqual(factors.data?.all.map((f) => [f.factor_type, f.friendly_name, f.status]), [['webauthn', 'laptop', 'verified']]);

    const later = await signedIn('passkey@example.com');
    assert.equal((await later.auth.mfa.getAuthenticatorAssuranceLevel()).data?.nextLevel, 'aal2');
    const { result } = await assertWith(later, factorId, (o) => key.get(o, ORIGIN));
    assert.equal(result.error, null);
    assert.equal(decodeJwt(result.data!.access_token).aal, 'aal2');

    // Refused: another key's signature for this credential, an origin not the relying party's, a challenge spent already.
    const impostor = softwarePasskey({ id: Buffer.from(key.id, 'base64url') });
    const forged = await assertWith(await signedIn('passkey@example.com'), factorId, (o) => impostor.get(o, ORIGIN));
    assert.deepEqual([forged.result.error?.status, forged.result.error?.code], [422, 'mfa_verification_failed']);
    const phished = await assertWith(await signedIn('passkey@example.com'), factorId, (o) => key.get(o, 'https://app-example.evil'));
    assert.deepEqual([phished.result.error?.status, phished.result.error?.code], [422, 'mfa_verification_failed']);
    assert.match(phished.result.error!.message, /origin/i);
    const again = await signedIn('passkey@example.com');
    const once = await assertWith(again, factorId, (o) => key.get(o, ORIGIN));
    assert.equal(once.result.error, null);
    const replay = await again.auth.mfa.verify({ factorId, challengeId: once.challengeId, webauthn: { type: 'request', ...rp, credential_response: once.credential as never } });
    assert.equal(replay.error?.status, 422);

    // The same authenticator cannot become a second factor.
    const twice = await enroll(await signedIn('passkey@example.com').then(async (s) => {
      await assertWith(s, factorId, (o) => key.get(o, ORIGIN));
      return s;
    }), key, 'laptop again');
    assert.equal(twice.verified.error?.status, 422);
  });

  it('refuses a cloned authenticator whose signature counter does not move on', async () => {
    const keys = (await import('node:crypto')).generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const original = softwarePasskey({ keys });
    const c = await signedIn('clone@example.com');
    const { factorId } = await enroll(c, original, 'key');
    assert.equal((await assertWith(await signedIn('clone@example.com'), factorId, (o) => original.get(o, ORIGIN))).result.error, null);
    const clone = softwarePasskey({ keys, id: Buffer.from(original.id, 'base64url'), counterStep: 0 });
    const cloned = await assertWith(await signedIn('clone@example.com'), factorId, (o) => clone.get(o, ORIGIN));
    assert.equal(cloned.result.error?.code, 'mfa_verification_failed');
    assert.match(cloned.result.error!.message, /counter/i);

    // The admin API lists the passkey and deletes it.
    const admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false, autoRefreshToken: false } }).auth.admin.mfa;
    const { data: user } = await c.auth.getUser();
    const listed = await admin.listFactors({ userId: user.user!.id });
    assert.deepEqual(listed.data?.factors.map((f) => f.factor_type), ['webauthn']);
    assert.equal((await admin.deleteFactor({ userId: user.user!.id, id: factorId })).error, null);
    assert.deepEqual((await admin.listFactors({ userId: user.user!.id })).data?.factors, []);
  });

  it('keeps to the server\'s relying party, whatever the request claims', async () => {
    await client().auth.signUp({ email: 'rp@example.com', password: 'passkey-secret' });
    const c = await signedIn('rp@example.com');
    const { data: factor } = await c.auth.mfa.enroll({ factorType: 'webauthn', friendlyName: 'key' });
    const claimed = { rpId: 'evil.example', rpOrigins: ['https://evil.example'] };
    const { data: challenge } = await c.auth.mfa.challenge({ factorId: factor!.id, webauthn: claimed });
    assert.ok(challenge && 'webauthn' in challenge && challenge.webauthn);
    const publicKey = challenge.webauthn.credential_options.publicKey as unknown as { challenge: ArrayBuffer; rp: { id: string } };
    assert.equal(publicKey.rp.id, 'app.example.com', 'the options name the server\'s relying party');
    // A credential made for the claimed party, from its origin, is refused.
    const credential = softwarePasskey().create({ ...publicKey, rp: { id: 'evil.example' } }, 'https://evil.example');
    const result = await c.auth.mfa.verify({ factorId: factor!.id, challengeId: challenge.id, webauthn: { type: 'create', ...claimed, credential_response: credential as never } });
    assert.deepEqual([result.error?.status, result.error?.code], [422, 'mfa_verification_failed']);
  });
});
