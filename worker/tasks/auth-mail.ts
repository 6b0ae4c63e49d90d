// auth_send_mail: the identity service's e-mail (confirmation, magic link,
// recovery, invite, e-mail change). Links are built from configuration
// (API_EXTERNAL_URL, SITE_URL), never from a request's Host header. With no
// SMTP_URL the message is kept in platform.mail_outbox and its link logged, so
// a developer can sign in locally.
import type { Task } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../server/config.ts';
import { smtpSender } from './smtp.ts';

export type AuthMailPayload = {
  template: 'confirmation' | 'magic_link' | 'recovery' | 'invite' | 'email_change' | 'reauthentication';
  to: string;
  code: string;
  token_hash: string;
  type: string;
  redirect_to: string | null;
};

const TEMPLATES: Record<AuthMailPayload['template'], { subject: string; intro: string }> = {
  confirmation: { subject: 'Confirm your signup', intro: 'Follow this link to confirm your account:' },
  magic_link: { subject: 'Your Magic Link', intro: 'Follow this link to sign in:' },
  recovery: { subject: 'Reset Your Password', intro: 'Follow this link to reset the password for your account:' },
  invite: { subject: 'You have been invited', intro: 'You have been invited to create an account. Follow this link to accept the invite:' },
  email_change: { subject: 'Confirm Email Change', intro: 'Follow this link to confirm the change of your e-mail address:' },
  reauthentication: { subject: 'Confirm reauthentication', intro: 'Enter the code:' },
};

export function verifyLink(config: Config, p: Pick<AuthMailPayload, 'token_hash' | 'type' | 'redirect_to'>): string {
  const url = new URL(`${config.apiUrl}/auth/v1/verify`);
  url.searchParams.set('token', p.token_hash);
  url.searchParams.set('type', p.type);
  url.searchParams.set('redirect_to', p.redirect_to ?? config.SITE_URL);
  return url.toString();
}

export function renderMail(config: Config, p: AuthMailPayload): { subject: string; text: string } {
  const t = TEMPLATES[p.template];
  if (!t) throw new Error(`unknown mail template ${JSON.stringify(p.template)}`);
  // A nonce to type in, not a link to follow.
  if (p.template === 'reauthentication') return { subject: t.subject, text: `${t.intro} ${p.code}\n` };
  return { subject: t.subject, text: `${t.intro}\n\n${verifyLink(config, p)}\n\nOr enter this code: ${p.code}\n` };
}

export function authMailTask(config: Config, log: Logger): Task {
  const send = smtpSender(config);
  return async (payload, helpers) => {
    const mail = payload as AuthMailPayload;
    const { subject, text } = renderMail(config, mail);
    if (config.SMTP_URL) {
      await send({ to: mail.to, subject, text });
      // Sent mail keeps no body: its link and code are live credentials.
      await helpers.query(`insert into platform.mail_outbox (template, recipient, subject, body_text, transport) values ($1, $2, $3, '', 'smtp')`, [mail.template, mail.to, subject]);
      log.info({ template: mail.template }, 'auth mail sent');
      return;
    }
    await helpers.query(`insert into platform.mail_outbox (template, recipient, subject, body_text, transport) values ($1, $2, $3, $4, 'log')`, [mail.template, mail.to, subject, text]);
    log.info({ template: mail.template, to: mail.to, link: verifyLink(config, mail) }, `no SMTP_URL: ${subject} kept in platform.mail_outbox`);
  };
}
