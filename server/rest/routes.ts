// /rest/v1/{table}: PostgREST's row API for supabase-js's query builder. Each
// request: parse the URL and headers into an AST (grammar.ts), build one SQL
// statement (sql.ts), run it in one transaction as the caller's role with the
// caller's claims (asRole, so grants and RLS decide), and send the JSON that
// Postgres produced. Errors map through fromPostgresError.
import express, { type Request, type RequestHandler, type Response } from 'express';
import type pg from 'pg';
import { asRole } from '../../db/as-role.ts';
import { queryAsRole } from '../../db/pipeline.ts';
import { ApiError, fromPostgresError, route } from '../errors.ts';
import { RESERVED, grammarError, parseCondition, parseLogic, parseNonNegative, parseOrder, parseSelect, type Condition, type Logic } from './grammar.ts';
import type { Relation, SchemaCache } from './schema-cache.ts';
import { openApi } from './openapi.ts';
import { buildSelect, embedPaths, emptyScope, selectListSql, type Scope } from './embed.ts';
import { ident, orderSql, Params, selectSql, whereSql } from './sql.ts';

type Prefer = { return?: string; count?: string; resolution?: string; missing?: string; handling?: string; tx?: string; maxAffected?: number };

const preferred = new WeakMap<Request, Prefer>();

