// /api/platform/ai/{ref}/*: the AI surface's own /api handlers (agents,
// orchestrations, workflows and their runs, sessions, sources, knowledge
// bases, tools, settings, usage, the copilot), served to an operator as the
// project (the service role), at the paths a client calls under /api:
// /api/platform/ai/default/agents is /api/agents. The Studio's AI pages go
// through exactly these handlers, their validation and their access model:
// no Studio-only way into the AI tables, and the browser never holds a
// project key. Every change (any method but GET and HEAD) that succeeds is
// recorded in the audit log under the operator: its method and path, never
// its body (a provider key or a tool's headers travel in bodies).
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type pg from 'pg';
import type { Keys } from '../keys.ts';
import { audit } from './audit.ts';

export function aiProxy(opts: { ai: express.RequestHandler; keys: Keys; pool: pg.Pool }): Router {
  const r = express.Router({ mergeParams: true });
  r.use((req: Request, res: Response, next: NextFunction) => {
    // The gateway's verdict for the service key, as if the project API had checked it.
    req.auth = { role: 'service_role', claims: { role: 'service_role' }, apikey: { role: 'service_role' }, bearer: opts.keys.serviceRoleKey };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      // Read now: the AI routers below rewrite the request's path as they route it.
      const { method, path } = req;
      res.once('finish', () => {
        if (res.statusCode < 300) void audit(opts.pool, req, req.operator!, 'ai_change', `${method} ${path}`, { method, path }).catch(() => undefined);
      });
    }
    opts.ai(req, res, next);
  });
  return r;
}
