// Stage 1 of a REST request: what the HTTP request asks for, read once. The
// addressed schema and relation, the query string as filters scoped to the
// embeds they address, the Prefer and Accept headers, the Range, and the
// context the database sees (role, claims, method, path, headers).
import { requestDeparture } from '../request-departure.ts';
import type { Request } from 'express';
import type { RequestContext } from '../../db/as-role.ts';
import { RESERVED, parseCondition, parseLogic, parseNonNegative, parseOrder, type Condition, type Logic } from './grammar.ts';
import { emptyScope, type Scope } from './embed.ts';
import { restErrors } from './errors.ts';
import type { Relation } from './catalogue.ts';
import type { SchemaCache } from './schema-cache.ts';

export type Prefer = { return?: string; count?: string; resolution?: string; missing?: string; handling?: string; tx?: string; maxAffected?: number };

const preferred = new WeakMap<Request, Prefer>();

/** The Prefer header, read once per request. */
export function preferences(req: Request): Prefer {
  let out = preferred.get(req);
  if (!out) preferred.set(req, (out = readPreferences(req)));
  return out;
}

function readPreferences(req: Request): Prefer {
  const out: Prefer = {};
  const header = req.headers.prefer;
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [k, v] = part.trim().split('=').map((s) => s?.trim());
    if (!k || v === undefined) continue;
    if (k === 'return' || k === 'count' || k === 'resolution' || k === 'missing' || k === 'handling' || k === 'tx') out[k] = v;
    else if (k === 'max-affected' && /^\d+$/.test(v)) out.maxAffected = Number(v);
  }
  return out;
}

/** The raw query string, parsed as PostgREST reads it (Express's parser would turn `a[0]` into objects). */
export function search(req: Request): URLSearchParams {
  const at = req.originalUrl.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : req.originalUrl.slice(at + 1));
}

const LOGIC_KEYS = new Set(['and', 'or', 'not.and', 'not.or']);

/**
 * Query keys by the embedded resource they address: `comments.body=eq.x`,
 * `comments.order=id.desc`, `comments.limit=2` go to path "comments"; the
 * rest to the top level (where reserved words were read by the caller).
 */
export function scopedQuery(q: URLSearchParams, paths: string[]): { top: Scope; scopes: Map<string, Scope> } {
  const top = emptyScope();
  const scopes = new Map<string, Scope>();
  for (const [key, value] of q) {
    const path = paths.find((p) => key.startsWith(`${p}.`));
    if (!path) {
      if (LOGIC_KEYS.has(key)) top.conditions.push(parseLogic(key as 'and', value));
      else if (!RESERVED.has(key)) top.conditions.push(parseCondition(key, value));
      continue;
    }
    const scope = scopes.get(path) ?? emptyScope();
    scopes.set(path, scope);
    const rest = key.slice(path.length + 1);
    if (rest === 'order') scope.order = parseOrder(value);
    else if (rest === 'limit' || rest === 'offset') scope[rest] = parseNonNegative(key, value);
    else if (LOGIC_KEYS.has(rest)) scope.conditions.push(parseLogic(rest as 'and', value));
    else scope.conditions.push(parseCondition(rest, value));
  }
  return { top, scopes };
}

/** Filters and logic of a request without embeds (writes, functions). */
export function conditions(q: URLSearchParams): Array<Condition | Logic> {
  return scopedQuery(q, []).top.conditions;
}

/**
 * The schema a request addresses (Accept-Profile for reads, Content-Profile
 * for writes, else the first exposed one), after the spec's rule that both
 * apikey and Authorization are sent.
 */
export function profileOf(req: Request, cache: SchemaCache): string {
  if (!req.auth?.bearer) throw restErrors.bothHeadersRequired();
  const header = req.method === 'GET' || req.method === 'HEAD' ? req.headers['accept-profile'] : req.headers['content-profile'];
  const schema = typeof header === 'string' && header ? header : cache.exposedSchemas[0]!;
  if (!cache.exposedSchemas.includes(schema)) throw restErrors.schemaNotExposed(cache.exposedSchemas);
  return schema;
}

/** The table or view of /rest/v1/{table}. */
export function targetOf(req: Request, cache: SchemaCache): Relation {
  const schema = profileOf(req, cache);
  const name = String(req.params.table);
  const rel = cache.find(schema, name);
  if (!rel) throw restErrors.tableNotFound(schema, name);
  return rel;
}

export type Accept = { csv: boolean; single: boolean; strip: boolean };

export function acceptOf(req: Request): Accept {
  const accept = String(req.headers.accept ?? '');
  return { csv: accept.includes('text/csv'), single: accept.includes('application/vnd.pgrst.object+json'), strip: accept.includes('nulls=stripped') };
}

/** `limit`/`offset` of the query, narrowed by a `Range: a-b` header and by db-max-rows. */
export function pageOf(req: Request, q: URLSearchParams, maxRows: number | null = null): { limit: number | null; offset: number } {
  let limit = parseNonNegative('limit', q.get('limit') ?? undefined);
  let offset = parseNonNegative('offset', q.get('offset') ?? undefined) ?? 0;
  const range = /^(\d+)-(\d*)$/.exec(String(req.headers.range ?? ''));
  if (range) {
    offset = Math.max(offset, Number(range[1]));
    if (range[2]) limit = Math.min(limit ?? Infinity, Number(range[2]) - Number(range[1]) + 1);
  }
  if (maxRows !== null) limit = Math.min(limit ?? maxRows, maxRows);
  return { limit, offset };
}

/** What the database sees of the request, as PostgREST sets it. */
export function contextOf(req: Request): RequestContext {
  return { role: req.auth!.role, claims: req.auth!.claims, method: req.method, path: req.path, headers: lowerHeaders(req), departure: requestDeparture(req) };
}

/** request.headers as PostgREST sets it: lower-case names, credentials left out. */
function lowerHeaders(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (k === 'authorization' || k === 'apikey' || k === 'cookie' || v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}