/** The Prefer header, read once per request. */
function preferences(req: Request): Prefer {
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

const LOGIC_KEYS = new Set(['and', 'or', 'not.and', 'not.or']);

/**
 * Query keys by the embedded resource they address: `comments.body=eq.x`,
 * `comments.order=id.desc`, `comments.limit=2` go to path "comments"; the
 * rest to the top level (where reserved words were read by the caller).
 */
function scopedQuery(search: URLSearchParams, paths: string[]): { top: Scope; scopes: Map<string, Scope> } {
  const top = emptyScope();
  const scopes = new Map<string, Scope>();
  for (const [key, value] of search) {
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
function conditions(search: URLSearchParams): Array<Condition | Logic> {
  return scopedQuery(search, []).top.conditions;
}

function relationName(rel: Relation): string {
  return `${ident(rel.schema)}.${ident(rel.name)}`;
}

export function restRoutes({ pool, cache, publicUrl }: { pool: pg.Pool; cache: SchemaCache; publicUrl: string }): RequestHandler {
  const jsonBody = express.json({ limit: '10mb', type: ['application/json', 'application/*+json'] });

  /**
   * The schema a request addresses (Accept-Profile for reads, Content-Profile
   * for writes, else the first exposed one), after the spec's rule that both
   * apikey and Authorization are sent.
   */
  const profileOf = (req: Request): string => {
    if (!req.auth?.bearer) throw new ApiError('unauthorized', 'Both apikey and Authorization headers are required', { code: 'PGRST301' });
    const header = req.method === 'GET' || req.method === 'HEAD' ? req.headers['accept-profile'] : req.headers['content-profile'];
    const schema = typeof header === 'string' && header ? header : cache.exposedSchemas[0]!;
    if (!cache.exposedSchemas.includes(schema)) {
      throw new ApiError('invalid_request', `The schema must be one of the following: ${cache.exposedSchemas.join(', ')}`, { status: 406, code: 'PGRST106' });
    }
    return schema;
  };


  const describe = route(async (req, res) => {
      const profile = profileOf(req);
      // What the caller's role may read or call, asked as that role.
      const rows = await runOne<{ kind: string; name: string }>(req, 
          `select 'rel' as kind, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = $1 and c.relkind in ('r','v','m','f','p') and (has_table_privilege(c.oid, 'select') or has_table_privilege(c.oid, 'insert'))
           union all
           select 'fn', p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
            where n.nspname = $1 and p.prokind = 'f' and has_function_privilege(p.oid, 'execute')`,
          [profile],
      );
      const allowed = new Set(rows.map((r) => `${r.kind}:${r.name}`));
      const relations = rows.filter((r) => r.kind === 'rel').map((r) => cache.find(profile, r.name)).filter((r): r is Relation => !!r);
      const functions = [...new Set(rows.filter((r) => r.kind === 'fn').map((r) => r.name))].flatMap((n) => cache.findFunctions(profile, n)).filter((f) => allowed.has(`fn:${f.name}`));
      sendBody(req, res, 200, 'application/openapi+json; charset=utf-8', JSON.stringify(openApi({ url: publicUrl, schema: profile, relations, functions })));
  });

  const target = (req: Request): Relation => {
    // Both headers, as the spec asks: the key identifies the project, the bearer the caller.
    const schema = profileOf(req);
    const name = String(req.params.table);
    const rel = cache.find(schema, name);
    if (!rel) throw new ApiError('not_found', `Could not find the table '${schema}.${name}' in the schema cache`, { code: 'PGRST205' });
    return rel;
  };

  const run = async <T>(req: Request, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
    const role = req.auth!.role;
    try {
      const rollback = preferences(req).tx === 'rollback';
      return await asRole(pool, { role, claims: req.auth!.claims, method: req.method, path: req.path, headers: lowerHeaders(req) }, fn, { rollback });
    } catch (err) {
      throw fromPostgresError(err, role);
    }
  };

  /** A request that is one statement: one round trip (db/pipeline.ts), unless tx=rollback asks for a transaction. */
  const runOne = async <R>(req: Request, sql: string, values: unknown[]): Promise<R[]> => {
    if (preferences(req).tx === 'rollback') return (await run(req, (c) => c.query<R & pg.QueryResultRow>(sql, values))).rows;
    const role = req.auth!.role;
    try {
      return await queryAsRole<R>(pool, { role, claims: req.auth!.claims, method: req.method, path: req.path, headers: lowerHeaders(req) }, sql, values);
    } catch (err) {
      throw fromPostgresError(err, role);
    }
  };

  const search = (req: Request) => {
    const at = req.originalUrl.indexOf('?');
    return new URLSearchParams(at === -1 ? '' : req.originalUrl.slice(at + 1));
  };

  // RPC: POST with a JSON object of named arguments, or GET with them in the
  // query (stable and immutable functions only). Functions returning rows are
  // selectable, filterable and orderable like a table.
  const callFunction = route(async (req, res) => {
    const schema = profileOf(req);
    const name = String(req.params.fn);
    const q = search(req);
    const readOnly = req.method === 'GET' || req.method === 'HEAD';
    let argsIn: Record<string, unknown>;
    if (readOnly) {
      argsIn = {};
      for (const [k, v] of q) if (!RESERVED.has(k)) argsIn[k] = v;
    } else {
      argsIn = req.body === undefined ? {} : (req.body as Record<string, unknown>);
    }
    const overloads = cache.findFunctions(schema, name);
    // A single unnamed json/jsonb parameter receives the whole body (PostgREST's convention).
    const whole = !readOnly && overloads.find((f) => f.args.length === 1 && f.args[0]!.name === '' && /^jsonb?$/.test(f.args[0]!.type));
    const provided = whole ? [] : Object.keys(argsIn);
    const fn =
      whole ||
      (argsIn && typeof argsIn === 'object' && !Array.isArray(argsIn)
        ? overloads
            .filter((f) => provided.every((k) => f.args.some((a) => a.name === k)) && f.args.every((a) => a.hasDefault || provided.includes(a.name)))
            .sort((a, b) => a.args.length - b.args.length)[0]
        : undefined);
    if (!fn) {
      throw new ApiError('not_found', `Could not find the function ${schema}.${name}(${provided.join(', ')}) in the schema cache`, { code: 'PGRST202' });
    }
    if (readOnly && fn.volatile) {
      throw new ApiError('invalid_request', `${schema}.${name} is volatile: call it with POST`, { status: 405, code: 'PGRST101' });
    }
    const params = new Params();
    const bind = (value: unknown, type: string) => {
      if (value === null || value === undefined) return params.add(null);
      if (/^jsonb?$/.test(type)) return params.add(readOnly ? value : JSON.stringify(value));
      if (Array.isArray(value) || typeof value !== 'object') return params.add(value);
      return params.add(JSON.stringify(value));
    };
    const call = whole
      ? `${ident(schema)}.${ident(name)}(${bind(req.body ?? {}, fn.args[0]!.type)}::${fn.args[0]!.type})`
      : `${ident(schema)}.${ident(name)}(${fn.args
          .filter((a) => provided.includes(a.name))
          .map((a) => `${a.variadic ? 'variadic ' : ''}${ident(a.name)} => ${bind(argsIn[a.name], a.type)}::${a.type}`)
          .join(', ')})`;
    let sql: string;
    if (fn.returnsRows) {
      const select = selectSql(parseSelect(q.get('select') ?? undefined), params);
      const filters = conditions(q).filter((c) => c.kind === 'logic' || !(readOnly && fn.args.some((a) => a.name === c.field.name)));
      const where = whereSql(filters, params);
      const order = orderSql(parseOrder(q.get('order') ?? undefined), params);
      const limit = parseNonNegative('limit', q.get('limit') ?? undefined);
      const offset = parseNonNegative('offset', q.get('offset') ?? undefined);
      sql = `with _pgrst_source as (select ${select} from ${call} _pgrst_rel${where}${order}${limit !== null ? ` limit ${params.add(limit)}` : ''}${offset ? ` offset ${params.add(offset)}` : ''})
        select ${fn.returnsSet ? `coalesce(json_agg(_pgrst_source), '[]')` : `json_agg(_pgrst_source)->0`}::text as body, count(*)::int as page_rows from _pgrst_source`;
    } else if (fn.returnsSet) {
      sql = `select coalesce(json_agg(_pgrst_v), '[]')::text as body, count(*)::int as page_rows from ${call} _pgrst_v`;
    } else {
      sql = `select to_json(${call})::text as body, 1 as page_rows`;
    }
    const rows = await runOne<{ body: string | null; page_rows: number }>(req, sql, params.values);
    const body = rows[0]!.body ?? 'null';
    if (String(req.headers.accept ?? '').includes('application/vnd.pgrst.object+json') && fn.returnsSet) {
      if (rows[0]!.page_rows !== 1) {
        throw new ApiError('invalid_request', 'JSON object requested, multiple (or no) rows returned', { status: 406, code: 'PGRST116', details: `The result contains ${rows[0]!.page_rows} rows` });
      }
      sendBody(req, res, 200, 'application/json; charset=utf-8', JSON.stringify(JSON.parse(body)[0]));
      return;
    }
    sendBody(req, res, 200, 'application/json; charset=utf-8', body);
  });

  // GET and HEAD: one page of rows, optionally counted, as an array or one object.
  const read = route(async (req, res) => {
    const rel = target(req);
    const q = search(req);
    const prefer = preferences(req);
    const params = new Params();
    const items = parseSelect(q.get('select') ?? undefined);
    const { top, scopes } = scopedQuery(q, embedPaths(items));
    let n = 0;
    // The table is its own alias, so a database error names it as PostgREST's do ("column notes.x does not exist").
    const self = ident(rel.name);
    const built = buildSelect(rel, items, self, '', { cache, params, scopes, next: (name) => ident(`${name.slice(0, 50)}_${++n}`) });
    const select = selectListSql(built);
    const where = whereSql(top.conditions, params, self, built.inner);
    const order = orderSql(parseOrder(q.get('order') ?? undefined), params, self);
    let limit = parseNonNegative('limit', q.get('limit') ?? undefined);
    let offset = parseNonNegative('offset', q.get('offset') ?? undefined) ?? 0;
    const range = /^(\d+)-(\d*)$/.exec(String(req.headers.range ?? ''));
    if (range) {
      offset = Math.max(offset, Number(range[1]));
      if (range[2]) limit = Math.min(limit ?? Infinity, Number(range[2]) - Number(range[1]) + 1);
    }
    const accept = String(req.headers.accept ?? '');
    const csv = accept.includes('text/csv');
    const single = accept.includes('application/vnd.pgrst.object+json');
    const strip = accept.includes('nulls=stripped');
    const page = `${limit !== null ? ` limit ${params.add(limit)}` : ''}${offset ? ` offset ${params.add(offset)}` : ''}`;
    const agg = csv
      ? `coalesce((select string_agg(quote_ident(k), ',') from json_object_keys(json_agg(_pgrst_source)->0) k) || E'\\n' ||
           string_agg((select string_agg(case when v is null then '' when v ~ '[,"\\n\\r]' then '"' || replace(v, '"', '""') || '"' else v end, ',')
                       from json_each_text(row_to_json(_pgrst_source)) j(k, v)), E'\\n'), '')`
      : strip ? `json_strip_nulls(coalesce(json_agg(_pgrst_source), '[]'))` : `coalesce(json_agg(_pgrst_source), '[]')`;
    // count=exact counts; planned asks the planner; estimated counts exactly up to 1000 rows and estimates past that.
    const exactCount = `(select count(*) from ${relationName(rel)} ${self}${where})::int`;
    const sql = `with _pgrst_source as (select ${select} from ${relationName(rel)} ${self}${where}${order}${page})
      select ${agg}::text as body, count(*)::int as page_rows,
             ${prefer.count === 'exact' || prefer.count === 'estimated' ? exactCount : 'null::int'} as total
        from _pgrst_source`;
    type Page = { body: string; page_rows: number; total: number | null };
    const planned = prefer.count === 'planned' || prefer.count === 'estimated';
    const rows = planned
      ? (
          await run(req, async (c) => {
            const result = await c.query<Page>(sql, params.values);
            const counted = result.rows[0]!;
            if (prefer.count === 'planned' || (counted.total ?? 0) > 1000) {
              const plan = await c.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(`explain (format json) select 1 from ${relationName(rel)} ${self}${where}`, params.values);
              counted.total = plan.rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows'];
            }
            return result;
          })
        ).rows
      : await runOne<Page>(req, sql, params.values);
    const r = rows[0]!;
    const total = r.total === null ? '*' : String(r.total);
    res.setHeader('Content-Range', r.page_rows === 0 ? `*/${total}` : `${offset}-${offset + r.page_rows - 1}/${total}`);
    if (single) {
      if (r.page_rows !== 1) {
        throw new ApiError('invalid_request', 'JSON object requested, multiple (or no) rows returned', { status: 406, code: 'PGRST116', details: `The result contains ${r.page_rows} rows` });
      }
      sendBody(req, res, 200, 'application/vnd.pgrst.object+json; charset=utf-8', JSON.stringify(JSON.parse(r.body)[0]));
      return;
    }
    const partial = r.total !== null && r.page_rows < r.total;
    sendBody(req, res, partial ? 206 : 200, csv ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8', r.body);
  });

  /** What a write sends back, per Prefer: return=representation|minimal. */
  const respondWrite = (req: Request, res: Response, status: number, prefer: Prefer, body: string, rowsAffected: number) => {
    res.setHeader('Content-Range', `*/${rowsAffected}`);
    const applied = [prefer.return && `return=${prefer.return}`, prefer.resolution && `resolution=${prefer.resolution}`].filter(Boolean);
    if (applied.length) res.setHeader('Preference-Applied', applied.join(', '));
    if (prefer.return === 'headers-only' && status === 201 && rowsAffected === 1) {
      const row = JSON.parse(body)[0] as Record<string, unknown>;
      const rel = target(req);
      if (rel.primaryKey.length > 0 && rel.primaryKey.every((k) => k in row)) {
        res.setHeader('Location', `/${rel.name}?${rel.primaryKey.map((k) => `${encodeURIComponent(k)}=eq.${encodeURIComponent(String(row[k]))}`).join('&')}`);
      }
    }
    if (prefer.return === 'representation') {
      const single = String(req.headers.accept ?? '').includes('application/vnd.pgrst.object+json');
      if (single && rowsAffected !== 1) {
        throw new ApiError('invalid_request', 'JSON object requested, multiple (or no) rows returned', { status: 406, code: 'PGRST116', details: `The result contains ${rowsAffected} rows` });
      }
      sendBody(req, res, status, 'application/json; charset=utf-8', single ? JSON.stringify(JSON.parse(body)[0]) : body);
    } else res.status(status === 200 ? 204 : status).end();
  };

  const checkColumns = (rel: Relation, columns: string[]) => {
    for (const col of columns) {
      if (!rel.columns.some((c) => c.name === col)) {
        throw new ApiError('invalid_request', `Could not find the '${col}' column of '${rel.name}' in the schema cache`, { code: 'PGRST204' });
      }
    }
  };

  /** What a write statement's rows become: the JSON array and how many there are. */
  const WRITE_RESULT = `select coalesce(json_agg(_pgrst_source), '[]')::text as body, count(*)::int as affected from _pgrst_source`;

  /** Runs a write whose rows are in CTE _pgrst_source and answers it per Prefer. */
  const writeAndRespond = async (req: Request, res: Response, status: number, prefer: Prefer, withSource: string, values: unknown[]) => {
    const { rows } = await write(req, prefer, `${withSource} ${WRITE_RESULT}`, values);
    respondWrite(req, res, status, prefer, rows[0]!.body, rows[0]!.affected);
  };

  /** A write: one round trip, or a transaction when max-affected must be able to undo it. */
  const write = async (req: Request, prefer: Prefer, sql: string, values: unknown[]): Promise<{ rows: Array<{ body: string; affected: number }> }> => {
    if (prefer.handling !== 'strict' || prefer.maxAffected === undefined) return { rows: await runOne<{ body: string; affected: number }>(req, sql, values) };
    return run(req, async (c) => {
      const result = await c.query<{ body: string; affected: number }>(sql, values);
      guardAffected(prefer, result.rows[0]!.affected);
      return result;
    });
  };

  /** max-affected with handling=strict: more rows than allowed rolls the change back. */
  const guardAffected = (prefer: Prefer, affected: number) => {
    if (prefer.handling === 'strict' && prefer.maxAffected !== undefined && affected > prefer.maxAffected) {
      throw new ApiError('invalid_request', 'Query result exceeds max-affected preference constraint', { code: 'PGRST124', details: `The query affects ${affected} rows` });
    }
  };

  const insert = route(async (req, res) => {
      const rel = target(req);
      const q = search(req);
      const prefer = preferences(req);
      const body: unknown = req.body;
      const rowsIn = Array.isArray(body) ? body : [body];
      if (body === undefined || rowsIn.some((r) => r === null || typeof r !== 'object' || Array.isArray(r))) {
        throw new ApiError('invalid_request', 'The request body must be a JSON object or an array of objects', { code: 'PGRST102' });
      }
      const declared = q.get('columns')?.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
      const columns = declared ?? Object.keys((rowsIn[0] ?? {}) as object);
      checkColumns(rel, columns);
      // missing=default: rows are grouped by the keys they carry and each group is
      // inserted with its own column list, so absent columns get their defaults.
      // Otherwise absent keys are NULL, as PostgREST inserts them.
      const groups = new Map<string, { cols: string[]; rows: unknown[] }>();
      for (const row of rowsIn as Array<Record<string, unknown>>) {
        const cols = prefer.missing === 'default' ? columns.filter((c) => c in row) : columns;
        const key = cols.join('\u0000');
        if (!groups.has(key)) groups.set(key, { cols, rows: [] });
        groups.get(key)!.rows.push(row);
      }
      if (groups.size === 0) groups.set('', { cols: columns, rows: [] });
      const params = new Params();
      let conflictTarget: string[] | null = null;
      if (prefer.resolution === 'merge-duplicates' || prefer.resolution === 'ignore-duplicates') {
        conflictTarget = q.get('on_conflict')?.split(',').map((c) => c.trim()) ?? rel.primaryKey;
        if (conflictTarget.length === 0) throw new ApiError('invalid_request', 'An upsert needs on_conflict or a primary key', { code: 'PGRST100' });
        checkColumns(rel, conflictTarget);
      }
      const returning = selectSql(parseSelect(q.get('select') ?? undefined), params);
      const inserts = [...groups.values()].map((g, i) => {
        const payload = params.add(JSON.stringify(g.rows));
        const cols = g.cols.map(ident).join(', ');
        let conflict = '';
        if (conflictTarget) {
          const updates = g.cols.filter((c) => !conflictTarget!.includes(c)).map((c) => `${ident(c)} = excluded.${ident(c)}`);
          conflict = ` on conflict (${conflictTarget.map(ident).join(', ')}) ${prefer.resolution === 'ignore-duplicates' || updates.length === 0 ? 'do nothing' : `do update set ${updates.join(', ')}`}`;
        }
        const insert = g.cols.length === 0
          ? `insert into ${relationName(rel)} default values`
          : `insert into ${relationName(rel)} (${cols}) select ${cols} from json_populate_recordset(null::${relationName(rel)}, ${payload}::json)`;
        return `_pgrst_ins${i} as (${insert}${conflict} returning ${returning})`;
      });
      const union = inserts.map((_, i) => `select * from _pgrst_ins${i}`).join(' union all ');
      await writeAndRespond(req, res, 201, prefer, `with ${inserts.join(', ')}, _pgrst_source as (${union})`, params.values);
  });

  const update = route(async (req, res) => {
      const rel = target(req);
      const q = search(req);
      const prefer = preferences(req);
      const body: unknown = req.body;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid_request', 'The request body must be a JSON object', { code: 'PGRST102' });
      const columns = Object.keys(body);
      if (columns.length === 0) throw new ApiError('invalid_request', 'The request body has no columns to update', { code: 'PGRST102' });
      checkColumns(rel, columns);
      const params = new Params();
      const payload = params.add(JSON.stringify(body));
      const where = whereSql(conditions(q), params);
      const returning = selectSql(parseSelect(q.get('select') ?? undefined), params);
      const cols = columns.map(ident).join(', ');
      const statement = `update ${relationName(rel)} set (${cols}) = (select ${cols} from json_populate_record(null::${relationName(rel)}, ${payload}::json))${where} returning ${returning}`;
      await writeAndRespond(req, res, 200, prefer, `with _pgrst_source as (${statement})`, params.values);
  });

  const remove = route(async (req, res) => {
      const rel = target(req);
      const q = search(req);
      const prefer = preferences(req);
      const params = new Params();
      const where = whereSql(conditions(q), params);
      const returning = selectSql(parseSelect(q.get('select') ?? undefined), params);
      await writeAndRespond(req, res, 200, prefer, `with _pgrst_source as (delete from ${relationName(rel)}${where} returning ${returning})`, params.values);
  });

  // The routes, matched by hand: four shapes of path do not need a router,
  // and Express's per-layer matching cost more than a one-row read's own work.
  const byMethod = {
    root: { GET: describe, HEAD: describe } as Record<string, RequestHandler>,
    rpc: { GET: callFunction, HEAD: callFunction, POST: callFunction } as Record<string, RequestHandler>,
    table: { GET: read, HEAD: read, POST: insert, PATCH: update, DELETE: remove } as Record<string, RequestHandler>,
  };
  const ROUTE = /^\/(?:(rpc)\/([^/]+)|([^/]+))?\/?$/;
  return (req, res, next) => {
    const m = ROUTE.exec(req.path);
    let handler: RequestHandler | undefined;
    try {
      if (m && m[1]) {
        handler = byMethod.rpc[req.method];
        req.params = { fn: decodeURIComponent(m[2]!) };
      } else if (m && m[3]) {
        handler = byMethod.table[req.method];
        req.params = { table: decodeURIComponent(m[3]) };
      } else if (m) handler = byMethod.root[req.method];
    } catch {
      handler = undefined; // a malformed %-escape
    }
    if (!handler) return next(grammarError(`No route for ${req.method} ${req.path}`));
    const chosen = handler;
    if (req.method === 'POST' || req.method === 'PATCH') jsonBody(req, res, (err?: unknown) => (err ? next(err) : chosen(req, res, next)));
    else chosen(req, res, next);
  };
}

/** A body Postgres produced, sent as is: res.send without its content-type parsing and freshness checks. */
function sendBody(req: Request, res: Response, status: number, type: string, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(req.method === 'HEAD' ? undefined : body);
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
