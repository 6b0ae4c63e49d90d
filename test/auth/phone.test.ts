// Phone sign-up, SMS one-time codes and number changes through supabase-js,
// with the SMS read from a Twilio-compatible API served on 127.0.0.1.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Sms = { to: string; body: string; service: string };

describe('identity: phone and SMS', () => {
  let p: TestPlatform;
  let twilio: http.Server;
  const inbox: Sms[] = [];
  const client = (): SupabaseClient => createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
  async function smsTo(to: string): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const at = inbox.findIndex((m) => m.to === to);
      if (at >= 0) return /(\d{6})/.exec(inbox.splice(at, 1)[0]!.body)![1]!;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no SMS to ${to}`);
  }

  before(async () => {
    twilio = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const authorized = req.headers.authorization === `Basic ${Buffer.from('AC123:twilio-token').toString('base64')}`;
        if (!authorized || req.url !== '/2010-04-01/Accounts/AC123/Messages.json') {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 20003, message: 'Authenticate' }));
          return;
        }
        const form = new URLSearchParams(raw);
        inbox.push({ to: form.get('To')!, body: form.get('Body')!, service: form.get('MessagingServiceSid')! });
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid: `SM${inbox.length}`, status: 'queued' }));
      });
    });
    await new Promise<void>((r) => twilio.listen(0, '127.0.0.1', () => r()));
    p = await startTestPlatform({
      AUTH_BCRYPT_COST: '4',
      AUTH_SMS_PROVIDER: 'twilio',
      AUTH_SMS_TWILIO_ACCOUNT_SID: 'AC123',
      AUTH_SMS_TWILIO_AUTH_TOKEN: 'twilio-token',
      AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: 'MG456',
      AUTH_SMS_TWILIO_API_URL: `http://127.0.0.1:${(twilio.address() as { port: number }).port}`,
    });
  });
  after(async () => {
    await stopTestPlatform(p);
    await new Promise((r) => twilio.close(r));
  });

  it('signs up by phone, confirms with the texted code, then signs in with the password', async () => {
    const up = await client().auth.signUp({ phone: '+1 (555) 010-0001', password: 'phone-secret' });
    assert.equal(up.error, null);
    assert.equal(up.data.session, null, 'phone sign-ups wait for the code (AUTH_SMS_AUTOCONFIRM off)');
    assert.equal(up.data.user?.phone, '15550100001');
    const code = await smsTo('+15550100001');
    assert.equal((await client().auth.signInWithPassword({ phone: '+15550100001', password: 'phone-secret' })).error?.code, 'phone_not_confirmed');
    const verified = await client().auth.verifyOtp({ phone: '+15550100001', token: code, type: 'sms' });
    assert.equal(verified.error, null);
    assert.ok(verified.data.user?.phone_confirmed_at);
    assert.deepEqual(verified.data.user?.app_metadata, { provider: 'phone', providers: ['phone'] });
    assert.equal((await client().auth.signInWithPassword({ phone: '+15550100001', password: 'phone-secret' })).error, null);
    const { rows } = await p.adminPool.query(`select transport, body_text, provider_message_id from platform.sms_outbox`);
    assert.equal(rows[0].transport, 'twilio');
    assert.equal(rows[0].body_text, '', 'sent codes are not kept');
  });

  it('signs in with a texted code, and says nothing about unknown numbers', async () => {
    assert.equal((await client().auth.signInWithOtp({ phone: '+15550100001' })).error, null);
    const code = await smsTo('+15550100001');
    const wrong = await client().auth.verifyOtp({ phone: '+15550100001', token: code === '123456' ? '654321' : '123456', type: 'sms' });
    assert.equal(wrong.error?.code, 'otp_expired');
    const session = await client().auth.verifyOtp({ phone: '+15550100001', token: code, type: 'sms' });
    assert.equal(session.error, null);
    assert.equal(session.data.user?.phone, '15550100001');

    assert.equal((await client().auth.signInWithOtp({ phone: '+15550109999', options: { shouldCreateUser: false } })).error, null);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(inbox.filter((m) => m.to === '+15550109999').length, 0);
  });

  it('changes the number once the new one confirms', async () => {
    const c = client();
    const { data } = await c.auth.signInWithPassword({ phone: '+15550100001', password: 'phone-secret' });
    await c.auth.setSession(data.session!);
    const change = await c.auth.updateUser({ phone: '+15550100002' });
    assert.equal(change.error, null);
    const code = await smsTo('+15550100002');
    const done = await client().auth.verifyOtp({ phone: '+15550100002', token: code, type: 'phone_change' });
    assert.equal(done.error, null);
    assert.equal(done.data.user?.phone, '15550100002');
  });

  it('refuses numbers that are not E.164', async () => {
    const bad = await client().auth.signUp({ phone: '12', password: 'phone-secret' });
    assert.equal(bad.error?.status, 400);
    assert.equal(bad.error?.code, 'validation_failed');
  });
});

describe('identity: phone without an SMS provider', () => {
  it('answers phone requests with phone_provider_disabled', async () => {
    const p = await startTestPlatform({ WORKER: 'off', AUTH_BCRYPT_COST: '4' });
    try {
      const c = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
      assert.equal((await c.auth.signUp({ phone: '+15550100003', password: 'phone-secret' })).error?.code, 'phone_provider_disabled');
      assert.equal((await c.auth.signInWithOtp({ phone: '+15550100003' })).error?.code, 'phone_provider_disabled');
    } finally {
      await stopTestPlatform(p);
    }
  });
});
