// /api/database: the authenticated proxy of spec 4.4 over the row REST layer.
// It builds no SQL: each call becomes a request to /rest/v1 (same engine, same
// RLS), with the caller's own credentials. Only `public`, table names matching
// ^[A-Za-z_][A-Za-z0-9_]*$, and a signed-in user (or the service role): the
// anonymous key is refused. Upstream errors keep their status; an unreachable
// REST layer is a 502.
import express, { type Request, type Response, type Router } from 'express';
import { jsonBody } from '../json-body.ts';
import { ApiError, route } from '../errors.ts';
import { proxyErrors } from './errors.ts';

const TABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function databaseProxyRoutes({ restBase }: { restBase: () => string }): Router {
  const router = express.Router();
  router.use('/database', jsonBody({ limit: '10mb' }));

  const caller = (req: Request) => {
    const role = req.auth?.role;
    if (!req.auth?.bearer || (role !== 'authenticated' && role !== 'service_role')) {
      throw proxyErrors.userRequired();
    }
    return { apikey: String(req.headers.apikey ?? req.query.apikey ?? ''), authorization: String(req.headers.authorization) };
  };
  const tableOf = (req: Request) => {
    const table = String(req.params.table);
    if (!TABLE.test(table)) throw proxyErrors.badTable(table);
    const schema = req.query.schema === undefined ? 'public' : String(req.query.schema);
    if (schema !== 'public') throw proxyErrors.publicOnly(schema);
    return table;
  };
  const rowId = (req: Request) => encodeURIComponent(String(req.params.id));

  /** One call to the REST layer; its errors come back with their status, as {error}. */
  const upstream = async (req: Request, path: string, init: { method?: string; body?: unknown; single?: boolean } = {}): Promise<{ status: number; body: unknown }> => {
    // The proxy's own work (the body it sends) fails as the proxy's, never as the REST layer's.
    let sent: string | undefined;
    try {
      sent = init.body === undefined ? undefined : JSON.stringify(init.body);
    } catch (err) {
      throw proxyErrors.proxyFailed(err);
    }
    let res: globalThis.Response;
    try {
      res = await fetch(`${restBase()}/rest/v1${path}`, {
        method: init.method ?? 'GET',
        headers: {
          ...caller(req),
          'content-type': 'application/json',
          accept: init.single ? 'application/vnd.pgrst.object+json' : 'application/json',
          prefer: 'return=representation',
          'x-request-id': String(req.id ?? ''),
        },
        ...(sent !== undefined ? { body: sent } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      throw proxyErrors.restUnreachable(err);
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      throw proxyErrors.restNotJson();
    }
    if (!res.ok) {
      const e = body as { message?: string; code?: string; details?: unknown } | null;
      if (init.single && res.status === 406 && e?.code === 'PGRST116') throw proxyErrors.rowNotFound();
      throw proxyErrors.fromRest(res.status, e?.message ?? `REST answered ${res.status}`, { code: e?.code, details: e?.details });
    }
    return { status: res.status, body };
  };

  const send = (res: Response, status: number, body: unknown) => res.status(status).json(body);

  router.get(
    '/database/tables',
    route(async (req, res) => {
      caller(req);
      if (req.query.schema !== undefined && req.query.schema !== 'public') throw proxyErrors.publicOnly(String(req.query.schema));
      let spec: { definitions?: Record<string, unknown> };
      try {
        spec = (await upstream(req, '/')).body as typeof spec;
      } catch (err) {
        if (err instanceof ApiError && err.status === 502) throw err;
        throw proxyErrors.listingFailed(err);
      }
      send(res, 200, { tables: Object.keys(spec.definitions ?? {}).sort() });
    }),
  );

  router.get(
    '/database/openapi',
    route(async (req, res) => {
      send(res, 200, (await upstream(req, '/')).body);
    }),
  );

  router.get(
    '/database/tables/:table',
    route(async (req, res) => {
      const table = tableOf(req);
      const limit = /^\d{1,9}$/.test(String(req.query.limit ?? '')) ? String(req.query.limit) : '50';
      const offset = /^\d{1,12}$/.test(String(req.query.offset ?? '')) ? String(req.query.offset) : '0';
      send(res, 200, (await upstream(req, `/${table}?limit=${limit}&offset=${offset}`)).body);
    }),
  );

  router.get(
    '/database/tables/:table/:id',
    route(async (req, res) => {
      send(res, 200, (await upstream(req, `/${tableOf(req)}?id=eq.${rowId(req)}`, { single: true })).body);
    }),
  );

  router.post(
    '/database/tables/:table',
    route(async (req, res) => {
      const table = tableOf(req);
      if (!req.body || typeof req.body !== 'object' || Array.isArray(req.body)) throw proxyErrors.rowBody();
      send(res, 201, (await upstream(req, `/${table}`, { method: 'POST', body: req.body, single: true })).body);
    }),
  );

  router.patch(
    '/database/tables/:table/:id',
    route(async (req, res) => {
      const table = tableOf(req);
      if (!req.body || typeof req.body !== 'object' || Array.isArray(req.body)) throw proxyErrors.objectBody();
      send(res, 200, (await upstream(req, `/${table}?id=eq.${rowId(req)}`, { method: 'PATCH', body: req.body, single: true })).body);
    }),
  );

  router.delete(
    '/database/tables/:table/:id',
    route(async (req, res) => {
      const deleted = (await upstream(req, `/${tableOf(req)}?id=eq.${rowId(req)}`, { method: 'DELETE', single: true })).body;
      send(res, 200, { deleted });
    }),
  );

  return router;
}
