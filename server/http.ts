// What both HTTP apps share: request ids, access logs without secrets, JSON
// bodies, and the one error handler.
import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { redactUrl } from './log.ts';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Express's "trust proxy" from TRUST_PROXY: false, true, a hop count, or subnets. */
export function trustProxy(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

export function baseApp(log: Logger, trust: string = 'false'): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy(trust));
  // Flat query strings only (node:querystring): no route reads nested objects, and qs costs per request.
  app.set('query parser', 'simple');
  // No ETag: PostgREST sends none, and hashing every body costs per request.
  app.set('etag', false);
  app.use(
    pinoHttp({
      logger: log,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // Only what is safe: no headers (keys, tokens, cookies), secrets masked in the URL.
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      autoLogging: { ignore: (req) => req.url === '/health' },
    }),
  );
  return app;
}
