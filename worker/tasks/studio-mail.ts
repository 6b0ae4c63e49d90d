// studio_send_invite: an operator's invite to the Studio, e-mailed through
// SMTP_URL. Without one the link is logged only (the Studio showed it to the
// operator who invited, once); nothing is kept, since the link is a live
// credential until it is used.
import type { Task } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Config } from '../../server/config.ts';
import { smtpSender } from './smtp.ts';

export function studioInviteTask(config: Config, log: Logger): Task {
  const send = smtpSender(config);
  return async (payload) => {
    const { to, link } = payload as { to: string; link: string };
    if (!config.SMTP_URL) return void log.info({ to }, 'no SMTP_URL: the Studio invite was shown to the operator who made it, not e-mailed');
    await send({
      to,
      subject: 'You are invited to pgbase Studio',
      text: `An operator invited you to pgbase Studio. Choose your password here (the link works once, for 7 days):\n\n${link}\n`,
    });
    log.info({ to }, 'studio invite sent');
  };
}
