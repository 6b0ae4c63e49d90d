// The control plane's auth users, with platform tokens from `npm run platform-token`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { signPlatformToken } from '../../server/keys.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const PLATFORM_SECRET = randomBytes(32).toString('hex');

describe('control plane: auth users', () => {
  let p: TestPlatform;
  let token: string;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', PLATFORM_JWT_SECRET: PLATFORM_SECRET, PROJECT_REF: 'acme', AUTH_BCRYPT_COST: '4' });
    const cli = spawnSync('npm', ['run', '-s', 'platform-token', '--', '--email', 'ops@example.com', '--refs', 'acme,other', '--expires-in', '1h'], {
      env: { ...process.env, PLATFORM_JWT_SECRET: PLATFORM_SECRET, JWT_SECRET: p.keys.jwtSecret, PROJECT_REF: 'acme' },
      encoding: 'utf8',
    });
    assert.equal(cli.status, 0, cli.stderr);
    token = cli.stdout.trim();
  });
  after(async () => stopTestPlatform(p));

  const call = (path: string, auth: string | undefined, init: RequestInit = {}) =>
    fetch(`${p.platformUrl}/api/platform${path}`, { ...init, headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) } });

  it('creates and lists users with a platform token', async () => {
    const created = await call('/auth/acme/users', token, { method: 'POST', body: JSON.stringify({ email: 'Op.Made@example.com', password: 'made-secret' }) });
    assert.equal(created.status, 201);
    const user = (await created.json()) as { id: string; email: string; email_confirmed_at?: string };
    assert.equal(user.email, 'op.made@example.com');
    assert.ok(user.email_confirmed_at);
    const listed = await call('/auth/acme/users', token);
    assert.equal(listed.status, 200);
    const body = (await listed.json()) as { users: Array<{ id: string }>; total: number };
    assert.equal(body.total, 1);
    assert.equal(body.users[0]!.id, user.id);
    // The created user can sign in through the project API.
    const signIn = await fetch(`${p.url}/auth/v1/token?grant_type=password`, { method: 'POST', headers: { apikey: p.keys.anonKey, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'op.made@example.com', password: 'made-secret' }) });
    assert.equal(signIn.status, 200);
  });

  it('refuses the service-role key, a missing token and a forged one with 401 unauthorized', async () => {
    for (const auth of [p.keys.serviceRoleKey, undefined, await signPlatformToken(randomBytes(32).toString('hex'), 'ops@example.com', ['acme'], 60)]) {
      const res = await call('/auth/acme/users', auth);
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { code: 'unauthorized', message: 'A valid platform token is required' });
    }
    const expired = await signPlatformToken(PLATFORM_SECRET, 'ops@example.com', ['acme'], -10);
    assert.equal((await call('/auth/acme/users', expired)).status, 401);
  });

  it('keeps a token to the projects it lists', async () => {
    const narrow = await signPlatformToken(PLATFORM_SECRET, 'ops@example.com', ['other'], 60);
    assert.equal((await call('/auth/acme/users', narrow)).status, 403);
    assert.equal((await call('/auth/other/users', token)).status, 404, 'listed, but not a project of this server');
  });

  it('validates the new user', async () => {
    const res = await call('/auth/acme/users', token, { method: 'POST', body: JSON.stringify({ email: 'x@example.com', password: '1' }) });
    assert.equal(res.status, 400);
  });
});
