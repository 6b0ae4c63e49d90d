// What both HTTP apps share: request ids, access logs without secrets, and
// Express settings chosen for per-request cost.
import { randomUUID } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { redactUrl } from './log.ts';
import { requestTelemetry } from './telemetry/requests.ts';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: X-Request-Id when it is safe to echo, else a new UUID. */
    id: string;
    /** A logger bound to the request id, made on first use. */
    log: Logger;
    /** The route as declared, set by a surface that matches its paths by hand (REST); routers' routes are read from req.route. */
    routeTemplate?: string;
  }
}

/** Express's "trust proxy" from TRUST_PROXY: false, true, a hop count, or subnets. */
export function trustProxy(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

/**
 * Request ids and one access-log line per request ({req: {id, method, url},
 * res: {statusCode}, responseTime}), with secrets masked in the URL. Written
 * by hand rather than with pino-http: that made a child logger and ran the
 * redaction serializers on every request even when the line was not written,
 * about a quarter of a one-row REST read's CPU. Here a request's logger is made
 * only when something logs through it, and the line is built only when its
 * level is enabled.
 */
function accessLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (req.url !== '/health' && log.isLevelEnabled('info')) {
      const started = performance.now();
      res.once('close', () => {
        const finished = res.writableFinished;
        const level = !finished ? 'warn' : res.statusCode >= 500 ? 'error' : 'info';
        log[level](
          { req: { id, method: req.method, url: redactUrl(req.originalUrl) }, res: { statusCode: res.statusCode }, responseTime: Math.round(performance.now() - started) },
          finished ? 'request completed' : 'request aborted',
        );
      });
    }
    next();
  };
}

export function baseApp(log: Logger, trust: string = 'false'): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy(trust));
  // Flat query strings only (node:querystring): no route reads nested objects, and qs costs per request.
  app.set('query parser', 'simple');
  // No ETag: PostgREST sends none, and hashing every body costs per request.
  app.set('etag', false);
  const children = new WeakMap<object, Logger>();
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: { id: string }) {
      let child = children.get(this);
      if (!child) children.set(this, (child = log.child({ req: { id: this.id } })));
      return child;
    },
  });
  app.use(accessLog(log));
  app.use(requestTelemetry());
  return app;
}
