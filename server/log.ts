// Structured JSON logs (pino). Secrets are redacted at the source: credential
// headers, and credentials passed in query strings (realtime's ?apikey=, signed ?token=).
import pino, { type DestinationStream, type Logger } from 'pino';

const SECRET_QUERY = /([?&](?:apikey|token|access_token|refresh_token|password)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[REDACTED]');
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'pgbase' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.apikey',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.jwt_secret',
        '*.service_role_key',
        '*.db_url',
      ],
      censor: '[REDACTED]',
    },
  };
  // Synchronous stdout by default, so the last lines before an exit are never lost.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: true }));
}

export type { Logger };
