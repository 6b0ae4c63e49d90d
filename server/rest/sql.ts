// The one SQL statement of a REST request, built from the grammar's AST.
// Identifiers are always quoted; every value is a bound parameter (untyped, so
// Postgres infers it from the column); casts and operators come from fixed
// lists. No input reaches SQL text.
import type { Condition, Field, Logic, OrderTerm, SelectItem } from './grammar.ts';
import { splitTop } from './grammar.ts';
import { restErrors } from './errors.ts';

export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function fieldSql(f: Field, params: Params, table?: string): string {
  let sql = table ? `${table}.${ident(f.name)}` : ident(f.name);
  for (const step of f.json) sql += /^-?\d+$/.test(step.key) ? `${step.arrow}${Number(step.key)}` : `${step.arrow}${params.add(step.key)}::text`;
  return sql;
}

// SQL spellings a URL may use for a type, by the catalog name they stand for:
// a cast is quoted (so no keyword or phrase reaches SQL) and quoted names do
// not fold these aliases.
const TYPE_ALIASES: Record<string, string> = {
  int: 'int4', integer: 'int4', smallint: 'int2', bigint: 'int8', real: 'float4', float: 'float8', boolean: 'bool',
  decimal: 'numeric', dec: 'numeric', char: 'bpchar', character: 'bpchar',
};

/** `::"type"` or `::"type"[]` for a cast the grammar accepted (one identifier, optional []). */
export function castSql(cast: string): string {
  const array = cast.endsWith('[]');
  const name = (array ? cast.slice(0, -2) : cast).toLowerCase();
  return `::${ident(TYPE_ALIASES[name] ?? name)}${array ? '[]' : ''}`;
}

/**
 * One column of a select list: its expression (cast when asked) and the name it
 * gets in the JSON (its alias, else the last JSON key, else the column).
 */
export function columnSql(item: Extract<SelectItem, { kind: 'column' }>, params: Params, table?: string): { expr: string; name: string } {
  const expr = fieldSql(item.field, params, table);
  return { expr: item.cast ? `(${expr})${castSql(item.cast)}` : expr, name: item.alias ?? item.field.json.at(-1)?.key ?? item.field.name };
}

/** A select list without embeds (writes' RETURNING, functions). */
export function selectSql(items: SelectItem[], params: Params): string {
  return items
    .map((item) => {
      if (item.kind === 'star') return '*';
      if (item.kind === 'embed') throw restErrors.embedOnWrite(item.name);
      if (item.kind === 'aggregate') throw restErrors.grammar(`${item.fn}() is supported in reads of tables and views`);
      const { expr, name } = columnSql(item, params);
      return `${expr} as ${ident(name)}`;
    })
    .join(', ');
}

/** `(a,b,"c,d")` or `{a,b}` into its items. */
function listItems(value: string, open: string, close: string): string[] {
  const v = value.trim();
  if (!v.startsWith(open) || !v.endsWith(close)) throw restErrors.grammar(`"${value}": expected a list in ${open}${close}`);
  const inner = v.slice(1, -1);
  if (inner.trim() === '') return [];
  return splitTop(inner).map((s) => {
    const t = s.trim();
    return t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).replace(/\\(.)/g, '$1') : t;
  });
}

const COMPARE: Record<string, string> = {
  eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=', like: 'like', ilike: 'ilike', match: '~', imatch: '~*',
  cs: '@>', cd: '<@', ov: '&&', sl: '<<', sr: '>>', nxl: '&>', nxr: '&<', adj: '-|-',
};
const FTS: Record<string, string> = { fts: 'to_tsquery', plfts: 'plainto_tsquery', phfts: 'phraseto_tsquery', wfts: 'websearch_to_tsquery' };

export function conditionSql(c: Condition, params: Params, table?: string): string {
  const f = fieldSql(c.field, params, table);
  const likeValue = (v: string) => (c.op === 'like' || c.op === 'ilike' ? v.replaceAll('*', '%') : v);
  let sql: string;
  if (c.op === 'is') {
    const v = c.value.toLowerCase();
    sql = `${f} is ${v === 'not_null' ? 'not null' : v}`;
  } else if (c.op === 'in') {
    sql = `${f} = any(${params.add(listItems(c.value, '(', ')'))})`;
  } else if (c.op === 'isdistinct') {
    sql = `${f} is distinct from ${params.add(c.value)}`;
  } else if (FTS[c.op]) {
    sql = `${f} @@ ${FTS[c.op]}(${c.config ? `${params.add(c.config)}::regconfig, ` : ''}${params.add(c.value)})`;
  } else if (c.quant) {
    sql = `${f} ${COMPARE[c.op]} ${c.quant}(${params.add(listItems(c.value, '{', '}').map(likeValue))})`;
  } else if (c.op === 'ov' && c.value.trim().startsWith('(')) {
    sql = `${f} && ${params.add(`{${listItems(c.value, '(', ')').map((s) => JSON.stringify(s)).join(',')}}`)}`;
  } else {
    sql = `${f} ${COMPARE[c.op]} ${params.add(likeValue(c.value))}`;
  }
  return c.negate ? `not (${sql})` : sql;
}

export function logicSql(l: Logic | Condition, params: Params, table?: string): string {
  if (l.kind === 'filter') return conditionSql(l, params, table);
  const inner = l.items.map((i) => logicSql(i, params, table)).join(l.op === 'and' ? ' and ' : ' or ');
  return l.negate ? `not (${inner})` : `(${inner})`;
}

export function whereSql(conditions: Array<Condition | Logic>, params: Params, table?: string, extra: string[] = []): string {
  const all = [...conditions.map((c) => logicSql(c, params, table)), ...extra];
  return all.length === 0 ? '' : ` where ${all.join(' and ')}`;
}

export function orderSql(terms: OrderTerm[], params: Params, table?: string): string {
  if (terms.length === 0) return '';
  return ` order by ${terms.map((t) => `${fieldSql(t.field, params, table)}${t.dir ? ` ${t.dir}` : ''}${t.nulls ? ` nulls ${t.nulls}` : ''}`).join(', ')}`;
}
