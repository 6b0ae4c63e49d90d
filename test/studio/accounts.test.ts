// The Studio's operators and sessions on the control plane (issue 45, item 1):
// the one-time setup link the start prints, sign-in with a session cookie
// (HttpOnly, SameSite=Strict), CSRF on every change, sign-in limits per
// e-mail and per address, sign-out ending the session in the database,
// invites, the CLI, the audit log; project keys refused and platform tokens
// kept for scripts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { signPlatformToken } from '../../server/keys.ts';
import { signUp } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { OPERATOR_PASSWORD, sessionCookie, signInOperator, type Operator } from '../helpers/studio.ts';

describe('Studio operators and sessions', () => {
  let p: TestPlatform;
  let first: Operator;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${p.platformUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', STUDIO_SIGN_IN_RATE: '40/300' });
  });
  after(() => stopTestPlatform(p));

  it('prints a one-time setup link on a fresh data directory, and the first operator is made through it once', async () => {
    assert.match(p.setupUrl ?? '', /\/setup#[A-Za-z0-9_-]{40,}$/);
    assert.match(p.logs(), /Studio: no operator yet\. Create the first one at/);
    const state = await (await fetch(`${p.platformUrl}/api/platform/studio/state`)).json() as { setup_needed: boolean; operator: unknown; project: unknown };
    assert.deepEqual(state, { setup_needed: true, operator: null, csrf_token: null, project: null });
    const wrong = await post('/api/platform/studio/setup', { token: 'x'.repeat(43), email: 'first-operator@example.com', password: OPERATOR_PASSWORD });
    assert.deepEqual([wrong.status, ((await wrong.json()) as { code: string }).code], [403, 'setup_closed']);

    const token = new URL(p.setupUrl!).hash.slice(1);
    const made = await post('/api/platform/studio/setup', { token, email: 'First-Operator@Example.com', password: OPERATOR_PASSWORD });
    assert.equal(made.status, 200);
    const cookie = made.headers.getSetCookie().find((c) => c.startsWith('pgbase_studio='))!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/, 'not over plain http');
    const body = (await made.json()) as { operator: { email: string }; csrf_token: string; project: Record<string, string> };
    assert.equal(body.operator.email, 'first-operator@example.com');
    first = { ...(await signInOperator(p, 'first-operator@example.com')) };
    const again = await post('/api/platform/studio/setup', { token, email: 'second@example.com', password: OPERATOR_PASSWORD });
    assert.equal(again.status, 403, 'the link works once');
  });

  it('answers the project\'s public face to a session, never the service key or the JWT secret', async () => {
    const state = await first.json<{ operator: { email: string }; csrf_token: string; project: Record<string, string> }>('/api/platform/studio/state', 200);
    assert.equal(state.operator.email, 'first-operator@example.com');
    assert.equal(state.csrf_token, first.csrf);
    assert.deepEqual(Object.keys(state.project).sort(), ['anon_key', 'api_url', 'platform_url', 'ref']);
    const text = JSON.stringify(state);
    assert.ok(!text.includes(p.keys.serviceRoleKey) && !text.includes(p.keys.jwtSecret));
  });

  it('needs the CSRF token on every change made with a session cookie', async () => {
    const without = await fetch(`${p.platformUrl}/api/platform/studio/snippets`, { method: 'POST', headers: { cookie: first.cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x', sql: 'select 1' }) });
    assert.deepEqual([without.status, ((await without.json()) as { code: string }).code], [403, 'csrf_failed']);
    const forged = await fetch(`${p.platformUrl}/api/platform/studio/snippets`, { method: 'POST', headers: { cookie: first.cookie, 'x-csrf-token': `${first.csrf.slice(0, -2)}AA`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x', sql: 'select 1' }) });
    assert.equal(forged.status, 403);
    await first.json('/api/platform/studio/snippets', 201, { method: 'POST', body: { name: 'x', sql: 'select 1' } });
    assert.equal((await first.call('/api/platform/pg-meta/default/tables')).status, 200, 'reads need no CSRF token');
  });

  it('refuses project keys and user tokens; takes a platform token for scripts, without CSRF', async () => {
    const user = await signUp(p, 'plain-user@example.com');
    for (const bearer of [p.keys.anonKey, p.keys.serviceRoleKey, user.access_token]) {
      const res = await fetch(`${p.platformUrl}/api/platform/pg-meta/default/tables`, { headers: { authorization: `Bearer ${bearer}`, apikey: bearer } });
      assert.deepEqual([res.status, await res.json()], [401, { code: 'unauthorized', message: 'A valid platform token is required' }]);
    }
    assert.equal((await fetch(`${p.platformUrl}/api/platform/pg-meta/default/tables`)).status, 401, 'no credentials');
    const token = await signPlatformToken(p.keys.platformSecret, 'script@example.com', ['default'], 60);
    const created = await fetch(`${p.platformUrl}/api/platform/pg-meta/default/query`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'select 41 + 1 as answer' }) });
    assert.equal(created.status, 200, await created.clone().text());
    assert.deepEqual(((await created.json()) as { rows: unknown[][] }).rows, [[42]]);
  });

  it('refuses a wrong password, then locks the e-mail after ten failures, right password or not', async () => {
    await signInOperator(p, 'first-operator@example.com');
    const wrong = await post('/api/platform/studio/sign-in', { email: 'first-operator@example.com', password: 'not-it' });
    assert.deepEqual([wrong.status, await wrong.json()], [401, { code: 'invalid_credentials', message: 'Wrong e-mail or password' }]);
    assert.equal(wrong.headers.getSetCookie().length, 0, 'no cookie for a failure');
    const unknown = await post('/api/platform/studio/sign-in', { email: 'nobody@example.com', password: 'not-it' });
    assert.equal(unknown.status, 401, 'an unknown e-mail reads the same');
    for (let i = 0; i < 9; i++) await post('/api/platform/studio/sign-in', { email: 'first-operator@example.com', password: 'not-it' });
    const locked = await post('/api/platform/studio/sign-in', { email: 'first-operator@example.com', password: OPERATOR_PASSWORD });
    assert.equal(locked.status, 429);
    assert.equal(((await locked.json()) as { code: string }).code, 'too_many_attempts');
    assert.ok(Number(locked.headers.get('retry-after')) > 0);
    await p.adminPool.query('delete from studio.sign_in_failures');
  });

  it('ends the session in the database on sign-out', async () => {
    await p.adminPool.query('delete from studio.sign_in_failures');
    const live = async () => (await p.adminPool.query<{ n: number }>('select count(*)::int as n from studio.sessions where ended_at is null')).rows[0]!.n;
    const before = await live();
    const out = await first.call('/api/platform/studio/sign-out', { method: 'POST' });
    assert.equal(out.status, 200);
    assert.match(out.headers.getSetCookie()[0] ?? '', /pgbase_studio=;.*Max-Age=0/i);
    assert.equal((await first.call('/api/platform/pg-meta/default/tables')).status, 401, 'the old cookie is dead');
    assert.equal(await live(), before - 1, 'its row says it ended');
  });

  it('invites an operator, whose link works once, and records who did what', async () => {
    const cli = spawnSync('npm', ['run', '-s', 'studio-operator', '--', '--email', 'scripted@example.com', '--password', 'scripted-password'], {
      env: { ...process.env, DATABASE_URL: p.config.DATABASE_URL!, JWT_SECRET: p.keys.jwtSecret, DATA_DIR: p.config.dataDir }, encoding: 'utf8',
    });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /Created operator scripted@example\.com/);
    const again = spawnSync('npm', ['run', '-s', 'studio-operator', '--', '--email', 'scripted@example.com'], {
      env: { ...process.env, DATABASE_URL: p.config.DATABASE_URL!, JWT_SECRET: p.keys.jwtSecret, DATA_DIR: p.config.dataDir }, encoding: 'utf8',
    });
    assert.equal(again.status, 0, again.stderr);
    const reset = /password: (\S+)/.exec(again.stdout)?.[1];
    assert.ok(reset, 'a new password, printed once');
    await signInOperator(p, 'scripted@example.com', reset);

    const ops = await signInOperator(p, 'first-operator@example.com');
    const invite = await ops.json<{ invite_url: string; email: string }>('/api/platform/studio/invites', 201, { method: 'POST', body: { email: 'Invited@Example.com' } });
    assert.equal(invite.email, 'invited@example.com');
    assert.match(invite.invite_url, new RegExp(`^${p.platformUrl}/invite#[A-Za-z0-9_-]{40,}$`));
    const token = new URL(invite.invite_url).hash.slice(1);
    const accepted = await post('/api/platform/studio/invites/accept', { token, password: 'invited-password' });
    assert.equal(accepted.status, 200);
    sessionCookie(accepted);
    assert.equal((await post('/api/platform/studio/invites/accept', { token, password: 'another-password' })).status, 403, 'once');
    const operators = await ops.json<Array<{ email: string; invited_by: string | null }>>('/api/platform/studio/operators', 200);
    assert.deepEqual(operators.map((o) => [o.email, o.invited_by]), [['first-operator@example.com', null], ['scripted@example.com', null], ['invited@example.com', 'first-operator@example.com']]);
    const log = await ops.json<Array<{ operator_email: string; action: string; target: string | null }>>('/api/platform/studio/audit', 200);
    const actions = log.map((l) => `${l.operator_email} ${l.action}${l.target ? ` ${l.target}` : ''}`);
    for (const expected of ['first-operator@example.com create_first_operator first-operator@example.com', 'first-operator@example.com sign_out', 'cli create_operator scripted@example.com', 'cli reset_password scripted@example.com', 'first-operator@example.com invite_operator invited@example.com', 'invited@example.com accept_invite invited@example.com']) {
      assert.ok(actions.includes(expected), `${expected} in ${JSON.stringify(actions)}`);
    }
  });

  it('limits sign-in attempts per address (STUDIO_SIGN_IN_RATE)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await post('/api/platform/studio/sign-in', { email: `x${i}@example.com`, password: 'nope' })).status);
    assert.ok(statuses.includes(429), 'the address was limited');
    const last = await post('/api/platform/studio/sign-in', { email: 'first-operator@example.com', password: OPERATOR_PASSWORD });
    assert.equal(last.status, 429);
    assert.match(((await last.json()) as { message: string }).message, /from this address/);
  });
});

