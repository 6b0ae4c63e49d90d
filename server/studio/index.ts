// The control plane's API (/api/platform) and the Studio it serves, put
// together. Every route but the few an operator needs before signing in
// (state, sign-in, setup, accepting an invite) sits behind one gate: an
// operator's session (with its CSRF token on changes) or a platform token.
// Routes that name a project ({ref}) also check the token lists it, and that
// this server serves it.
//
//   /api/platform/studio/*          accounts, sessions, operators, audit log, snippets, history  (account.ts, snippets.ts)
//   /api/platform/pg-meta/{ref}/*   the database: read (meta.ts), changed (changes.ts), its rows (rows.ts), SQL (query.ts)
//   /api/platform/auth/{ref}/*      the project's users (users.ts)
//   /api/platform/storage/{ref}/*   buckets and an operator's upload (spec 4.2), and the Storage API as the service role under v1/ (storage.ts)
//   /api/platform/ai/{ref}/*        the AI surface's /api handlers as the project (ai.ts)
//   /api/platform/openapi.json      this API's OpenAPI document
//   /api/platform/realtime/{ref}    the realtime inspector's WebSocket (realtime-bridge.ts; `upgrade`)
//   /                               the Studio (static.ts), unless STUDIO=off
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { jsonBody } from '../json-body.ts';
import type { Keys } from '../keys.ts';
import { platformErrors } from '../platform-api/errors.ts';
import { platformRoutes } from '../platform-api/routes.ts';
import type { StorageService } from '../storage/routes.ts';
import { accountRoutes, type ProjectInfo } from './account.ts';
import { adminSql } from './admin-sql.ts';
import { changeRoutes } from './changes.ts';
import { metaRoutes } from './meta.ts';
import { queryRoutes } from './query.ts';
import { realtimeBridge } from './realtime-bridge.ts';
import { rowRoutes } from './rows.ts';
import { operatorGate } from './session.ts';
import { snippetRoutes } from './snippets.ts';
import { platformOpenApiDocument } from './openapi.ts';
import { studioStatic } from './static.ts';
import { storageProxy } from './storage.ts';
import { aiProxy } from './ai.ts';
import { observeRoutes } from './observe.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { signingKeyRoutes } from './signing-keys.ts';
import { oauthClientRoutes } from './oauth-clients.ts';
import { userRoutes } from './users.ts';

export const STUDIO_DIST = fileURLToPath(new URL('../../studio/dist/', import.meta.url));

export type ControlPlaneDeps = {
  config: Config;
  keys: Keys;
  adminPool: pg.Pool;
  adminUrl: string;
  storage: { service: StorageService; router: RequestHandler };
  /** The AI surface's /api router, served to operators as the project (ai.ts). */
  ai: RequestHandler;
  /** The project's public face; read per request (the ports are known only once the servers listen). */
  project: () => ProjectInfo;
  /** The project API on loopback (ws://127.0.0.1:<port>), where the realtime inspector's bridge connects. */
  realtimeUrl: () => string;
};

/** A route naming a project: the token must list it, and this server must serve it. */
function projectOf(config: Config): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const ref = String(req.params.ref);
    const refs = req.operator!.refs;
    if (refs !== 'all' && !refs.includes(ref)) return next(platformErrors.projectNotGranted(ref));
    if (ref !== config.PROJECT_REF) return next(platformErrors.noProject(ref));
    next();
  };
}

export function controlPlane(deps: ControlPlaneDeps): { api: Router; studio: RequestHandler | null; realtime: ReturnType<typeof realtimeBridge> } {
  const { config, adminPool: pool } = deps;
  const sql = adminSql(pool, { timeoutMs: 15_000 });
  const gate = operatorGate({ pool, platformSecret: deps.keys.platformSecret, sessions: config.STUDIO });
  const project = projectOf(config);
  const exposed = config.REST_SCHEMAS.split(',');
  const json = jsonBody({ limit: '10mb' });
  const api = express.Router();

  // Before the gate: this API's document, and what an operator needs to sign in.
  api.get('/openapi.json', (_req, res) => void res.set('cache-control', 'no-cache').json(platformOpenApiDocument()));
  api.use(jsonBody({ limit: '100kb' }), accountRoutes({
    pool, platformSecret: deps.keys.platformSecret, project: deps.project, signInRate: config.STUDIO_SIGN_IN_RATE, studio: config.STUDIO,
    queueInvite: async (email, link) => {
      await pool.query(`select graphile_worker.add_job('studio_send_invite', json_build_object('to', $1::text, 'link', $2::text), max_attempts := 5)`, [email, link]);
    },
  }));

  // The Storage API as the service role: its own body parsers (multipart, TUS) run, none of ours.
  api.use('/storage/:ref/v1', gate, project, storageProxy({ storage: deps.storage.router, keys: deps.keys, pool }));
  api.use('/storage/:ref', gate, project, platformRoutes({ storage: deps.storage.service }));
  // The AI surface's /api handlers as the project: they parse their own bodies and answer in their own shapes.
  api.use('/ai/:ref', gate, project, aiProxy({ ai: deps.ai, keys: deps.keys, pool }));

  api.use(gate, json);
  api.use(snippetRoutes({ sql }));
  api.use('/pg-meta/:ref', project, metaRoutes({ sql, exposed }), changeRoutes({ sql }), rowRoutes({ sql, pool }),
    queryRoutes({ adminUrl: deps.adminUrl, sql, pool, timeoutMs: config.STUDIO_QUERY_TIMEOUT_MS }));
  api.use('/auth/:ref', project, userRoutes({ config, pool }), signingKeyRoutes({ pool, masterKey: deps.keys.aiMasterKey, changed: deps.keys.reloadKeys }),
    apiKeyRoutes({ pool, masterKey: deps.keys.aiMasterKey, changed: deps.keys.reloadKeys }), oauthClientRoutes({ pool }));
  api.use('/observe/:ref', project, observeRoutes({ pool }));

  const realtime = realtimeBridge({ pool, keys: deps.keys, projectRef: config.PROJECT_REF, realtimeUrl: deps.realtimeUrl, maxPayloadBytes: config.REALTIME_MAX_PAYLOAD_BYTES });
  return { api, studio: config.STUDIO ? studioStatic(path.resolve(STUDIO_DIST)) : null, realtime };
}
