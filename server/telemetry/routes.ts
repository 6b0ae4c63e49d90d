// GET /metrics on the project port (and a standalone worker's
// WORKER_METRICS_PORT): the Prometheus text format, to a bearer token with
// the service role (the service key; Prometheus sends only Authorization).
// Anything less is 401, an apikey header included.
import type { RequestHandler } from 'express';
import type pg from 'pg';
import type { Logger } from 'pino';
import { apiError } from '../errors.ts';
import { bearerOf } from '../gateway.ts';
import type { TokenVerifier } from '../keys.ts';
import { refreshDatabaseGauges, registry } from './metrics.ts';

export function metricsHandler(opts: { verify: TokenVerifier; adminPool: pg.Pool; log: Logger }): RequestHandler {
  return (req, res, next) => {
    void (async () => {
      const bearer = bearerOf(req);
      const verdict = bearer ? await opts.verify(bearer) : undefined;
      if (!verdict?.ok || verdict.claims.role !== 'service_role') {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        throw apiError(401, 'service_key_required', 'GET /metrics needs Authorization: Bearer <service key>');
      }
      // The database's part (queue, runs) is best effort: pools and counters still answer without it.
      await refreshDatabaseGauges(opts.adminPool).catch((err: Error) => opts.log.warn({ error: err.message }, 'metrics: database gauges not read'));
      res.setHeader('Content-Type', registry.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(await registry.metrics());
    })().catch(next);
  };
}

