// The captcha hook against a real siteverify server on 127.0.0.1.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('identity: captcha', () => {
  let p: TestPlatform;
  let verifier: http.Server;
  const seen: URLSearchParams[] = [];
  before(async () => {
    verifier = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        seen.push(form);
        const ok = form.get('secret') === 'captcha-secret' && form.get('response') === 'human';
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(ok ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] }));
      });
    });
    await new Promise<void>((r) => verifier.listen(0, '127.0.0.1', () => r()));
    const port = (verifier.address() as { port: number }).port;
    p = await startTestPlatform({ WORKER: 'off', AUTH_BCRYPT_COST: '4', AUTH_CAPTCHA_PROVIDER: 'hcaptcha', AUTH_CAPTCHA_SECRET: 'captcha-secret', AUTH_CAPTCHA_VERIFY_URL: `http://127.0.0.1:${port}/siteverify` });
  });
  after(async () => {
    await stopTestPlatform(p);
    await new Promise((r) => verifier.close(r));
  });

  it('lets a request with a passing captcha token through, as supabase-js sends it', async () => {
    const c = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const up = await c.auth.signUp({ email: 'human@example.com', password: 'human-secret', options: { captchaToken: 'human' } });
    assert.equal(up.error, null);
    assert.equal(seen.at(-1)?.get('response'), 'human');
    const inn = await c.auth.signInWithPassword({ email: 'human@example.com', password: 'human-secret', options: { captchaToken: 'human' } });
    assert.equal(inn.error, null);
  });

  it('refuses a missing or failing token with 400 captcha_failed, before doing anything', async () => {
    const c = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const missing = await c.auth.signUp({ email: 'bot@example.com', password: 'bot-secret' });
    assert.equal(missing.error?.code, 'captcha_failed');
    assert.equal(missing.error?.status, 400);
    const failing = await c.auth.signInWithPassword({ email: 'human@example.com', password: 'human-secret', options: { captchaToken: 'robot' } });
    assert.equal(failing.error?.code, 'captcha_failed');
    assert.match(failing.error!.message, /invalid-input-response/);
    const recover = await c.auth.resetPasswordForEmail('human@example.com', { captchaToken: 'robot' });
    assert.equal(recover.error?.code, 'captcha_failed');
    const { rows } = await p.adminPool.query(`select count(*)::int as n from auth.users where email = 'bot@example.com'`);
    assert.deepEqual(rows, [{ n: 0 }]);
  });

  it('does not ask for a captcha on refresh', async () => {
    const c = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const { data } = await c.auth.signInWithPassword({ email: 'human@example.com', password: 'human-secret', options: { captchaToken: 'human' } });
    assert.equal((await c.auth.refreshSession({ refresh_token: data.session!.refresh_token })).error, null);
  });
});
