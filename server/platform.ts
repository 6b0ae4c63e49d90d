// The control plane on PLATFORM_PORT: its API (/api/platform/*, server/studio)
// and the Studio at /, with its own error body.
import type { Express, RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import { errorHandler, errorShape, notFoundHandler } from './errors.ts';
import { platformShape } from './platform-api/errors.ts';
import { healthHandler, type HealthState } from './health.ts';
import { baseApp } from './http.ts';

export function createPlatformApp(opts: { log: Logger; health: HealthState; api: Router; studio: RequestHandler | null; trustProxy?: string }): Express {
  const app = baseApp(opts.log, opts.trustProxy);
  app.get('/health', healthHandler(opts.health));
  app.use('/api/platform', errorShape(platformShape), opts.api);
  if (opts.studio) app.use(opts.studio);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
