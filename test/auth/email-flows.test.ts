// Confirmation, magic link, OTP, recovery, e-mail change and PKCE, through
// supabase-js, with the mail read from a real SMTP server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthApiError, createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startSmtpSink } from '../helpers/smtp.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const SITE = 'http://app.example.test';

describe('identity: e-mail flows', () => {
  let p: TestPlatform;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  const client = (flowType: 'implicit' | 'pkce' = 'implicit'): SupabaseClient =>
    createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType } });

  before(async () => {
    smtp = await startSmtpSink();
    p = await startTestPlatform({ AUTH_AUTOCONFIRM: 'false', SMTP_URL: smtp.url, SITE_URL: SITE, AUTH_REDIRECT_ALLOW_LIST: 'http://*.allowed.test/**', AUTH_BCRYPT_COST: '4' });
  });
  after(async () => {
    await stopTestPlatform(p);
    await smtp.stop();
  });

  it('with autoconfirm off, sign-up returns the user only and mails a code that confirms it', async () => {
    const { data, error } = await client().auth.signUp({ email: 'carol@example.com', password: 'carol-secret' });
    assert.equal(error, null);
    assert.equal(data.session, null);
    assert.equal(data.user?.email, 'carol@example.com');
    assert.equal(data.user?.email_confirmed_at, undefined);
    const mail = await smtp.waitFor('carol@example.com', 'Confirm your signup');
    assert.ok(mail.link?.startsWith(`${p.url.replace('127.0.0.1', 'localhost')}/auth/v1/verify?token=`) || mail.link?.includes('/auth/v1/verify?token='));
    assert.match(mail.code!, /^\d{6}$/);

    const early = await client().auth.signInWithPassword({ email: 'carol@example.com', password: 'carol-secret' });
    assert.equal(early.error?.code, 'email_not_confirmed');

    const wrong = await client().auth.verifyOtp({ email: 'carol@example.com', token: mail.code === '000000' ? '111111' : '000000', type: 'signup' });
    assert.ok(wrong.error instanceof AuthApiError);
    assert.equal(wrong.error.status, 403);
    assert.equal(wrong.error.code, 'otp_expired');

    const verified = await client().auth.verifyOtp({ email: 'carol@example.com', token: mail.code!, type: 'signup' });
    assert.equal(verified.error, null);
    assert.ok(verified.data.session?.access_token);
    assert.ok(verified.data.user?.email_confirmed_at);
    const again = await client().auth.verifyOtp({ email: 'carol@example.com', token: mail.code!, type: 'signup' });
    assert.equal(again.error?.code, 'otp_expired', 'a code works once');
    assert.equal((await client().auth.signInWithPassword({ email: 'carol@example.com', password: 'carol-secret' })).error, null);
  });

  it('the e-mailed link signs in at the redirect target, with tokens in the fragment; a used link reports the error there', async () => {
    await client().auth.signUp({ email: 'dave@example.com', password: 'dave-secret' }, );
    const mail = await smtp.waitFor('dave@example.com', 'Confirm your signup');
    const link = new URL(mail.link!);
    assert.equal(link.origin, new URL(p.config.apiUrl).origin, 'links are built from API_EXTERNAL_URL, not the Host header');
    const local = `${p.url}${link.pathname}${link.search}`;
    const res = await fetch(local, { redirect: 'manual' });
    assert.equal(res.status, 303);
    const location = new URL(res.headers.get('location')!);
    assert.equal(location.origin, SITE);
    const fragment = new URLSearchParams(location.hash.slice(1));
    assert.equal(fragment.get('token_type'), 'bearer');
    assert.equal(fragment.get('type'), 'signup');
    const me = await client().auth.getUser(fragment.get('access_token')!);
    assert.equal(me.data.user?.email, 'dave@example.com');

    const reused = await fetch(local, { redirect: 'manual' });
    const failed = new URLSearchParams(new URL(reused.headers.get('location')!).hash.slice(1));
    assert.equal(failed.get('error'), 'access_denied');
    assert.equal(failed.get('error_code'), 'otp_expired');
  });

  it('sends a magic link to a known address, creates users only when asked, and never tells which addresses exist', async () => {
    assert.equal((await client().auth.signInWithOtp({ email: 'carol@example.com', options: { emailRedirectTo: 'http://shop.allowed.test/welcome' } })).error, null);
    const mail = await smtp.waitFor('carol@example.com', 'Your Magic Link');
    assert.equal(new URL(mail.link!).searchParams.get('redirect_to'), 'http://shop.allowed.test/welcome', 'an allowed redirect is kept');
    const session = await client().auth.verifyOtp({ email: 'carol@example.com', token: mail.code!, type: 'email' });
    assert.equal(session.error, null);
    assert.ok(session.data.session);

    const unknown = await client().auth.signInWithOtp({ email: 'ghost@example.com', options: { shouldCreateUser: false } });
    assert.equal(unknown.error, null, 'same answer as for a known address');
    const created = await client().auth.signInWithOtp({ email: 'erin@example.com', options: { data: { team: 'blue' }, emailRedirectTo: 'http://evil.test/steal' } });
    assert.equal(created.error, null);
    const welcome = await smtp.waitFor('erin@example.com', 'Confirm your signup');
    assert.equal(new URL(welcome.link!).searchParams.get('redirect_to'), SITE, 'a redirect outside the allow-list falls back to SITE_URL');
    const erin = await client().auth.verifyOtp({ email: 'erin@example.com', token: welcome.code!, type: 'email' });
    assert.deepEqual(erin.data.user?.user_metadata, { team: 'blue' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(smtp.mails.filter((m) => m.to.includes('ghost@example.com')).length, 0);
  });

  it('recovers a password: always 200, a link for known addresses, then PUT /user sets the new password', async () => {
    assert.equal((await client().auth.resetPasswordForEmail('nobody@example.com')).error, null);
    assert.equal((await client().auth.resetPasswordForEmail('carol@example.com')).error, null);
    const mail = await smtp.waitFor('carol@example.com', 'Reset Your Password');
    const c = client();
    const { data, error } = await c.auth.verifyOtp({ email: 'carol@example.com', token: mail.code!, type: 'recovery' });
    assert.equal(error, null);
    await c.auth.setSession(data.session!);
    const updated = await c.auth.updateUser({ password: 'carol-new-secret', data: { theme: 'dark' } });
    assert.equal(updated.error, null);
    assert.deepEqual(updated.data.user?.user_metadata, { theme: 'dark' });
    assert.equal((await client().auth.signInWithPassword({ email: 'carol@example.com', password: 'carol-secret' })).error?.code, 'invalid_credentials');
    assert.equal((await client().auth.signInWithPassword({ email: 'carol@example.com', password: 'carol-new-secret' })).error, null);
  });

  it('changes the e-mail address once the new address confirms, and resends confirmations', async () => {
    const c = client();
    const { data } = await c.auth.signInWithPassword({ email: 'carol@example.com', password: 'carol-new-secret' });
    await c.auth.setSession(data.session!);
    const change = await c.auth.updateUser({ email: 'carol.new@example.com' });
    assert.equal(change.error, null);
    assert.equal(change.data.user?.new_email, 'carol.new@example.com');
    await smtp.waitFor('carol.new@example.com', 'Confirm Email Change');
    assert.equal((await c.auth.resend({ type: 'email_change', email: 'carol@example.com' })).error, null);
    const mail = await smtp.waitFor('carol.new@example.com', 'Confirm Email Change');
    const done = await client().auth.verifyOtp({ email: 'carol.new@example.com', token: mail.code!, type: 'email_change' });
    assert.equal(done.error, null);
    assert.equal(done.data.user?.email, 'carol.new@example.com');

    await client().auth.signUp({ email: 'frank@example.com', password: 'frank-secret' });
    await smtp.waitFor('frank@example.com', 'Confirm your signup');
    assert.equal((await client().auth.resend({ type: 'signup', email: 'frank@example.com' })).error, null);
    const resent = await smtp.waitFor('frank@example.com', 'Confirm your signup');
    assert.equal((await client().auth.verifyOtp({ email: 'frank@example.com', token: resent.code!, type: 'signup' })).error, null);
  });

  it('runs the PKCE flow: the link returns ?code=, exchanged with the verifier the client kept', async () => {
    const c = client('pkce');
    assert.equal((await c.auth.signInWithOtp({ email: 'frank@example.com' })).error, null);
    const mail = await smtp.waitFor('frank@example.com', 'Your Magic Link');
    const link = new URL(mail.link!);
    assert.match(link.searchParams.get('token')!, /^pkce_[0-9a-f]{64}$/);
    const res = await fetch(`${p.url}${link.pathname}${link.search}`, { redirect: 'manual' });
    assert.equal(res.status, 303);
    const code = new URL(res.headers.get('location')!).searchParams.get('code');
    assert.ok(code);
    const exchanged = await c.auth.exchangeCodeForSession(code);
    assert.equal(exchanged.error, null);
    assert.equal(exchanged.data.user?.email, 'frank@example.com');
    const replay = await client('pkce').auth.exchangeCodeForSession(code);
    assert.ok(replay.error, 'an auth code works once');
  });
});