describe('STUDIO=off', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', STUDIO: 'off' });
  });
  after(() => stopTestPlatform(p));

  it('serves no Studio, makes no setup link, and opens the control plane to platform tokens only', async () => {
    assert.equal(p.setupUrl, null, 'no setup link printed');
    const page = await fetch(`${p.platformUrl}/`);
    assert.equal(page.status, 404);
    assert.equal((await fetch(`${p.platformUrl}/tables/public`)).status, 404);
    const signIn = await fetch(`${p.platformUrl}/api/platform/studio/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password: OPERATOR_PASSWORD }) });
    assert.equal(signIn.status, 404);
    // A session made before the Studio was turned off opens nothing now.
    await p.adminPool.query("select studio.set_password('ops@example.com', $1)", [OPERATOR_PASSWORD]);
    const token = 'a-session-token-made-while-the-studio-was-on';
    await p.adminPool.query("select * from studio.sign_in('ops@example.com', $1, '127.0.0.1', 'test', sha256(convert_to($2, 'utf8')))", [OPERATOR_PASSWORD, token]);
    assert.equal((await fetch(`${p.platformUrl}/api/platform/pg-meta/default/tables`, { headers: { cookie: `pgbase_studio=${token}` } })).status, 401);
    const bearer = await signPlatformToken(p.keys.platformSecret, 'script@example.com', ['default'], 60);
    assert.equal((await fetch(`${p.platformUrl}/api/platform/pg-meta/default/tables`, { headers: { authorization: `Bearer ${bearer}` } })).status, 200);
  });
});
