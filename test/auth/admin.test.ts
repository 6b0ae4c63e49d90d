// The admin API through supabase-js auth.admin, with the service-role key only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startSmtpSink } from '../helpers/smtp.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('identity: admin', () => {
  let p: TestPlatform;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let admin: SupabaseClient;
  const anon = () => createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });

  before(async () => {
    smtp = await startSmtpSink();
    p = await startTestPlatform({ SMTP_URL: smtp.url, AUTH_BCRYPT_COST: '4' });
    admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false, autoRefreshToken: false } });
  });
  after(async () => {
    await stopTestPlatform(p);
    await smtp.stop();
  });

  it('refuses the anon key and user tokens with 403 not_admin', async () => {
    const res = await fetch(`${p.url}/auth/v1/admin/users`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}` } });
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), { code: 403, error_code: 'not_admin', msg: 'User not allowed' });
    const { data } = await admin.auth.admin.createUser({ email: 'plain@example.com', password: 'plain-secret', email_confirm: true });
    const session = await anon().auth.signInWithPassword({ email: 'plain@example.com', password: 'plain-secret' });
    const asUser = await fetch(`${p.url}/auth/v1/admin/users/${data.user!.id}`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${session.data.session!.access_token}` } });
    assert.equal(asUser.status, 403);
  });

  it('creates users confirmed or not, with metadata, and refuses duplicates', async () => {
    const { data, error } = await admin.auth.admin.createUser({
      email: 'Grace@Example.com', password: 'grace-secret', email_confirm: true, user_metadata: { name: 'Grace' }, app_metadata: { plan: 'pro' },
    });
    assert.equal(error, null);
    assert.equal(data.user?.email, 'grace@example.com');
    assert.ok(data.user?.email_confirmed_at);
    assert.deepEqual(data.user?.user_metadata, { name: 'Grace' });
    assert.deepEqual(data.user?.app_metadata, { provider: 'email', providers: ['email'], plan: 'pro' });
    assert.equal((await anon().auth.signInWithPassword({ email: 'grace@example.com', password: 'grace-secret' })).error, null);

    const dup = await admin.auth.admin.createUser({ email: 'grace@example.com', password: 'x-secret' });
    assert.equal(dup.error?.status, 422);
    assert.equal(dup.error?.code, 'email_exists');
    const unconfirmed = await admin.auth.admin.createUser({ email: 'heidi@example.com', password: 'heidi-secret' });
    assert.equal(unconfirmed.data.user?.email_confirmed_at, undefined);
    assert.equal((await anon().auth.signInWithPassword({ email: 'heidi@example.com', password: 'heidi-secret' })).error?.code, 'email_not_confirmed');
  });

  it('lists users page by page with the total and a Link header', async () => {
    for (const n of [1, 2, 3]) await admin.auth.admin.createUser({ email: `page${n}@example.com`, password: 'page-secret', email_confirm: true });
    const first = await admin.auth.admin.listUsers({ page: 1, perPage: 2 });
    assert.ok(first.error === null && 'total' in first.data);
    const data = first.data;
    assert.equal(data.users.length, 2);
    assert.equal(data.total, 6); // plain, grace, heidi and the three above
    assert.equal(data.nextPage, 2);
    assert.equal(data.lastPage, 3);
    const last = await admin.auth.admin.listUsers({ page: 3, perPage: 2 });
    assert.ok(last.error === null && 'nextPage' in last.data);
    assert.equal(last.data.users.length, 2);
    assert.equal(last.data.nextPage, null);
    const all = await admin.auth.admin.listUsers();
    assert.equal(new Set(all.data.users.map((u) => u.id)).size, 6);
  });

  it('gets, updates (password, metadata, ban) and deletes a user', async () => {
    const created = (await admin.auth.admin.createUser({ email: 'ivan@example.com', password: 'ivan-secret', email_confirm: true })).data.user!;
    const fetched = await admin.auth.admin.getUserById(created.id);
    assert.equal(fetched.data.user?.email, 'ivan@example.com');
    const missing = await admin.auth.admin.getUserById('00000000-0000-4000-8000-000000000000');
    assert.equal(missing.error?.status, 404);
    assert.equal(missing.error?.code, 'user_not_found');

    const session = await anon().auth.signInWithPassword({ email: 'ivan@example.com', password: 'ivan-secret' });
    const updated = await admin.auth.admin.updateUserById(created.id, { password: 'ivan-new-secret', user_metadata: { level: 2 }, ban_duration: '24h' });
    assert.equal(updated.error, null);
    assert.deepEqual(updated.data.user?.user_metadata, { level: 2 });
    assert.ok(updated.data.user?.banned_until);
    assert.equal((await anon().auth.signInWithPassword({ email: 'ivan@example.com', password: 'ivan-new-secret' })).error?.code, 'user_banned');
    assert.ok((await anon().auth.refreshSession({ refresh_token: session.data.session!.refresh_token })).error, 'a ban ends existing sessions');
    await admin.auth.admin.updateUserById(created.id, { ban_duration: 'none' });
    assert.equal((await anon().auth.signInWithPassword({ email: 'ivan@example.com', password: 'ivan-new-secret' })).error, null);
    const bad = await admin.auth.admin.updateUserById(created.id, { ban_duration: 'forever' });
    assert.equal(bad.error?.status, 400);

    assert.equal((await admin.auth.admin.deleteUser(created.id)).error, null);
    assert.equal((await admin.auth.admin.getUserById(created.id)).error?.code, 'user_not_found');
    assert.equal((await admin.auth.admin.deleteUser(created.id)).error?.status, 404);
  });

  it('generates links without sending mail, and invites by mail', async () => {
    const link = await admin.auth.admin.generateLink({ type: 'magiclink', email: 'grace@example.com' });
    assert.equal(link.error, null);
    assert.equal(link.data.properties?.verification_type, 'magiclink');
    assert.match(link.data.properties!.email_otp, /^\d{6}$/);
    assert.match(link.data.properties!.action_link, /\/auth\/v1\/verify\?token=[0-9a-f]{64}&type=magiclink&redirect_to=/);
    const signedIn = await anon().auth.verifyOtp({ token_hash: link.data.properties!.hashed_token, type: 'magiclink' });
    assert.equal(signedIn.data.user?.email, 'grace@example.com');

    const signup = await admin.auth.admin.generateLink({ type: 'signup', email: 'judy@example.com', password: 'judy-secret' });
    assert.equal(signup.data.user?.email, 'judy@example.com');
    assert.equal((await anon().auth.verifyOtp({ email: 'judy@example.com', token: signup.data.properties!.email_otp, type: 'signup' })).error, null);

    const invited = await admin.auth.admin.inviteUserByEmail('kim@example.com', { data: { invited_by: 'grace' } });
    assert.equal(invited.error, null);
    assert.ok(invited.data.user?.invited_at);
    const mail = await smtp.waitFor('kim@example.com', 'You have been invited');
    const accepted = await anon().auth.verifyOtp({ email: 'kim@example.com', token: mail.code!, type: 'invite' });
    assert.equal(accepted.error, null);
    assert.deepEqual(accepted.data.user?.user_metadata, { invited_by: 'grace' });
    assert.equal((await admin.auth.admin.inviteUserByEmail('kim@example.com')).error?.code, 'email_exists');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(smtp.mails.filter((m) => m.to.includes('grace@example.com') || m.to.includes('judy@example.com')).length, 0, 'generate_link sends nothing');
  });
});
