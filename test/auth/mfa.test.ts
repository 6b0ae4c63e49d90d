// TOTP multi-factor through supabase-js auth.mfa. Codes are computed here with
// a few lines of RFC 6238, independent of the server's implementation.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

function base32(secret: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of secret.replace(/=+$/, '')) bits += alphabet.indexOf(ch).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}

function totp(secret: string, at = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / 30)));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

describe('identity: TOTP multi-factor', () => {
  let p: TestPlatform;
  const client = (): SupabaseClient => createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
  async function signedIn(): Promise<SupabaseClient> {
    const c = client();
    const { error } = await c.auth.signInWithPassword({ email: 'mfa@example.com', password: 'mfa-secret' });
    assert.equal(error, null);
    return c;
  }

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', AUTH_BCRYPT_COST: '4' });
    await client().auth.signUp({ email: 'mfa@example.com', password: 'mfa-secret' });
  });
  after(async () => stopTestPlatform(p));

  it('enrolls, verifies to aal2, lists the factor, and keeps aal2 across refresh', async () => {
    const c = await signedIn();
    const enrolled = await c.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone' });
    assert.equal(enrolled.error, null);
    const factor = enrolled.data!;
    assert.equal(factor.type, 'totp');
    assert.match(factor.totp.secret, /^[A-Z2-7]{32}$/);
    assert.match(factor.totp.uri, /^otpauth:\/\/totp\/.*secret=/);
    assert.match(factor.totp.qr_code, /^data:image\/svg\+xml;utf-8,<svg/);

    const challenge = await c.auth.mfa.challenge({ factorId: factor.id });
    assert.equal(challenge.error, null);
    const wrong = await c.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.data!.id, code: totp(factor.totp.secret, Date.now() - 5 * 60_000) });
    assert.equal(wrong.error?.code, 'mfa_verification_failed');
    assert.equal(wrong.error?.status, 422);

    const verified = await c.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.data!.id, code: totp(factor.totp.secret) });
    assert.equal(verified.error, null);
    const claims = decodeJwt(verified.data!.access_token);
    assert.equal(claims.aal, 'aal2');
    assert.deepEqual((claims.amr as Array<{ method: string }>).map((a) => a.method).sort(), ['password', 'totp']);
    const again = await c.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.data!.id, code: totp(factor.totp.secret) });
    assert.equal(again.error?.code, 'mfa_challenge_expired', 'a challenge is spent once');

    const aal = await c.auth.mfa.getAuthenticatorAssuranceLevel();
    assert.equal(aal.data?.currentLevel, 'aal2');
    const factors = await c.auth.mfa.listFactors();
    assert.deepEqual(factors.data?.totp.map((f) => [f.friendly_name, f.status]), [['phone', 'verified']]);

    const refreshed = await c.auth.refreshSession();
    assert.equal(decodeJwt(refreshed.data.session!.access_token).aal, 'aal2');
  });

  it('asks a new sign-in for the second factor, and only an aal2 session may unenroll', async () => {
    const c = await signedIn();
    const level = await c.auth.mfa.getAuthenticatorAssuranceLevel();
    assert.deepEqual([level.data?.currentLevel, level.data?.nextLevel], ['aal1', 'aal2']);
    const { data: factors } = await c.auth.mfa.listFactors();
    const factorId = factors!.totp[0]!.id;
    const refused = await c.auth.mfa.unenroll({ factorId });
    assert.equal(refused.error?.code, 'insufficient_aal');
    assert.equal(refused.error?.status, 403);

    const secret = (await p.adminPool.query<{ secret: string }>('select secret from auth.mfa_factors where id = $1', [factorId])).rows[0]!.secret;
    const stepUp = await c.auth.mfa.challengeAndVerify({ factorId, code: totp(secret) });
    assert.equal(stepUp.error, null);
    assert.equal((await c.auth.mfa.unenroll({ factorId })).error, null);
    assert.deepEqual((await c.auth.mfa.listFactors()).data?.all, []);
  });

  it('refuses other factor types and unknown factors', async () => {
    const c = await signedIn();
    const phone = await c.auth.mfa.enroll({ factorType: 'phone', phone: '+15555550100' });
    assert.equal(phone.error?.status, 422);
    const missing = await c.auth.mfa.challenge({ factorId: '00000000-0000-4000-8000-000000000000' });
    assert.equal(missing.error?.code, 'mfa_factor_not_found');
  });
});
