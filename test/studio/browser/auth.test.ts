// Authentication in the Studio, in Chromium: a user created here signs in
// with supabase-js; found by search; their page shows their sign-in and
// session, and their metadata as text however it is made; banned for a day
// (asked first), they cannot sign in; the ban lifted, they can; invited by
// e-mail through the configured SMTP; deleted (asked first); each change in
// the audit log, which the Studio shows. The signing keys rotated from their
// page: an ES256 key added and made in use signs the next sign-in (verified
// by getClaims() through the JWKS); revoked after asking, its tokens stop.
// A publishable API key made there works with supabase-js until deleted.
// An OAuth app registered on its page gets its secret shown once, which
// authenticates it at the token endpoint until regenerated; deleted after
// asking, it authenticates no more.
import { createClient } from '@supabase/supabase-js';
import { decodeProtectedHeader } from 'jose';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StudioPage } from '../../helpers/chromium.ts';
import { query } from '../../helpers/db.ts';
import { startSmtpSink } from '../../helpers/smtp.ts';
import type { StudioServer } from '../../helpers/studio-process.ts';
import { studioSuite } from '../../helpers/studio-suite.ts';

describe('Studio in Chromium: users', () => {
  let server: StudioServer;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let s: StudioPage;
  const dialog = () => s.page.getByRole('dialog');
  const client = () => createClient(server.apiUrl, server.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });

  before(async () => {
    smtp = await startSmtpSink();
  });
  studioSuite({ env: () => ({ SMTP_URL: smtp.url }) }, (run) => ({ server, s } = run));
  after(() => smtp?.stop());

  it('creates a user who then signs in with supabase-js', async () => {
    await s.page.goto('/auth/users');
    await s.page.getByRole('button', { name: 'Create user' }).click();
    await dialog().getByLabel('E-mail').fill('maria@example.com');
    await dialog().getByLabel('Password').fill('marias-password');
    await s.axe('the new user dialog');
    await dialog().getByRole('button', { name: 'Create user' }).click();
    await s.page.getByRole('status').getByText('User maria@example.com created').waitFor();
    await s.page.getByRole('link', { name: 'maria@example.com' }).waitFor();

    const { data, error } = await client().auth.signInWithPassword({ email: 'maria@example.com', password: 'marias-password' });
    assert.equal(error, null);
    assert.equal(data.user?.email, 'maria@example.com');
    const [made] = await query<{ email_confirmed: boolean }>(server.databaseUrl, "select email_confirmed_at is not null as email_confirmed from auth.users where email = 'maria@example.com'");
    assert.equal(made!.email_confirmed, true, 'the operator vouches for the address');
  });

  it('finds a user by search, and shows their sign-in, session and metadata as text', async () => {
    const { error } = await client().auth.signUp({ email: 'other@example.com', password: 'others-password', options: { data: { name: '<img src=x onerror=alert(1)>' } } });
    assert.equal(error, null);
    await s.page.goto('/auth/users');
    await s.page.getByRole('link', { name: 'other@example.com' }).waitFor();
    await s.page.keyboard.press('/');
    assert.equal(await s.page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type), 'search', '/ goes to the search box');
    await s.page.keyboard.type('maria');
    await s.page.keyboard.press('Enter');
    await s.page.waitForURL(/\?q=maria$/);
    await s.page.getByRole('link', { name: 'other@example.com' }).waitFor({ state: 'detached' });
    await s.page.getByText('Page 1 of 1 · 1 users').waitFor();
    await s.axe('the users page');
    await s.shot('auth-users');

    await s.page.getByRole('link', { name: 'maria@example.com' }).click();
    await s.page.getByRole('heading', { level: 1, name: 'maria@example.com' }).waitFor();
    assert.notEqual(await s.page.locator('dt:text("Last sign-in") + dd').textContent(), 'never');
    assert.equal(await s.page.getByRole('table', { name: 'Sessions' }).getByRole('row').count(), 2, 'a header and the session supabase-js opened');

    await s.page.goto('/auth/users?q=other');
    await s.page.getByRole('link', { name: 'other@example.com' }).click();
    await s.page.getByText('"name": "<img src=x onerror=alert(1)>"').waitFor();
    assert.equal(await s.page.locator('img[src="x"]').count(), 0);
    await s.axe('a user page');
    await s.shot('auth-user');
  });

  it('bans a user for a day after asking: they cannot sign in until the ban is lifted', async () => {
    await s.page.goto('/auth/users?q=maria');
    await s.page.getByRole('link', { name: 'maria@example.com' }).click();
    await s.page.getByLabel('Ban for').selectOption('24h');
    await s.page.getByRole('button', { name: 'Ban', exact: true }).click();
    await dialog().getByText('They cannot sign in until the ban ends').waitFor();
    await dialog().getByRole('button', { name: 'Ban', exact: true }).click();
    await s.page.locator('dt:text("Banned until")').waitFor();
    const refused = await client().auth.signInWithPassword({ email: 'maria@example.com', password: 'marias-password' });
    assert.equal(refused.error?.code, 'user_banned');

    await s.page.getByRole('button', { name: 'Lift ban' }).click();
    await s.page.getByRole('status').getByText('Ban lifted').waitFor();
    assert.equal((await client().auth.signInWithPassword({ email: 'maria@example.com', password: 'marias-password' })).error, null);
  });

  it('invites a user by e-mail through the configured SMTP', async () => {
    await s.page.goto('/auth/users');
    await s.page.getByRole('button', { name: 'Invite user' }).click();
    await dialog().getByLabel('E-mail').fill('invited@example.com');
    await dialog().getByRole('button', { name: 'Send invite' }).click();
    await s.page.getByRole('status').getByText('Invite sent to invited@example.com').waitFor();
    const mail = await smtp.waitFor('invited@example.com', "You have been invited");
    assert.match(mail.link!, /\/auth\/v1\/verify\?token=[\w-]+&type=invite/);
  });

  it('deletes a user after asking, and the audit log shows who did what', async () => {
    await s.page.goto('/auth/users?q=other');
    await s.page.getByRole('link', { name: 'other@example.com' }).click();
    await s.page.getByRole('button', { name: 'Delete user' }).click();
    await dialog().getByRole('button', { name: 'Delete user' }).click();
    await s.page.waitForURL(/\/auth\/users$/);
    await s.page.getByRole('link', { name: 'maria@example.com' }).waitFor();
    assert.equal(await s.page.getByRole('link', { name: 'other@example.com' }).count(), 0);
    assert.equal((await query(server.databaseUrl, "select 1 from auth.users where email = 'other@example.com'")).length, 0);

    await s.page.goto('/settings/audit');
    const log = s.page.getByRole('table', { name: /audit/i });
    for (const action of ['create user', 'ban user', 'unban user', 'invite user', 'delete user']) await log.getByRole('cell', { name: action, exact: true }).first().waitFor();
    const deletion = log.getByRole('row').filter({ has: s.page.getByRole('cell', { name: 'delete user', exact: true }) });
    await deletion.getByRole('cell', { name: 'other@example.com', exact: true }).waitFor();
    await deletion.getByRole('cell', { name: 'first-operator@example.com', exact: true }).waitFor();
    await s.axe('the audit log');
    await s.shot('settings-audit');
  });

  it('rotates the signing keys from their page: a standby ES256 key made in use signs the next session, and revoked it signs everyone out', async () => {
    await s.page.goto('/auth/signing-keys');
    const table = s.page.getByRole('table', { name: 'Signing keys' });
    await table.getByRole('rowheader', { name: 'legacy JWT secret' }).waitFor();
    const addStandby = async () => {
      await s.page.getByRole('button', { name: 'Add a standby key' }).click();
      const row = table.locator('tr[data-status="standby"]');
      await row.waitFor();
      return (await row.getByRole('rowheader').textContent())!;
    };
    const first = await addStandby();
    await s.axe('the signing keys with a standby key');
    await s.page.getByRole('button', { name: `Make ES256 key ${first} in use` }).click();
    await table.locator('tr[data-status="in_use"]').getByRole('rowheader', { name: first }).waitFor();

    const ann = client();
    const { data, error } = await ann.auth.signInWithPassword({ email: 'maria@example.com', password: 'marias-password' });
    assert.equal(error, null);
    const token = data.session!.access_token;
    assert.deepEqual([decodeProtectedHeader(token).alg, decodeProtectedHeader(token).kid], ['ES256', first]);
    assert.equal((await ann.auth.getClaims()).data?.header.kid, first, 'verified through the JWKS');
    const rest = () => fetch(`${server.apiUrl}/auth/v1/user`, { headers: { apikey: server.anonKey, authorization: `Bearer ${token}` } });
    assert.equal((await rest()).status, 200);

    const second = await addStandby();
    await s.page.getByRole('button', { name: `Make ES256 key ${second} in use` }).click();
    await table.locator('tr[data-status="in_use"]').getByRole('rowheader', { name: second }).waitFor();
    assert.equal((await rest()).status, 200, 'a previously used key still verifies');
    await s.page.getByRole('button', { name: `Revoke ES256 key ${first}` }).click();
    await s.axe('the revoke dialog');
    await dialog().getByRole('button', { name: 'Revoke' }).click();
    await table.locator('tr[data-status="revoked"]').getByRole('rowheader', { name: first }).waitFor();
    assert.equal((await rest()).status, 403, 'its tokens stop at once (GoTrue\'s bad_jwt)');
    assert.equal(await s.page.getByRole('button', { name: /^Revoke HS256/ }).count(), 0, 'the legacy secret offers no revoke');
    await s.shot('auth-signing-keys');

    // An API key made, used with supabase-js, deleted after asking: refused from then on.
    await s.page.getByLabel('Name', { exact: true }).fill('web app');
    await s.page.getByLabel('Type').selectOption('publishable');
    await s.page.getByRole('button', { name: 'Make an API key' }).click();
    const made = (await s.page.getByRole('status').filter({ hasText: 'New key:' }).locator('.mono').textContent())!;
    assert.match(made, /^sb_publishable_/);
    const web = createClient(server.apiUrl, made, { auth: { persistSession: false } });
    assert.equal((await web.auth.signInWithPassword({ email: 'maria@example.com', password: 'marias-password' })).error, null);
    const keysTable = s.page.getByRole('table', { name: 'API keys' });
    await keysTable.getByRole('rowheader', { name: 'web app' }).waitFor();
    await s.axe('the API keys');
    await s.page.getByRole('button', { name: 'Delete the API key web app' }).click();
    await dialog().getByRole('button', { name: 'Delete' }).click();
    await keysTable.getByRole('rowheader', { name: 'web app' }).waitFor({ state: 'detached' });
    assert.equal((await fetch(`${server.apiUrl}/auth/v1/settings`, { headers: { apikey: made } })).status, 401);

    // The legacy JWT keys off after asking: refused; back on: they work.
    await s.page.getByRole('button', { name: 'Turn the legacy keys off' }).click();
    await dialog().getByRole('button', { name: 'Turn off' }).click();
    await s.page.getByRole('status').getByText('Legacy anon and service_role keys (JWTs): off').waitFor();
    assert.equal((await fetch(`${server.apiUrl}/auth/v1/settings`, { headers: { apikey: server.anonKey } })).status, 401);
    await s.axe('the keys with the legacy keys off');
    await s.page.getByRole('button', { name: 'Turn the legacy keys back on' }).click();
    await s.page.getByRole('status').getByText('Legacy anon and service_role keys (JWTs): on').waitFor();
    assert.equal((await fetch(`${server.apiUrl}/auth/v1/settings`, { headers: { apikey: server.anonKey } })).status, 200);
  });

  it('registers an OAuth app: its secret shown once authenticates it, a regenerated one replaces it, and it is deleted after asking', async () => {
    await s.page.goto('/auth/oauth-apps');
    await s.page.getByText('No OAuth apps yet.').waitFor();
    await s.page.getByLabel('Name').fill('Reports <b>server</b>');
    await s.page.getByLabel('Redirect URIs, one per line').fill('https://reports.example/callback\nhttp://localhost:8080/cb');
    await s.page.getByRole('button', { name: 'Register the app' }).click();
    const table = s.page.getByRole('table', { name: 'OAuth apps' });
    await table.getByRole('rowheader', { name: 'Reports <b>server</b>' }).waitFor();
    const secret = (await s.page.getByRole('status').filter({ hasText: 'shown once' }).locator('.mono').textContent())!;
    assert.match(secret, /^sb_oauth_/);
    const clientId = (await table.getByRole('row').nth(1).locator('td.mono').textContent())!;
    await s.axe('the OAuth apps');
    await s.shot('auth-oauth-apps');
    // The secret authenticates the client at the token endpoint (a made-up code is then the grant's error, not the client's).
    const tokenWith = (pass: string) => fetch(`${server.apiUrl}/auth/v1/oauth/token`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${clientId}:${pass}`).toString('base64')}` }, body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope', code_verifier: 'v'.repeat(43) }) });
    assert.equal(((await (await tokenWith(secret)).json()) as { error: string }).error, 'invalid_grant');
    await s.page.getByRole('button', { name: 'Regenerate the secret of Reports <b>server</b>' }).click();
    const renewed = s.page.getByRole('status').filter({ hasText: 'shown once' }).locator('.mono').filter({ hasNotText: secret });
    await renewed.waitFor();
    const newSecret = (await renewed.textContent())!;
    assert.equal((await tokenWith(secret)).status, 401, 'the old secret stops at once');
    assert.equal((await tokenWith(newSecret)).status, 400, 'the new one authenticates');
    // Bad redirect URIs are refused with the server's words.
    await s.page.getByLabel('Name').fill('Evil');
    await s.page.getByLabel('Redirect URIs, one per line').fill('javascript:alert(1)');
    await s.page.getByRole('button', { name: 'Register the app' }).click();
    await s.page.getByRole('alert').getByText(/may not use javascript:/).waitFor();
    await s.page.getByRole('button', { name: 'Delete Reports <b>server</b>' }).click();
    await dialog().getByRole('button', { name: 'Delete' }).click();
    await s.page.getByText('No OAuth apps yet.').waitFor();
    assert.equal((await tokenWith(newSecret)).status, 401, 'a deleted client authenticates no more');
  });
});
