// Stage 2: one SQL statement per request, planned from the parsed request and
// the schema cache, before any database work. Identifiers are quoted, values
// bound (sql.ts); the rows of every statement end in a CTE `_pgrst_source`
// that Postgres turns into the JSON body itself.
import type { Request } from 'express';
import { parseOrder, parseSelect, RESERVED } from './grammar.ts';
import { buildSelect, embedPaths, groupBySql, joinsSql, selectListSql } from './embed.ts';
import { restErrors } from './errors.ts';
import { acceptOf, conditions, pageOf, scopedQuery, type Prefer } from './request.ts';
import type { Relation } from './catalogue.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { RestSettings } from './settings.ts';
import { ident, orderSql, Params, selectSql, whereSql } from './sql.ts';

export type Statement = { sql: string; values: unknown[] };

/** A page of rows: its statement, and what the response needs to know of it. */
export type ReadPlan = Statement & {
  offset: number;
  /** count=planned|estimated: the planner's estimate, from this statement. */
  explain: Statement | null;
  /** With explain: the estimate replaces a total that is missing (planned) or above this (estimated). */
  estimateAbove: number;
};

/** What a read answers: one row with the body, the page's row count and the total (when counted). */
export type Page = { body: string; page_rows: number; total: number | null };

export function relationName(rel: Relation): string {
  return `${ident(rel.schema)}.${ident(rel.name)}`;
}

/** GET and HEAD on a table: the page, its embeds, filters and order, and the count Prefer asks for. */
/** The PostgREST settings planning reads (settings.ts): db-aggregates-enabled, db-plan-enabled, db-max-rows. */
export type RestFeatures = Pick<RestSettings, 'aggregates' | 'plan' | 'maxRows'>;
export const NO_FEATURES: RestFeatures = { aggregates: false, plan: false, maxRows: null };

export function planRead(req: Request, rel: Relation, q: URLSearchParams, prefer: Prefer, cache: SchemaCache, features: RestFeatures = NO_FEATURES): ReadPlan {
  const params = new Params();
  const items = parseSelect(q.get('select') ?? undefined);
  const { top, scopes } = scopedQuery(q, embedPaths(items));
  let n = 0;
  // The table is its own alias, so a database error names it as PostgREST's do ("column notes.x does not exist").
  const self = ident(rel.name);
  const built = buildSelect(rel, items, self, '', { cache, params, scopes, next: (name) => ident(`${name.slice(0, 50)}_${++n}`), aggregates: features.aggregates });
  const where = whereSql(top.conditions, params, self, built.inner);
  const order = orderSql(parseOrder(q.get('order') ?? undefined), params, self);
  const { limit, offset } = pageOf(req, q, features.maxRows);
  const { csv, strip } = acceptOf(req);
  const page = `${limit !== null ? ` limit ${params.add(limit)}` : ''}${offset ? ` offset ${params.add(offset)}` : ''}`;
  const agg = csv
    ? `coalesce((select string_agg(quote_ident(k), ',') from json_object_keys(json_agg(_pgrst_source)->0) k) || E'\\n' ||
         string_agg((select string_agg(case when v is null then '' when v ~ '[,"\\n\\r]' then '"' || replace(v, '"', '""') || '"' else v end, ',')
                     from json_each_text(row_to_json(_pgrst_source)) j(k, v)), E'\\n'), '')`
    : strip ? `json_strip_nulls(coalesce(json_agg(_pgrst_source), '[]'))` : `coalesce(json_agg(_pgrst_source), '[]')`;
  // count=exact counts; planned asks the planner; estimated counts exactly up to 1000 rows and estimates past that.
  const exactCount = `(select count(*) from ${relationName(rel)} ${self}${where})::int`;
  const sql = `with _pgrst_source as (select ${selectListSql(built)} from ${relationName(rel)} ${self}${joinsSql(built)}${where}${groupBySql(built)}${order}${page})
    select ${agg}::text as body, count(*)::int as page_rows,
           ${prefer.count === 'exact' || prefer.count === 'estimated' ? exactCount : 'null::int'} as total
      from _pgrst_source`;
  const planned = prefer.count === 'planned' || prefer.count === 'estimated';
  return {
    sql, values: params.values, offset,
    explain: planned ? { sql: `explain (format json) select 1 from ${relationName(rel)} ${self}${where}`, values: params.values } : null,
    estimateAbove: 1000,
  };
}

