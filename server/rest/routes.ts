// /rest/v1: PostgREST's row API for supabase-js's query builder, as a
// pipeline of stages, one module each (PostgREST's own module names):
//   request.ts   what the request asks for (schema, relation, query, Prefer)
//   plan.ts      the one SQL statement that answers it (grammar.ts, sql.ts, embed.ts)
//   query.ts     that statement run as the caller (role and claims), errors mapped
//   response.ts  the HTTP answer around the body Postgres produced
// This file routes each method and path to its stages.
import type { RequestHandler } from 'express';
import { jsonBody } from '../json-body.ts';
import type pg from 'pg';
import { route } from '../errors.ts';
import { restErrors } from './errors.ts';
import { openApi } from './openapi.ts';
import { planCall, planDelete, planDescribe, planInsert, planRead, planUpdate, type Page } from './plan.ts';
import { queries } from './query.ts';
import { preferences, profileOf, search, targetOf } from './request.ts';
import { respondCall, respondRead, respondWrite, sendBody } from './response.ts';
import type { DbFunction, Relation } from './catalogue.ts';
import type { RestSettings } from './settings.ts';
import type { SchemaCache } from './schema-cache.ts';

/** The EXPLAIN options the plan media type takes (Accept: application/vnd.pgrst.plan+json; options=analyze|verbose). */
const PLAN_OPTIONS = ['analyze', 'verbose', 'settings', 'buffers', 'wal'] as const;

/** The REST layer with PostgREST's settings as they are now (settings.ts: the environment, then the database). */
export function restRoutes({ pool, cache, publicUrl, settings }: { pool: pg.Pool; cache: SchemaCache; publicUrl: string; settings: () => RestSettings }): RequestHandler {
  const json = jsonBody({ limit: '10mb', type: ['application/json', 'application/*+json'] });
  const db = queries(pool, { cache, settings });

  const describe = route(async (req, res) => {
    const { openapiMode, openapiServerProxyUri } = settings();
    if (openapiMode === 'disabled') throw restErrors.openApiDisabled();
    const schema = profileOf(req, cache);
    let relations: Relation[];
    let functions: DbFunction[];
    if (openapiMode === 'ignore-privileges') {
      relations = cache.relationsIn(schema);
      functions = cache.functionsIn(schema);
    } else {
      const rows = await db.one<{ kind: string; name: string }>(req, planDescribe(schema));
      const allowed = new Set(rows.map((r) => `${r.kind}:${r.name}`));
      relations = rows.filter((r) => r.kind === 'rel').map((r) => cache.find(schema, r.name)).filter((r): r is Relation => !!r);
      functions = [...new Set(rows.filter((r) => r.kind === 'fn').map((r) => r.name))].flatMap((n) => cache.findFunctions(schema, n)).filter((f) => allowed.has(`fn:${f.name}`));
    }
    sendBody(req, res, 200, 'application/openapi+json; charset=utf-8', JSON.stringify(openApi({ url: openapiServerProxyUri ?? publicUrl, schema, relations, functions })));
  });

  const call = route(async (req, res) => {
    const prefer = preferences(req);
    const plan = planCall(req, profileOf(req, cache), String(req.params.fn), search(req), req.method === 'GET' || req.method === 'HEAD', req.body, cache, prefer, settings());
    respondCall(req, res, await db.call(req, plan, prefer), plan, prefer);
  });

  const read = route(async (req, res) => {
    const features = settings();
    const plan = planRead(req, targetOf(req, cache), search(req), preferences(req), cache, features);
    // Accept: application/vnd.pgrst.plan: the statement's plan instead of its rows, behind db-plan-enabled.
    if (String(req.headers.accept ?? '').includes('application/vnd.pgrst.plan')) {
      if (!features.plan) throw restErrors.planDisabled();
      const format = /\+text/.test(String(req.headers.accept)) ? 'text' : 'json';
      // options=analyze|verbose|settings|buffers|wal, as PostgREST takes them (only these words reach EXPLAIN).
      const asked = /options=([a-z|]+)/.exec(String(req.headers.accept))?.[1]?.split('|') ?? [];
      const options = PLAN_OPTIONS.filter((o) => asked.includes(o));
      const rows = await db.one<Record<string, unknown>>(req, { sql: `explain (format ${format}${options.map((o) => `, ${o}`).join('')}) ${plan.sql}`, values: plan.values });
      const body = format === 'json' ? JSON.stringify(rows[0]!['QUERY PLAN']) : rows.map((r) => r['QUERY PLAN']).join('\n');
      return sendBody(req, res, 200, `application/vnd.pgrst.plan+${format}${options.length > 0 ? `; options=${options.join('|')}` : ''}; charset=utf-8`, body);
    }
    const page: Page = await db.read(req, plan);
    respondRead(req, res, page, plan.offset);
  });

  const insert = route(async (req, res) => {
    const rel = targetOf(req, cache);
    const prefer = preferences(req);
    const result = await db.write(req, planInsert(rel, search(req), prefer, req.body));
    // A merge that inserted nothing (every row existed) answers 200, as PostgREST does.
    respondWrite(req, res, rel, prefer.resolution === 'merge-duplicates' && result.inserted === 0 ? 200 : 201, prefer, result);
  });

  const update = route(async (req, res) => {
    const rel = targetOf(req, cache);
    respondWrite(req, res, rel, 200, preferences(req), await db.write(req, planUpdate(rel, search(req), req.body)));
  });

  const remove = route(async (req, res) => {
    const rel = targetOf(req, cache);
    respondWrite(req, res, rel, 200, preferences(req), await db.write(req, planDelete(rel, search(req))));
  });

  // The routes, matched by hand: three shapes of path do not need a router,
  // and Express's per-layer matching cost more than a one-row read's own work.
  const byMethod = {
    root: { GET: describe, HEAD: describe } as Record<string, RequestHandler>,
    rpc: { GET: call, HEAD: call, POST: call } as Record<string, RequestHandler>,
    table: { GET: read, HEAD: read, POST: insert, PATCH: update, DELETE: remove } as Record<string, RequestHandler>,
  };
  const ROUTE = /^\/(?:(rpc)\/([^/]+)|([^/]+))?\/?$/;
  return (req, res, next) => {
    const m = ROUTE.exec(req.path);
    let handler: RequestHandler | undefined;
    try {
      // The template a router would have matched, for spans and metrics (telemetry/requests.ts).
      if (m && m[1]) {
        handler = byMethod.rpc[req.method];
        req.params = { fn: decodeURIComponent(m[2]!) };
        req.routeTemplate = '/rest/v1/rpc/:fn';
      } else if (m && m[3]) {
        handler = byMethod.table[req.method];
        req.params = { table: decodeURIComponent(m[3]) };
        req.routeTemplate = '/rest/v1/:table';
      } else if (m) {
        handler = byMethod.root[req.method];
        req.routeTemplate = '/rest/v1/';
      }
    } catch {
      handler = undefined; // a malformed %-escape
    }
    if (!handler) return next(restErrors.noRoute(req.method, req.path));
    const chosen = handler;
    if (req.method === 'POST' || req.method === 'PATCH') json(req, res, (err?: unknown) => (err ? next(err) : chosen(req, res, next)));
    else chosen(req, res, next);
  };
}
