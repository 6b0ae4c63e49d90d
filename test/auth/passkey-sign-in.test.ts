// Passkeys as a first factor (issue 49, item 3; sql/0116) through auth-js's
// `auth.passkey` (experimental in auth-js, as on Supabase), the flow of its
// own end-to-end suite, with the software authenticator of
// test/helpers/passkey.ts: a signed-in user registers a discoverable
// passkey; a new client signs in with it alone (no e-mail asked) and gets a
// working session; the passkey is listed with its last use, renamed and
// deleted (by the user and by the admin API). Refused: an unknown or
// replayed challenge, an unregistered authenticator, a cloned one, a
// deleted passkey, registration without a session.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { softwarePasskey } from '../helpers/passkey.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const ORIGIN = 'http://localhost:5173';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('identity: signing in with a passkey', () => {
  let p: TestPlatform;
  let owner: SupabaseClient;
  let userId: string;
  const client = (key = p.keys.anonKey): SupabaseClient => createClient(p.url, key, { auth: { persistSession: false, autoRefreshToken: false, experimental: { passkey: true } } });

  async function register(c: SupabaseClient, key: ReturnType<typeof softwarePasskey>) {
    const { data: options, error } = await c.auth.passkey.startRegistration();
    assert.equal(error, null);
    return c.auth.passkey.verifyRegistration({ challengeId: options!.challenge_id, credential: key.create(options!.options as never, ORIGIN).toJSON() as never });
  }
  async function signInWith(key: ReturnType<typeof softwarePasskey>) {
    const c = client();
    const { data: options, error } = await c.auth.passkey.startAuthentication();
    assert.equal(error, null);
    const assertion = key.get(options!.options as never, ORIGIN).toJSON();
    return { c, options: options!, assertion, result: await c.auth.passkey.verifyAuthentication({ challengeId: options!.challenge_id, credential: assertion as never }) };
  }

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', AUTH_BCRYPT_COST: '4', SITE_URL: ORIGIN, AUTH_WEBAUTHN_RP_ID: 'localhost' });
    owner = client();
    const { data } = await owner.auth.signUp({ email: 'passkey-first@example.com', password: 'a-good-password' });
    userId = data.user!.id;
  });
  after(() => stopTestPlatform(p));

  it('registers a discoverable passkey and signs in with it alone', async () => {
    const { data: options } = await owner.auth.passkey.startRegistration();
    assert.match(options!.challenge_id, UUID);
    assert.ok(options!.expires_at > Date.now() / 1000);
    const o = options!.options as unknown as { rp: { id: string }; authenticatorSelection: { residentKey: string }; pubKeyCredParams: Array<{ alg: number }> };
    assert.deepEqual([o.rp.id, o.authenticatorSelection.residentKey], ['localhost', 'required']);
    assert.ok(o.pubKeyCredParams.some((a) => a.alg === -7));

    const key = softwarePasskey();
    const made = await register(owner, key);
    assert.equal(made.error, null);
    assert.match(made.data!.id, UUID);

    const { c, options: auth, result } = await signInWith(key);
    assert.deepEqual((auth.options as { allowCredentials?: unknown[] }).allowCredentials ?? [], [], 'a discoverable sign-in names no credential');
    assert.equal(result.error, null);
    assert.equal(result.data!.user!.id, userId);
    assert.deepEqual((decodeJwt(result.data!.session!.access_token).amr as Array<{ method: string }>).map((m) => m.method), ['passkey']);
    assert.equal((await c.auth.getUser()).data.user?.id, userId, 'the session works');
    const listed = await owner.auth.passkey.list();
    assert.equal(listed.data!.length, 1);
    assert.ok(listed.data![0]!.last_used_at);

    assert.equal((await owner.auth.passkey.update({ passkeyId: made.data!.id, friendlyName: 'laptop' })).data!.friendly_name, 'laptop');
    assert.equal((await owner.auth.passkey.update({ passkeyId: '00000000-0000-0000-0000-000000000000', friendlyName: 'x' })).error?.status, 404);

    // Refused: a replayed challenge, an unregistered authenticator, a clone, the same passkey twice, no session.
    const replay = await c.auth.passkey.verifyAuthentication({ challengeId: auth.challenge_id, credential: (key.get(auth.options as never, ORIGIN).toJSON()) as never });
    assert.equal(replay.error?.code, 'webauthn_challenge_not_found');
    assert.equal((await signInWith(softwarePasskey())).result.error?.code, 'webauthn_verification_failed');
    assert.equal((await register(owner, key)).error?.code, 'webauthn_credential_exists');
    const { data: none, error: noSession } = await client().auth.passkey.startRegistration();
    assert.equal(none, null);
    assert.equal(noSession?.name, 'AuthSessionMissingError');
    const unknown = await owner.auth.passkey.verifyRegistration({ challengeId: '00000000-0000-0000-0000-000000000000', credential: {} as never });
    assert.equal(unknown.error?.code, 'webauthn_challenge_not_found');

    await owner.auth.passkey.delete({ passkeyId: made.data!.id });
    assert.deepEqual((await owner.auth.passkey.list()).data, []);
    assert.equal((await signInWith(key)).result.error?.code, 'webauthn_verification_failed', 'a deleted passkey signs no one in');
  });

  it('refuses a cloned authenticator; the admin API lists and deletes passkeys', async () => {
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const original = softwarePasskey({ keys });
    const made = await register(owner, original);
    assert.equal((await signInWith(original)).result.error, null);
    const clone = softwarePasskey({ keys, id: Buffer.from(original.id, 'base64url'), counterStep: 0 });
    assert.equal((await signInWith(clone)).result.error?.code, 'webauthn_verification_failed');

    const admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false, autoRefreshToken: false, experimental: { passkey: true } } }).auth.admin;
    assert.deepEqual((await admin.passkey.listPasskeys({ userId })).data?.map((k) => k.id), [made.data!.id]);
    assert.equal((await admin.passkey.deletePasskey({ userId, passkeyId: made.data!.id })).error, null);
    assert.deepEqual((await admin.passkey.listPasskeys({ userId })).data, []);
    assert.equal((await client().auth.admin.passkey.listPasskeys({ userId })).error?.status, 403, 'not with the anon key');
  });
});