/** The rows of a write, as the body and the count of affected rows. */
const WRITE_RESULT = `select coalesce(json_agg(_pgrst_source), '[]')::text as body, count(*)::int as affected from _pgrst_source`;

function checkColumns(rel: Relation, columns: string[]): void {
  for (const col of columns) if (!rel.columns.some((c) => c.name === col)) throw restErrors.columnNotFound(col, rel.name);
}

function returningOf(q: URLSearchParams, params: Params): string {
  return selectSql(parseSelect(q.get('select') ?? undefined), params);
}

/** POST: one or many rows, `columns=`, missing=default, and upserts (merge or ignore duplicates). */
export function planInsert(rel: Relation, q: URLSearchParams, prefer: Prefer, body: unknown): Statement {
  const rowsIn = Array.isArray(body) ? body : [body];
  if (body === undefined || rowsIn.some((r) => r === null || typeof r !== 'object' || Array.isArray(r))) throw restErrors.bodyNotRows();
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
    if (conflictTarget.length === 0) throw restErrors.upsertWithoutKey();
    checkColumns(rel, conflictTarget);
  }
  const returning = returningOf(q, params);
  const inserts = [...groups.values()].map((g, i) => {
    const payload = params.add(JSON.stringify(g.rows));
    const cols = g.cols.map(ident).join(', ');
    let conflict = '';
    if (conflictTarget) {
      // Every column of the payload is set, the conflict key included, as PostgREST writes it: a row that
      // carries only its key is still touched and returned.
      // missing=default: a conflicting row's columns its payload lacks go back to their defaults, as PostgREST v12 sets them.
      const defaults = prefer.missing === 'default' ? columns.filter((c) => !g.cols.includes(c)).map((c) => `${ident(c)} = default`) : [];
      const updates = [...g.cols.map((c) => `${ident(c)} = excluded.${ident(c)}`), ...defaults];
      conflict = ` on conflict (${conflictTarget.map(ident).join(', ')}) ${prefer.resolution === 'ignore-duplicates' || updates.length === 0 ? 'do nothing' : `do update set ${updates.join(', ')}`}`;
    }
    const insert = g.cols.length === 0
      ? `insert into ${relationName(rel)} default values`
      : `insert into ${relationName(rel)} (${cols}) select ${cols} from json_populate_recordset(null::${relationName(rel)}, ${payload}::json)`;
    // An upsert tells inserted rows (xmax 0) from updated ones, so a merge that inserts nothing answers 200.
    return `_pgrst_ins${i} as (${insert}${conflict} returning ${conflictTarget ? `${returning}, (xmax = 0) as _pgrst_new` : returning})`;
  });
  const union = inserts.map((_, i) => `select * from _pgrst_ins${i}`).join(' union all ');
  if (!conflictTarget) return { sql: `with ${inserts.join(', ')}, _pgrst_source as (${union}) ${WRITE_RESULT}`, values: params.values };
  return {
    sql: `with ${inserts.join(', ')}, _pgrst_source as (${union})
      select coalesce(json_agg(to_jsonb(_pgrst_source) - '_pgrst_new'), '[]')::text as body, count(*)::int as affected,
             count(*) filter (where _pgrst_new)::int as inserted from _pgrst_source`,
    values: params.values,
  };
}

/** PATCH: the body's columns set on the filtered rows. */
export function planUpdate(rel: Relation, q: URLSearchParams, body: unknown): Statement {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw restErrors.bodyNotObject();
  const columns = Object.keys(body);
  if (columns.length === 0) throw restErrors.nothingToUpdate();
  checkColumns(rel, columns);
  const params = new Params();
  const payload = params.add(JSON.stringify(body));
  const where = whereSql(conditions(q), params);
  const returning = returningOf(q, params);
  const cols = columns.map(ident).join(', ');
  const statement = `update ${relationName(rel)} set (${cols}) = (select ${cols} from json_populate_record(null::${relationName(rel)}, ${payload}::json))${where} returning ${returning}`;
  return { sql: `with _pgrst_source as (${statement}) ${WRITE_RESULT}`, values: params.values };
}

