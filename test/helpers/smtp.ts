// A real SMTP server on 127.0.0.1 that keeps what it receives, standing in for
// the mail provider: the platform talks to it through SMTP_URL as in production.
import { SMTPServer } from 'smtp-server';

export type ReceivedMail = { to: string[]; subject: string; text: string; link: string | undefined; code: string | undefined };

export async function startSmtpSink(): Promise<{ url: string; mails: ReceivedMail[]; waitFor: (to: string, subject: string, timeoutMs?: number) => Promise<ReceivedMail>; stop: () => Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString()));
      stream.on('end', () => {
        const [head, ...rest] = raw.split(/\r?\n\r?\n/);
        const text = rest.join('\n\n').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: /^Subject: (.*)$/m.exec(head ?? '')?.[1]?.trim() ?? '',
          text,
          link: /(https?:\/\/\S+\/auth\/v1\/verify\S*)/.exec(text)?.[1],
          code: /code: (\d{6})/.exec(text)?.[1],
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor: async (to, subject, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.find((m) => m.to.includes(to) && m.subject === subject);
        if (found) {
          mails.splice(mails.indexOf(found), 1);
          return found;
        }
        if (Date.now() > deadline) throw new Error(`no mail "${subject}" to ${to}; got ${JSON.stringify(mails.map((m) => [m.to, m.subject]))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
