// Sending one e-mail through SMTP_URL from the configured sender. The
// transport is made on the first mail, and nodemailer loaded only then: a
// server that never mails never holds it.
import type { Transporter } from 'nodemailer';
import type { Config } from '../../server/config.ts';

export type Mail = { to: string; subject: string; text: string };

export function smtpSender(config: Config): (mail: Mail) => Promise<void> {
  let transport: Promise<Transporter> | undefined;
  return async (mail) => {
    transport ??= import('nodemailer').then((m) => m.default.createTransport(config.SMTP_URL));
    await (await transport).sendMail({ from: { name: config.SMTP_SENDER_NAME, address: config.SMTP_ADMIN_EMAIL }, ...mail });
  };
}
