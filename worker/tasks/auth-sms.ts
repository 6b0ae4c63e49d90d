// auth_send_sms: one-time codes by SMS through Twilio's Messages API (the base
// URL is configuration, so any Twilio-compatible gateway works), or, with
// AUTH_SMS_PROVIDER=log, kept in platform.sms_outbox and logged for local use.
import type { Task } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../server/config.ts';

export type AuthSmsPayload = { to: string; code: string; kind: string };

export function authSmsTask(config: Config, log: Logger): Task {
  return async (payload, helpers) => {
    const sms = payload as AuthSmsPayload;
    const body = config.AUTH_SMS_TEMPLATE.replaceAll('{{ .Code }}', sms.code);
    if (config.AUTH_SMS_PROVIDER !== 'twilio') {
      await helpers.query(`insert into platform.sms_outbox (recipient, body_text, transport) values ($1, $2, 'log')`, [sms.to, body]);
      log.info({ to: sms.to, kind: sms.kind, code: sms.code }, 'AUTH_SMS_PROVIDER=log: SMS kept in platform.sms_outbox');
      return;
    }
    const sid = config.AUTH_SMS_TWILIO_ACCOUNT_SID!;
    const res = await fetch(`${config.AUTH_SMS_TWILIO_API_URL.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${sid}:${config.AUTH_SMS_TWILIO_AUTH_TOKEN}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ To: `+${sms.to}`, Body: body, MessagingServiceSid: config.AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID! }),
      signal: AbortSignal.timeout(15_000),
    });
    const answer = (await res.json().catch(() => ({}))) as { sid?: string; message?: string; code?: number };
    // A failure throws, so graphile-worker retries with backoff.
    if (!res.ok) throw new Error(`Twilio answered ${res.status}${answer.code ? ` (${answer.code})` : ''}: ${answer.message ?? 'no message'}`);
    // Sent messages keep no body: the code is a live credential.
    await helpers.query(`insert into platform.sms_outbox (recipient, body_text, transport, provider_message_id) values ($1, '', 'twilio', $2)`, [sms.to, answer.sid ?? null]);
    log.info({ kind: sms.kind, message: answer.sid }, 'auth sms sent');
  };
}
