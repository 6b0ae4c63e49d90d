// The project API on PORT: one prefix per surface, each behind the key gate,
// each answering in the error shape it declares. Surfaces mount their routers here.
import type { Express, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { errorHandler, errorShape, notFoundHandler, plainShape, type ErrorShape } from './errors.ts';
import { apiKeyGate, type OpenRoute } from './gateway.ts';
import type { TokenVerifier } from './keys.ts';
import { healthHandler, type HealthState } from './health.ts';
import { baseApp } from './http.ts';
import { cors } from './cors.ts';
import { SURFACE_PREFIXES } from './surfaces.ts';

/**
 * A surface: its prefix, routes, the paths open without a key, the error body
 * its clients parse, and whether a bearer token alone may stand for the key
 * (clients that send only Authorization, as OpenAI's do).
 */
export type Surface = { prefix: string; router?: RequestHandler; open?: OpenRoute[]; errorShape?: ErrorShape; bearerKey?: boolean; /** A bearer that does not verify is left to the routes (GoTrue's way: only routes needing a user refuse it). */ bearerToRoutes?: boolean };

/** The surfaces of spec part 1. A surface without a router yet answers 404 in its own shape behind the gate. */

/** metrics: GET /metrics (server/telemetry/routes.ts), which checks its own bearer. */
export function createApp(opts: { log: Logger; verify: TokenVerifier; health: HealthState; surfaces?: Surface[]; trustProxy?: string; metrics?: RequestHandler; /** Discovery documents at the root (server/well-known.ts), before any surface's prefix. */ wellKnown?: RequestHandler }): Express {
  const app = baseApp(opts.log, opts.trustProxy);
  app.use(cors);
  // /api/mcp/.well-known/… sits under a surface's prefix: discovery documents come before every gate.
  if (opts.wellKnown) app.use(opts.wellKnown);
  // Row REST first: the busiest prefix meets the fewest layers.
  for (const prefix of SURFACE_PREFIXES) {
    // Several routers may share a prefix (/api holds the database proxy and the AI surface).
    const surfaces = (opts.surfaces ?? []).filter((s) => s.prefix === prefix);
    const handlers = surfaces.flatMap((s) => (s.router ? [s.router] : []));
    const shape = surfaces.find((s) => s.errorShape)?.errorShape ?? plainShape;
    // A prefix inside another that no surface claims (/api/v1 without the AI surface) is left to the outer one.
    if (surfaces.length === 0 && SURFACE_PREFIXES.some((p) => prefix.startsWith(`${p}/`))) continue;
    app.use(prefix, errorShape(shape), apiKeyGate(opts.verify, surfaces.flatMap((s) => s.open ?? []), { bearerKey: surfaces.some((s) => s.bearerKey), bearerToRoutes: surfaces.some((s) => s.bearerToRoutes) }), ...handlers, notFoundHandler);
  }
  app.get('/health', healthHandler(opts.health));
  if (opts.metrics) app.get('/metrics', errorShape(plainShape), opts.metrics);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
