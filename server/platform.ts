// The control plane on PLATFORM_PORT (/api/platform/*). Its routes (auth users,
// storage) arrive with those surfaces and are authorised by platform tokens.
import type { Express, Router } from 'express';
import type { Logger } from 'pino';
import { errorHandler, errorShape, notFoundHandler } from './errors.ts';
import { platformShape } from './platform-api/errors.ts';
import { healthHandler, type HealthState } from './health.ts';
import { baseApp } from './http.ts';

export function createPlatformApp(opts: { log: Logger; health: HealthState; routers?: Router[] }): Express {
  const app = baseApp(opts.log);
  app.get('/health', healthHandler(opts.health));
  app.use('/api/platform', errorShape(platformShape));
  for (const router of opts.routers ?? []) app.use('/api/platform', router);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