/** DELETE: the filtered rows. */
export function planDelete(rel: Relation, q: URLSearchParams): Statement {
  const params = new Params();
  const where = whereSql(conditions(q), params);
  const returning = returningOf(q, params);
  return { sql: `with _pgrst_source as (delete from ${relationName(rel)}${where} returning ${returning}) ${WRITE_RESULT}`, values: params.values };
}

/** A function call: what the response needs to know of it (a set, void, a count asked for). */
export type CallPlan = Statement & { returnsSet: boolean; returnsVoid: boolean; offset: number };

/**
 * RPC (PostgREST v12): POST with a JSON object of named arguments, or GET
 * and HEAD with them in the query (stable and immutable functions only),
 * where a key that names a parameter is an argument and every other key
 * filters the result. The overload is the one that takes every argument
 * given and needs no other; two such are ambiguous (300 PGRST203, as
 * Postgres itself would refuse the call). A single unnamed json/jsonb
 * parameter receives the whole body; other unnamed parameters take the ""
 * key (supabase's type generator emits it), in order. A JSON object for a
 * row-type parameter is converted as json_populate_record would. Functions
 * returning rows are selectable, filterable, orderable and, when they
 * return a table's rows, embeddable like that table; Prefer: count counts
 * the result before paging.
 */
export function planCall(req: Request, schema: string, name: string, q: URLSearchParams, readOnly: boolean, body: unknown, cache: SchemaCache, prefer: Prefer, features: RestFeatures = NO_FEATURES): CallPlan {
  const overloads = cache.findFunctions(schema, name);
  let argsIn: Record<string, unknown> = {};
  let rest = q;
  if (readOnly) {
    const parameters = new Set(overloads.flatMap((f) => f.args.map((a) => a.name)));
    rest = new URLSearchParams();
    for (const [k, v] of q) {
      if (!RESERVED.has(k) && parameters.has(k) && !(k in argsIn)) argsIn[k] = v;
      else rest.append(k, v);
    }
  } else if (body !== undefined) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw restErrors.bodyNotObject();
    argsIn = body as Record<string, unknown>;
  }
  const whole = !readOnly && overloads.find((f) => f.args.length === 1 && f.args[0]!.name === '' && /^jsonb?$/.test(f.args[0]!.type));
  const provided = whole ? [] : Object.keys(argsIn);
  const candidates = whole ? [whole] : overloads.filter((f) => provided.every((k) => f.args.some((a) => a.name === k)) && f.args.every((a) => a.hasDefault || provided.includes(a.name)));
  if (candidates.length === 0) throw restErrors.functionNotFound(schema, name, provided);
  if (candidates.length > 1) throw restErrors.ambiguousFunction(candidates.map((f) => `${f.schema}.${f.name}(${f.args.map((a) => `${a.name || '<unnamed>'} => ${a.type}`).join(', ')})`));
  const fn = candidates[0]!;
  if (readOnly && fn.volatile) throw restErrors.volatileByGet(schema, name);
  const params = new Params();
  const bind = (value: unknown, arg: { type: string; composite: boolean }) => {
    if (value === null || value === undefined) return `${params.add(null)}::${arg.type}`;
    if (/^jsonb?$/.test(arg.type)) return `${params.add(readOnly ? value : JSON.stringify(value))}::${arg.type}`;
    if (arg.composite && typeof value === 'object' && !Array.isArray(value)) return `json_populate_record(null::${arg.type}, ${params.add(JSON.stringify(value))}::json)`;
    if (Array.isArray(value) || typeof value !== 'object') return `${params.add(value)}::${arg.type}`;
    return `${params.add(JSON.stringify(value))}::${arg.type}`;
  };
  const given = fn.args.filter((a) => provided.includes(a.name));
  // Unnamed parameters cannot be named in the call: such a function is called positionally.
  const positional = given.some((a) => a.name === '');
  const call = whole
    ? `${ident(schema)}.${ident(name)}(${bind(body ?? {}, fn.args[0]!)})`
    : `${ident(schema)}.${ident(name)}(${given.map((a) => `${a.variadic ? 'variadic ' : ''}${positional ? '' : `${ident(a.name)} => `}${bind(argsIn[a.name], a)}`).join(', ')})`;
  const counted = prefer.count === 'exact' || prefer.count === 'planned' || prefer.count === 'estimated';
  const { limit, offset } = pageOf(req, rest, features.maxRows);
  const page = `${limit !== null ? ` limit ${params.add(limit)}` : ''}${offset ? ` offset ${params.add(offset)}` : ''}`;
  let sql: string;
  if (fn.returnsRows) {
    const items = parseSelect(rest.get('select') ?? undefined);
    const target = fn.returnsRelation ? cache.find(fn.returnsRelation.schema, fn.returnsRelation.name) : undefined;
    const alias = ident(name);
    let list: string;
    let where: string;
    let groupBy = '';
    let joins = '';
    if (target) {
      // Rows of a table: embeds resolve through that table's relationships, filters before and after.
      const { top, scopes } = scopedQuery(rest, embedPaths(items));
      let n = 0;
      // Aggregates apply to a function's rows as to a table's (`/rpc/f?select=col.count(),other`), grouped by the rest.
      const built = buildSelect(target, items, alias, '', { cache, params, scopes, next: (t) => ident(`${t.slice(0, 50)}_${++n}`), aggregates: features.aggregates });
      list = selectListSql(built);
      where = whereSql(top.conditions, params, alias, built.inner);
      groupBy = groupBySql(built);
      joins = joinsSql(built);
    } else {
      const embedded = items.find((i) => i.kind === 'embed');
      if (embedded && embedded.kind === 'embed') throw restErrors.noRelationship(name, embedded.name, schema);
      list = selectSql(items, params);
      where = whereSql(conditions(rest), params);
    }
    const order = orderSql(parseOrder(rest.get('order') ?? undefined), params, target ? alias : undefined);
    const from = `${call} ${alias}`;
    sql = `with _pgrst_source as (select ${list} from ${from}${joins}${where}${groupBy}${order}${page})
      select ${fn.returnsSet ? `coalesce(json_agg(_pgrst_source), '[]')` : `(json_agg(_pgrst_source) -> 0)`}::text as body, count(*)::int as page_rows,
             ${counted ? `(select count(*) from ${from}${where})::int` : 'null::int'} as total from _pgrst_source`;
  } else if (fn.returnsSet) {
    sql = `with _pgrst_source as (select _pgrst_v from ${call} _pgrst_v${page})
      select coalesce(json_agg(_pgrst_v), '[]')::text as body, count(*)::int as page_rows,
             ${counted ? `(select count(*) from ${call} _pgrst_c)::int` : 'null::int'} as total from _pgrst_source`;
  } else if (fn.returnsVoid) {
    sql = `select ${call}, null::text as body, 0 as page_rows, null::int as total`;
  } else {
    sql = `select to_json(${call})::text as body, 1 as page_rows, null::int as total`;
  }
  return { sql, values: params.values, returnsSet: fn.returnsSet || (fn.returnsRows && fn.returnsSet), returnsVoid: fn.returnsVoid, offset };
}

/** GET /rest/v1/: what the caller's role may read or call in the schema, asked as that role. */
export function planDescribe(schema: string): Statement {
  return {
    sql: `select 'rel' as kind, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where n.nspname = $1 and c.relkind in ('r','v','m','f','p') and (has_table_privilege(c.oid, 'select') or has_table_privilege(c.oid, 'insert'))
          union all
          select 'fn', p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname = $1 and p.prokind = 'f' and has_function_privilege(p.oid, 'execute')`,
    values: [schema],
  };
}