describe('identity: mail without SMTP', () => {
  it('keeps the message in platform.mail_outbox and logs its link', async () => {
    const p = await startTestPlatform({ AUTH_AUTOCONFIRM: 'false', AUTH_BCRYPT_COST: '4' });
    try {
      const c = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
      await c.auth.signUp({ email: 'local@example.com', password: 'local-secret' });
      let row: { body_text: string; transport: string } | undefined;
      for (let i = 0; i < 100 && !row; i++) {
        row = (await p.adminPool.query(`select body_text, transport from platform.mail_outbox where recipient = 'local@example.com'`)).rows[0];
        if (!row) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(row?.transport, 'log');
      const link = /(http\S+\/auth\/v1\/verify\S+)/.exec(row!.body_text)![1]!;
      // The job stores the message, then logs it: the log line may follow the row by a moment.
      const logged = () => p.logs().includes(link.replaceAll('&', '\\u0026')) || p.logs().includes(link);
      for (let i = 0; i < 100 && !logged(); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(logged(), 'the link is in the log');
      // GoTrue's older /magiclink path behaves as /otp.
      const magic = await fetch(`${p.url}/auth/v1/magiclink`, { method: 'POST', headers: { apikey: p.keys.anonKey, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'magic@example.com' }) });
      assert.equal(magic.status, 200);
      let sent = 0;
      for (let i = 0; i < 100 && sent === 0; i++) {
        sent = (await p.adminPool.query(`select count(*)::int as n from platform.mail_outbox where recipient = 'magic@example.com' and subject = 'Confirm your signup'`)).rows[0].n;
        if (sent === 0) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(sent, 1, 'a new address gets its confirmation through /magiclink');
    } finally {
      await stopTestPlatform(p);
    }
  });
});

describe('identity: mail delivery retries', () => {
  it('retries a mail the SMTP server refused, until it is accepted', async () => {
    const { SMTPServer } = await import('smtp-server');
    let attempts = 0;
    const delivered: string[] = [];
    const server = new SMTPServer({
      authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => {
          attempts++;
          if (attempts === 1) callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          else {
            delivered.push('ok');
            callback();
          }
        });
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.server.address() as { port: number }).port;
    const p = await startTestPlatform({ AUTH_AUTOCONFIRM: 'false', SMTP_URL: `smtp://127.0.0.1:${port}`, AUTH_BCRYPT_COST: '4' });
    try {
      const c = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
      await c.auth.signUp({ email: 'retry@example.com', password: 'retry-secret' });
      for (let i = 0; i < 150 && delivered.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(attempts, 2, 'refused once, then delivered by the retry');
      assert.equal(delivered.length, 1);
    } finally {
      await stopTestPlatform(p);
      await new Promise((r) => server.close(() => r(undefined)));
    }
  });
});
