// GoTrue behaviours real apps hit (identity fidelity), through supabase-js:
// anonymous sign-ins (off by default with GoTrue's error; on, an anonymous
// user whose token says so to policies, made permanent when an e-mail is
// confirmed), e-mail addresses validated as GoTrue validates them, pagination
// refused as GoTrue refuses it, admin MFA factor routes, and manual identity
// linking answering GoTrue's "disabled" code; the Web3 grant answering
// GoTrue's disabled code, and a bearer that does not verify judged as GoTrue
// judges it (403 bad_jwt where a user is needed, ignored elsewhere).
import { signToken } from '../../server/keys.ts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('identity: GoTrue fidelity', () => {
  let off: TestPlatform;
  let on: TestPlatform;
  const client = (pl: TestPlatform, key = pl.keys.anonKey) => createClient(pl.url, key, { auth: { persistSession: false, autoRefreshToken: false } });

  before(async () => {
    // GoTrue's defaults for what pgbase turns on: the OAuth server, WebAuthn MFA and passkeys off.
    off = await startTestPlatform({ WORKER: 'off', AUTH_OAUTH_SERVER_ENABLED: 'false', AUTH_MFA_WEBAUTHN_ENABLED: 'false', AUTH_PASSKEY_ENABLED: 'false' });
    on = await startTestPlatform({ WORKER: 'off', AUTH_ANONYMOUS_USERS: 'true' });
  });
  after(async () => {
    await stopTestPlatform(off);
    await stopTestPlatform(on);
  });

  it('answers GoTrue\'s error for an anonymous sign-in when they are off', async () => {
    const { data, error } = await client(off).auth.signInAnonymously();
    assert.equal(data.session, null);
    assert.deepEqual([error?.status, error?.code, error?.message], [422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled']);
  });

  it('answers a Web3 sign-in with GoTrue\'s disabled code', async () => {
    const web3 = (body: unknown) => fetch(`${off.url}/auth/v1/token?grant_type=web3`, { method: 'POST', headers: { apikey: off.keys.anonKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const solana = await web3({ chain: 'solana', message: 'sign in', signature: 'c2ln' });
    assert.equal(solana.status, 422);
    assert.deepEqual(((b) => [b.code, b.error_code, b.msg])(await solana.json() as { code: number; error_code: string; msg: string }), [422, 'web3_provider_disabled', 'Solana Web3 provider is disabled']);
    const ethereum = (await (await web3({ chain: 'ethereum' })).json()) as { error_code: string; msg: string };
    assert.deepEqual([ethereum.error_code, ethereum.msg], ['web3_provider_disabled', 'Ethereum Web3 provider is disabled']);
  });

  it('judges a bearer that does not verify as GoTrue does: 403 bad_jwt where a user is needed, ignored where not', async () => {
    const call = (path: string, bearer: string, init: RequestInit = {}, apikey = off.keys.anonKey) =>
      fetch(`${off.url}/auth/v1${path}`, { ...init, headers: { apikey, authorization: `Bearer ${bearer}`, 'content-type': 'application/json' } });
    const expired = await signToken(off.keys.jwtSecret, { role: 'authenticated', sub: '6f1c2d3e-0000-4000-8000-000000000001', aud: 'authenticated' }, -60);
    const forged = `${expired.split('.').slice(0, 2).join('.')}.c2lnbmF0dXJl`;
    for (const [path, bearer, detail] of [
      ['/logout', 'not-a-jwt', 'token is malformed: token contains an invalid number of segments'],
      ['/logout', expired, 'token has invalid claims: token is expired'],
      ['/user', forged, 'token signature is invalid'],
    ] as const) {
      const res = await call(path, bearer, path === '/logout' ? { method: 'POST' } : {});
      assert.equal(res.status, 403, path);
      const body = (await res.json()) as { code: number; error_code: string; msg: string };
      assert.deepEqual([body.code, body.error_code, body.msg], [403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${detail}`]);
    }
    // The service key with a bearer that does not verify is not an admin.
    assert.equal((await call('/admin/users', 'not-a-jwt', {}, off.keys.serviceRoleKey)).status, 403);
    // Routes that need no user go on: a sign-up with a stale token left in the header.
    const signUp = await call('/signup', expired, { method: 'POST', body: JSON.stringify({ email: 'stale-header@example.com', password: 'a-good-password' }) });
    assert.equal(signUp.status, 200);
    assert.equal((await fetch(`${off.url}/rest/v1/`, { headers: { apikey: off.keys.anonKey, authorization: 'Bearer not-a-jwt' } })).status, 401, 'other surfaces refuse it at the gate, as before');
  });

  it('signs in anonymously when on: is_anonymous in the user and the token, for policies; permanent once an e-mail is confirmed', async () => {
    const anon = client(on);
    const { data, error } = await anon.auth.signInAnonymously({ options: { data: { theme: 'dark' } } });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(data.user!.is_anonymous, true);
    assert.deepEqual(data.user!.user_metadata, { theme: 'dark' });
    assert.equal(decodeJwt(data.session!.access_token).is_anonymous, true);
    await on.adminPool.query(`create table public.guestbook (id serial primary key, body text not null, owner uuid not null default auth.uid());
      alter table public.guestbook enable row level security;
      create policy readers on public.guestbook for select to authenticated using (true);
      create policy members_write on public.guestbook for insert to authenticated with check ((auth.jwt() ->> 'is_anonymous')::boolean is false);
      notify pgrst, 'reload schema';`);
    for (let i = 0; i < 100 && (await anon.from('guestbook').select('id')).error; i++) await new Promise((r) => setTimeout(r, 50));
    const refused = await anon.from('guestbook').insert({ body: 'hello' });
    assert.equal(refused.error?.code, '42501', 'the policy reads is_anonymous from the token');
    const admin = client(on, on.keys.serviceRoleKey);
    const converted = await admin.auth.admin.updateUserById(data.user!.id, { email: 'guest@example.com', email_confirm: true });
    assert.equal(converted.error, null, JSON.stringify(converted.error));
    assert.equal(converted.data.user!.is_anonymous, false, 'a confirmed e-mail makes the user permanent');
  });

  it('validates e-mail addresses as GoTrue does, on sign-up, admin create, invite and generate_link', async () => {
    const bad = await client(off).auth.signUp({ email: 'xx:;x@x.x', password: 'a-good-password' });
    assert.deepEqual([bad.error?.status, bad.error?.code], [400, 'email_address_invalid']);
    const admin = client(off, off.keys.serviceRoleKey);
    const created = await admin.auth.admin.createUser({ email: 'a b@example.com', password: 'a-good-password' });
    assert.equal(created.error?.code, 'email_address_invalid');
    const invited = await admin.auth.admin.inviteUserByEmail('xx:;x@x.x');
    assert.deepEqual([invited.error?.status, invited.error?.code], [400, 'email_address_invalid']);
    const link = await admin.auth.admin.generateLink({ type: 'magiclink', email: 'xx:;x@x.x' });
    assert.deepEqual([link.error?.status, link.error?.code], [400, 'email_address_invalid']);
    const { data: listed } = await admin.auth.admin.listUsers();
    assert.ok(!listed.users.some((u) => u.email === 'xx:;x@x.x'), 'no user was made for the bad address');
    const good = await client(off).auth.signUp({ email: "o'brien+tag@example.com", password: 'a-good-password' });
    assert.equal(good.error, null, JSON.stringify(good.error));
  });

  it('refuses bad pagination on the admin user list, as GoTrue does', async () => {
    const res = await fetch(`${off.url}/auth/v1/admin/users?page=-1`, { headers: { apikey: off.keys.serviceRoleKey, authorization: `Bearer ${off.keys.serviceRoleKey}` } });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error_code: string; msg: string };
    assert.equal(body.error_code, 'validation_failed');
    assert.match(body.msg, /^Bad Pagination Parameters/);
  });

  it('lists and deletes a user\'s MFA factors through the admin API', async () => {
    const user = client(off);
    const { data } = await user.auth.signUp({ email: 'factors@example.com', password: 'a-good-password' });
    assert.ok(data.session);
    const enrolled = await user.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone app' });
    assert.equal(enrolled.error, null, JSON.stringify(enrolled.error));
    const admin = client(off, off.keys.serviceRoleKey);
    const listed = await admin.auth.admin.mfa.listFactors({ userId: data.user!.id });
    assert.equal(listed.error, null, JSON.stringify(listed.error));
    assert.deepEqual(listed.data!.factors.map((f) => [f.id, f.friendly_name, f.factor_type, f.status]), [[enrolled.data!.id, 'phone app', 'totp', 'unverified']]);
    const deleted = await admin.auth.admin.mfa.deleteFactor({ id: enrolled.data!.id, userId: data.user!.id });
    assert.equal(deleted.error, null, JSON.stringify(deleted.error));
    assert.equal((await admin.auth.admin.mfa.listFactors({ userId: data.user!.id })).data!.factors.length, 0);
    const missing = await admin.auth.admin.mfa.deleteFactor({ id: enrolled.data!.id, userId: data.user!.id });
    assert.equal(missing.error?.status, 404);
  });

  it('answers manual identity linking with GoTrue\'s disabled code (off, as GoTrue ships it)', async () => {
    const user = client(off);
    await user.auth.signUp({ email: 'linker@example.com', password: 'a-good-password' });
    const res = await fetch(`${off.url}/auth/v1/user/identities/authorize?provider=github&skip_http_redirect=true`, {
      headers: { apikey: off.keys.anonKey, authorization: `Bearer ${(await user.auth.getSession()).data.session!.access_token}` },
    });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error_code: string }).error_code, 'manual_linking_disabled');
  });

  it('sends a reauthentication nonce, and asks for it on a password change from an old session (secure password change)', async () => {
    const secure = await startTestPlatform({ AUTH_SECURE_PASSWORD_CHANGE: 'true' });
    try {
      const user = client(secure);
      const { data } = await user.auth.signUp({ email: 'careful@example.com', password: 'a-good-password' });
      assert.ok(data.session);
      // A fresh session changes its password freely; an old one needs the nonce.
      assert.equal((await user.auth.updateUser({ password: 'a-newer-password' })).error, null);
      await secure.adminPool.query(`update auth.sessions set created_at = now() - interval '2 days' where user_id = $1`, [data.user!.id]);
      const needed = await user.auth.updateUser({ password: 'another-password' });
      assert.deepEqual([needed.error?.status, needed.error?.code], [400, 'reauthentication_needed']);
      assert.equal((await user.auth.reauthenticate()).error, null);
      let code = '';
      for (let i = 0; i < 200 && !code; i++) {
        const { rows } = await secure.adminPool.query(`select body_text from platform.mail_outbox where recipient = 'careful@example.com' and template = 'reauthentication'`);
        code = /(\d{6})/.exec(rows[0]?.body_text ?? '')?.[1] ?? '';
        if (!code) await new Promise((r) => setTimeout(r, 50));
      }
      assert.match(code, /^\d{6}$/, 'the nonce was mailed');
      const wrong = await user.auth.updateUser({ password: 'another-password', nonce: code === '000000' ? '111111' : '000000' });
      assert.equal(wrong.error?.code, 'reauthentication_not_valid');
      assert.equal((await user.auth.updateUser({ password: 'another-password', nonce: code })).error, null);
      assert.equal((await user.auth.updateUser({ password: 'yet-another-password', nonce: code })).error?.code, 'reauthentication_not_valid', 'a nonce is spent once');
      const signedIn = await client(secure).auth.signInWithPassword({ email: 'careful@example.com', password: 'another-password' });
      assert.equal(signedIn.error, null);
    } finally {
      await stopTestPlatform(secure);
    }
  });

  it('answers features that are off with GoTrue\'s codes: phone and WebAuthn factors, passkeys, the OAuth server, SAML SSO', async () => {
    const user = client(off);
    await user.auth.signUp({ email: 'codes@example.com', password: 'a-good-password' });
    const phone = await user.auth.mfa.enroll({ factorType: 'phone', phone: '+15555550100' });
    assert.deepEqual([phone.error?.status, phone.error?.code], [422, 'mfa_phone_enroll_not_enabled']);
    const webauthn = await user.auth.mfa.enroll({ factorType: 'webauthn', friendlyName: 'key' });
    assert.deepEqual([webauthn.error?.status, webauthn.error?.code, webauthn.error?.message], [422, 'mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn']);
    const passkeys = createClient(off.url, off.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false, experimental: { passkey: true } } });
    assert.deepEqual(((e) => [e?.status, e?.code])((await passkeys.auth.passkey.startAuthentication()).error), [422, 'passkey_disabled']);
    // The OAuth server off: no metadata, no endpoints, and /api/mcp's 401 points nowhere.
    assert.equal((await fetch(`${off.url}/.well-known/oauth-authorization-server/auth/v1`)).status, 404);
    assert.equal((await fetch(`${off.url}/auth/v1/oauth/authorize?client_id=x`, { redirect: 'manual' })).status, 401, 'behind the key gate like any unknown path');
    const mcp = await fetch(`${off.url}/api/mcp`, { method: 'POST' });
    assert.deepEqual([mcp.status, mcp.headers.get('www-authenticate')], [401, null]);
    const sso = await client(off).auth.signInWithSSO({ domain: 'example.com' });
    assert.deepEqual([sso.error?.status, sso.error?.code], [404, 'saml_provider_disabled']);
  });
});
