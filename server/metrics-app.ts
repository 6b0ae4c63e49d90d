// A standalone worker's own small HTTP server (WORKER_METRICS_PORT): /metrics
// and /health, nothing else, so an operator scrapes its jobs and model calls
// as a server's.
import type { Express, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { errorHandler, errorShape, notFoundHandler, plainShape } from './errors.ts';
import { healthHandler, type HealthState } from './health.ts';
import { baseApp } from './http.ts';

export function createMetricsApp(opts: { log: Logger; health: HealthState; metrics: RequestHandler }): Express {
  const app = baseApp(opts.log);
  app.get('/health', healthHandler(opts.health));
  app.get('/metrics', errorShape(plainShape), opts.metrics);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
