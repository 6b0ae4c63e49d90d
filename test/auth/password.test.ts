// Sign-up, password sign-in, refresh rotation and sign-out through supabase-js.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthApiError, AuthWeakPasswordError, createClient, isAuthSessionMissingError, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

function client(p: TestPlatform, key = p.keys.anonKey): SupabaseClient {
  return createClient(p.url, key, { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } });
}

describe('identity: password accounts through supabase-js', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', AUTH_REFRESH_GRACE_SECONDS: '1' });
    // An app trigger on auth.users, as Supabase apps write them.
    await p.adminPool.query(`
      create table public.profiles (id uuid primary key references auth.users on delete cascade, full_name text);
      create function public.handle_new_user() returns trigger language plpgsql security definer set search_path = '' as $$
      begin
        insert into public.profiles (id, full_name) values (new.id, new.raw_user_meta_data ->> 'full_name');
        return new;
      end $$;
      create trigger on_auth_user_created after insert on auth.users for each row execute procedure public.handle_new_user();`);
  });
  after(async () => stopTestPlatform(p));

  it('signs up with a session, metadata in user_metadata, and fires app triggers', async () => {
    const { data, error } = await client(p).auth.signUp({ email: 'Ada@Example.com', password: 'correct horse', options: { data: { full_name: 'Ada Lovelace' } } });
    assert.equal(error, null);
    assert.ok(data.session && data.user);
    assert.equal(data.user.email, 'ada@example.com');
    assert.equal(data.user.aud, 'authenticated');
    assert.equal(data.user.role, 'authenticated');
    assert.deepEqual(data.user.user_metadata, { full_name: 'Ada Lovelace' });
    assert.deepEqual(data.user.app_metadata, { provider: 'email', providers: ['email'] });
    assert.equal(data.user.identities?.[0]?.provider, 'email');
    assert.equal(data.session.token_type, 'bearer');
    assert.equal(data.session.expires_in, 3600);
    const claims = decodeJwt(data.session.access_token);
    assert.equal(claims.sub, data.user.id);
    assert.equal(claims.role, 'authenticated');
    assert.equal(claims.aud, 'authenticated');
    assert.equal(claims.email, 'ada@example.com');
    assert.equal(claims.aal, 'aal1');
    assert.equal(typeof claims.session_id, 'string');
    assert.deepEqual((claims.amr as Array<{ method: string }>).map((a) => a.method), ['password']);
    const { rows } = await p.adminPool.query('select full_name from public.profiles where id = $1', [data.user.id]);
    assert.deepEqual(rows, [{ full_name: 'Ada Lovelace' }]);
    const stored = await p.adminPool.query<{ encrypted_password: string }>('select encrypted_password from auth.users where id = $1', [data.user.id]);
    assert.match(stored.rows[0]!.encrypted_password, /^\$2a\$10\$/, 'bcrypt, Supabase-compatible');
  });

  it('refuses a second sign-up, a weak password and a bad address with GoTrue codes', async () => {
    const dup = await client(p).auth.signUp({ email: 'ada@example.com', password: 'whatever1' });
    assert.ok(dup.error instanceof AuthApiError);
    assert.equal(dup.error.status, 422);
    assert.equal(dup.error.code, 'user_already_exists');
    const weak = await client(p).auth.signUp({ email: 'bob@example.com', password: '123' });
    assert.ok(weak.error instanceof AuthWeakPasswordError);
    assert.deepEqual(weak.error.reasons, ['length']);
    const bad = await client(p).auth.signUp({ email: 'not-an-email', password: 'longenough' });
    assert.equal(bad.error?.code, 'email_address_invalid');
  });

  it('signs in with the password, and says nothing about which part was wrong', async () => {
    const ok = await client(p).auth.signInWithPassword({ email: 'ada@example.com', password: 'correct horse' });
    assert.equal(ok.error, null);
    assert.equal(ok.data.user?.email, 'ada@example.com');
    assert.ok(ok.data.user?.last_sign_in_at);
    for (const [emailAddr, password] of [['ada@example.com', 'wrong'], ['nobody@example.com', 'correct horse']]) {
      const bad = await client(p).auth.signInWithPassword({ email: emailAddr!, password: password! });
      assert.ok(bad.error instanceof AuthApiError);
      assert.equal(bad.error.status, 400);
      assert.equal(bad.error.code, 'invalid_credentials');
      assert.equal(bad.error.message, 'Invalid login credentials');
    }
  });

  it('answers old clients with {code: status, error_code, msg} and new ones with {code, msg}', async () => {
    const headers = { apikey: p.keys.anonKey, 'content-type': 'application/json' };
    const body = JSON.stringify({ email: 'ada@example.com', password: 'wrong' });
    const legacy = await fetch(`${p.url}/auth/v1/token?grant_type=password`, { method: 'POST', headers, body });
    assert.deepEqual(await legacy.json(), { code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials', error: 'invalid_grant', error_description: 'Invalid login credentials' });
    const versioned = await fetch(`${p.url}/auth/v1/token?grant_type=password`, { method: 'POST', headers: { ...headers, 'x-supabase-api-version': '2024-01-01' }, body });
    assert.equal(versioned.headers.get('x-supabase-api-version'), '2024-01-01');
    assert.deepEqual(await versioned.json(), { code: 'invalid_credentials', msg: 'Invalid login credentials', error: 'invalid_grant', error_description: 'Invalid login credentials' });
  });

  it('rotates refresh tokens: single use, a grace window for concurrent refreshes, family revoked on later reuse', async () => {
    const c = client(p);
    const { data } = await c.auth.signInWithPassword({ email: 'ada@example.com', password: 'correct horse' });
    const first = data.session!.refresh_token;
    const a = await c.auth.refreshSession({ refresh_token: first });
    assert.equal(a.error, null);
    assert.notEqual(a.data.session!.refresh_token, first);
    assert.equal(decodeJwt(a.data.session!.access_token).session_id, decodeJwt(data.session!.access_token).session_id, 'same session');
    // A second tab refreshing with the same token at once still succeeds.
    const b = await c.auth.refreshSession({ refresh_token: first });
    assert.equal(b.error, null);
    await new Promise((r) => setTimeout(r, 1300)); // past the 1 s grace configured for this test
    const reuse = await c.auth.refreshSession({ refresh_token: first });
    assert.equal(reuse.error?.code, 'refresh_token_already_used');
    assert.equal(reuse.error?.status, 400);
    const family = await c.auth.refreshSession({ refresh_token: a.data.session!.refresh_token });
    assert.ok(family.error, 'the tokens issued from the reused one are revoked with it');
    const user = await c.auth.getUser(a.data.session!.access_token);
    assert.ok(isAuthSessionMissingError(user.error), 'the session is gone (GoTrue session_not_found)');
    const unknown = await c.auth.refreshSession({ refresh_token: 'never-issued' });
    assert.equal(unknown.error?.code, 'refresh_token_not_found');
    const { rows } = await p.adminPool.query(`select count(*)::int as n from auth.refresh_tokens where token = $1`, [first]);
    assert.deepEqual(rows, [{ n: 0 }], 'refresh tokens are stored hashed');
  });

  it('answers a token whose session ended with 403 session_not_found', async () => {
    const { data } = await client(p).auth.signInWithPassword({ email: 'ada@example.com', password: 'correct horse' });
    await p.adminPool.query('delete from auth.sessions where id = $1', [decodeJwt(data.session!.access_token).session_id]);
    const res = await fetch(`${p.url}/auth/v1/user`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${data.session!.access_token}` } });
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), { code: 403, error_code: 'session_not_found', msg: 'Session from session_id claim in JWT does not exist' });
  });

  it('returns the current user, and signs out (local, others, global)', async () => {
    const sessions = await Promise.all([1, 2, 3].map(() => client(p).auth.signInWithPassword({ email: 'ada@example.com', password: 'correct horse' })));
    const [s1, s2, s3] = sessions.map((s) => s.data.session!);
    const me = await client(p).auth.getUser(s1!.access_token);
    assert.equal(me.data.user?.email, 'ada@example.com');

    const local = client(p);
    await local.auth.setSession({ access_token: s1!.access_token, refresh_token: s1!.refresh_token });
    assert.equal((await local.auth.signOut({ scope: 'local' })).error, null);
    assert.ok(isAuthSessionMissingError((await client(p).auth.getUser(s1!.access_token)).error));
    assert.equal((await client(p).auth.getUser(s2!.access_token)).error, null, 'other sessions live on');

    const others = client(p);
    await others.auth.setSession({ access_token: s2!.access_token, refresh_token: s2!.refresh_token });
    assert.equal((await others.auth.signOut({ scope: 'others' })).error, null);
    assert.equal((await client(p).auth.getUser(s2!.access_token)).error, null, 'the caller keeps its session');
    assert.ok(isAuthSessionMissingError((await client(p).auth.getUser(s3!.access_token)).error));

    const global = client(p);
    await global.auth.setSession({ access_token: s2!.access_token, refresh_token: s2!.refresh_token });
    assert.equal((await global.auth.signOut()).error, null);
    assert.ok(isAuthSessionMissingError((await client(p).auth.getUser(s2!.access_token)).error));
  });

  it('writes audit log entries for sign-up, sign-in, refresh and sign-out', async () => {
    const { rows } = await p.adminPool.query<{ action: string }>(`select distinct payload->>'action' as action from auth.audit_log_entries order by 1`);
    assert.deepEqual(rows.map((r) => r.action), ['login', 'logout', 'token_refreshed', 'token_revoked', 'user_signedup']);
  });

  it('imports users as a Supabase export writes them, and their bcrypt hashes verify', async () => {
    // Column lists as pg_dump writes auth.users and auth.identities of a Supabase project.
    await p.adminPool.query(`
      INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, invited_at, confirmation_token,
        confirmation_sent_at, recovery_token, recovery_sent_at, email_change_token_new, email_change, email_change_sent_at, last_sign_in_at,
        raw_app_meta_data, raw_user_meta_data, is_super_admin, created_at, updated_at, phone, phone_confirmed_at, phone_change,
        phone_change_token, phone_change_sent_at, email_change_token_current, email_change_confirm_status, banned_until,
        reauthentication_token, reauthentication_sent_at, is_sso_user, deleted_at, is_anonymous)
      VALUES ('00000000-0000-0000-0000-000000000000', '5f0e3a52-9d1e-4b6a-8a8e-2f3c4d5e6f70', 'authenticated', 'authenticated',
        'exported@example.com', '$2a$10$3R7EBmPPuORA8Wil/ZE2jOcUdzzbSqJd3ArVLZ6Ebq48173B0lABm', '2024-03-01 10:00:00+00', NULL, '',
        NULL, '', NULL, '', '', NULL, '2024-05-01 10:00:00+00', '{"provider": "email", "providers": ["email"]}',
        '{"display_name": "Exported"}', NULL, '2024-03-01 10:00:00+00', '2024-05-01 10:00:00+00', NULL, NULL, '', '', NULL, '', 0, NULL,
        '', NULL, false, NULL, false);
      INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at, id)
      VALUES ('5f0e3a52-9d1e-4b6a-8a8e-2f3c4d5e6f70', '5f0e3a52-9d1e-4b6a-8a8e-2f3c4d5e6f70',
        '{"sub": "5f0e3a52-9d1e-4b6a-8a8e-2f3c4d5e6f70", "email": "exported@example.com", "email_verified": true, "phone_verified": false}',
        'email', '2024-05-01 10:00:00+00', '2024-03-01 10:00:00+00', '2024-05-01 10:00:00+00', 'a1b2c3d4-0000-4000-8000-000000000001');`);
    const { data, error } = await client(p).auth.signInWithPassword({ email: 'exported@example.com', password: 'exported-password' });
    assert.equal(error, null);
    assert.equal(data.user?.id, '5f0e3a52-9d1e-4b6a-8a8e-2f3c4d5e6f70');
    assert.deepEqual(data.user?.user_metadata, { display_name: 'Exported' });
    assert.equal(data.user?.identities?.[0]?.identity_id, 'a1b2c3d4-0000-4000-8000-000000000001');
    const { rows } = await p.adminPool.query('select full_name from public.profiles where id = $1', ['5f0e3a52-9d1e-4b6a-8a8e-2f3c4d5e6f70']);
    assert.equal(rows.length, 1, 'app triggers fire for imported rows too');
  });

  it('answers malformed JSON with 400 bad_json, never a 500', async () => {
    const res = await fetch(`${p.url}/auth/v1/token?grant_type=password`, { method: 'POST', headers: { apikey: p.keys.anonKey, 'content-type': 'application/json' }, body: '{"email": ' });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { code: 400, error_code: 'bad_json', msg: 'Could not parse request body as JSON' });
    const unsupported = await fetch(`${p.url}/auth/v1/token?grant_type=magic`, { method: 'POST', headers: { apikey: p.keys.anonKey, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(unsupported.status, 400);
    assert.equal(((await unsupported.json()) as { error: string }).error, 'unsupported_grant_type');
  });

  it('serves settings, health and an empty JWKS for HS256 projects', async () => {
    const headers = { apikey: p.keys.anonKey };
    const settings = await (await fetch(`${p.url}/auth/v1/settings`, { headers })).json();
    assert.equal(settings.mailer_autoconfirm, true);
    assert.equal(settings.disable_signup, false);
    assert.deepEqual(await (await fetch(`${p.url}/auth/v1/.well-known/jwks.json`, { headers })).json(), { keys: [] });
    assert.equal((await fetch(`${p.url}/auth/v1/health`, { headers })).status, 200);
  });
});

describe('identity: configuration', () => {
  it('honours AUTH_DISABLE_SIGNUP, JWT_EXPIRY and AUTH_PASSWORD_MIN_LENGTH', async () => {
    const p = await startTestPlatform({ WORKER: 'off', AUTH_BCRYPT_COST: '4', AUTH_DISABLE_SIGNUP: 'true', JWT_EXPIRY: '120', AUTH_PASSWORD_MIN_LENGTH: '12' });
    try {
      const c = client(p);
      const refused = await c.auth.signUp({ email: 'closed@example.com', password: 'long-enough-pass' });
      assert.equal(refused.error?.status, 403);
      assert.equal(refused.error?.code, 'signup_disabled');
      const admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
      assert.equal((await admin.auth.admin.createUser({ email: 'made@example.com', password: 'long-enough-pass', email_confirm: true })).error, null, 'admins still create users');
      const { data } = await c.auth.signInWithPassword({ email: 'made@example.com', password: 'long-enough-pass' });
      assert.equal(data.session?.expires_in, 120);
      const claims = decodeJwt(data.session!.access_token);
      assert.equal(claims.exp! - claims.iat!, 120);
      await c.auth.setSession(data.session!);
      const short = await c.auth.updateUser({ password: 'eleven-char' });
      assert.equal(short.error?.code, 'weak_password');
      assert.match(short.error!.message, /at least 12 characters/);
    } finally {
      await stopTestPlatform(p);
    }
  });

  it('soft-deletes a user as GoTrue does: anonymised, signed out, gone from the admin API', async () => {
    const p = await startTestPlatform({ WORKER: 'off', AUTH_BCRYPT_COST: '4' });
    try {
      const admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
      const user = (await admin.auth.admin.createUser({ email: 'soft@example.com', password: 'soft-secret', email_confirm: true })).data.user!;
      const session = await client(p).auth.signInWithPassword({ email: 'soft@example.com', password: 'soft-secret' });
      assert.equal((await admin.auth.admin.deleteUser(user.id, true)).error, null);
      const { rows } = await p.adminPool.query('select email, deleted_at is not null as deleted, (select count(*)::int from auth.sessions where user_id = $1) as sessions from auth.users where id = $1', [user.id]);
      assert.deepEqual(rows, [{ email: null, deleted: true, sessions: 0 }], 'the row stays, anonymised, without sessions');
      assert.equal((await admin.auth.admin.getUserById(user.id)).error?.code, 'user_not_found');
      assert.ok((await client(p).auth.refreshSession({ refresh_token: session.data.session!.refresh_token })).error);
      assert.equal((await admin.auth.admin.deleteUser(user.id, true)).error?.status, 404, 'twice is not found');
    } finally {
      await stopTestPlatform(p);
    }
  });
});
