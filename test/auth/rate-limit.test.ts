import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('identity: rate limits', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', AUTH_RATE_LIMIT_SIGN_IN: '3/60', AUTH_RATE_LIMIT_EMAIL: '2/60', AUTH_BCRYPT_COST: '4' });
  });
  after(async () => stopTestPlatform(p));

  const post = (path: string, body: object, headers: Record<string, string> = {}) =>
    fetch(`${p.url}/auth/v1${path}`, { method: 'POST', headers: { apikey: p.keys.anonKey, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('answers sign-in attempts past the limit with 429 over_request_rate_limit, per endpoint', async () => {
    const attempt = () => post('/token?grant_type=password', { email: 'x@example.com', password: 'wrong-pass' });
    for (let i = 0; i < 3; i++) assert.equal((await attempt()).status, 400);
    const limited = await attempt();
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.deepEqual(await limited.json(), { code: 429, error_code: 'over_request_rate_limit', msg: 'Request rate limit reached' });
    assert.equal((await post('/signup', { email: 'fresh@example.com', password: 'fresh-secret' })).status, 200, 'other endpoints keep their own budget');
  });

  it('limits e-mail sending (otp, recovery, resend) together, with GoTrue’s e-mail code', async () => {
    assert.equal((await post('/recover', { email: 'a@example.com' })).status, 200);
    assert.equal((await post('/otp', { email: 'b@example.com', create_user: false })).status, 200);
    const limited = await post('/recover', { email: 'c@example.com' });
    assert.equal(limited.status, 429);
    assert.equal(((await limited.json()) as { error_code: string }).error_code, 'over_email_send_rate_limit');
  });
});
