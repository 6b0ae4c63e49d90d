// Row REST called from inside the server (workflow blocks, agent tools):
// the same pipeline as /rest/v1 (request, plan, query), with no HTTP loop
// back. The caller's role and claims are set exactly as for an HTTP request,
// so grants and row-level security decide.
import type { Request } from 'express';
import type pg from 'pg';
import type { Claims } from '../keys.ts';
import { planCall, planDelete, planInsert, planRead, planUpdate } from './plan.ts';
import { queries } from './query.ts';
import { preferences, profileOf, search, targetOf } from './request.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { RestSettings } from './settings.ts';

export type RestCall = {
  operation: 'select' | 'insert' | 'update' | 'delete' | 'rpc';
  /** A table or view (select, insert, update, delete) or a function (rpc). */
  name: string;
  schema?: string | undefined;
  /** PostgREST query parameters: select, filters (`col=eq.x`), order, limit, offset, on_conflict. */
  query: Record<string, string>;
  body?: unknown;
};

export type RestCaller = { role: string; claims: Claims };

export type InProcessRest = (caller: RestCaller, call: RestCall) => Promise<unknown>;

const METHOD = { select: 'GET', insert: 'POST', update: 'PATCH', delete: 'DELETE', rpc: 'POST' } as const;

/** With `settings`, PostgREST's settings apply as on /rest/v1 (search path, pre-request, max rows, aggregates). */
export function inProcessRest(pool: pg.Pool, cache: SchemaCache, settings?: () => RestSettings): InProcessRest {
  const db = queries(pool, settings && { cache, settings });
  return async (caller, call) => {
    const qs = new URLSearchParams(call.query).toString();
    const method = METHOD[call.operation];
    const profile = call.schema ? { [method === 'GET' ? 'accept-profile' : 'content-profile']: call.schema } : {};
    // The shape of an HTTP request the pipeline reads: path, query, headers, the verified caller.
    const req = {
      method, path: `/${call.name}`, originalUrl: `/${call.name}${qs ? `?${qs}` : ''}`, body: call.body,
      params: call.operation === 'rpc' ? { fn: call.name } : { table: call.name },
      headers: { accept: 'application/json', prefer: 'return=representation', ...profile },
      auth: { role: caller.role, claims: caller.claims, bearer: 'in-process', apikey: {} },
    } as unknown as Request;
    if (call.operation === 'rpc') {
      const plan = planCall(req, profileOf(req, cache), call.name, search(req), false, call.body ?? {}, cache, preferences(req), settings?.());
      const [row] = await db.one<{ body: string | null }>(req, plan);
      return JSON.parse(row?.body ?? 'null');
    }
    const rel = targetOf(req, cache);
    if (call.operation === 'select') return JSON.parse((await db.read(req, planRead(req, rel, search(req), preferences(req), cache, settings?.()))).body);
    const statement = call.operation === 'insert' ? planInsert(rel, search(req), preferences(req), call.body)
      : call.operation === 'update' ? planUpdate(rel, search(req), call.body) : planDelete(rel, search(req));
    return JSON.parse((await db.write(req, statement)).body);
  };
}
