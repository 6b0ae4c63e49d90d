// PostgREST's URL grammar, parsed into a small AST before any SQL exists:
//   select=alias:col->json->>path::cast,alias:rel!hint!inner(...),...rel(...)
//   col=[not.]op[(any|all)].value                filters
//   or=(...), and=(...), not.or=(...)            nested logic
//   order=col.desc.nullslast,...   limit=   offset=
// Anything that does not parse is a 400 PGRST100 naming the part.
import { restErrors } from './errors.ts';

export type Field = { name: string; json: Array<{ arrow: '->' | '->>'; key: string }> };
export type EmbedItem = { kind: 'embed'; alias: string | null; name: string; hint: string | null; join: 'inner' | 'left' | null; spread: boolean; select: SelectItem[] };
/** `count()`, `col.sum()`, `alias:col.avg()::int` (PostgREST v12, behind db-aggregates-enabled). */
export type AggregateItem = { kind: 'aggregate'; fn: 'count' | 'sum' | 'avg' | 'min' | 'max'; field: Field | null; alias: string | null; cast: string | null };
export type SelectItem = { kind: 'star' } | { kind: 'column'; field: Field; alias: string | null; cast: string | null } | EmbedItem | AggregateItem;

export const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is', 'isdistinct', 'fts', 'plfts', 'phfts', 'wfts', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxl', 'nxr', 'adj'] as const;
export type Operator = (typeof OPERATORS)[number];

export type Condition = { kind: 'filter'; field: Field; negate: boolean; op: Operator; quant: 'any' | 'all' | null; config: string | null; value: string };
export type Logic = { kind: 'logic'; op: 'and' | 'or'; negate: boolean; items: Array<Condition | Logic> };
export type OrderTerm = { field: Field; dir: 'asc' | 'desc' | null; nulls: 'first' | 'last' | null };

export const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'on_conflict', 'columns', 'and', 'or', 'not.and', 'not.or']);

const grammarError = restErrors.grammar;

/** Splits on a separator at nesting depth 0, honouring parentheses and double quotes. */
export function splitTop(input: string, sep = ','): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch === '\\' && quoted) i++;
    else if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')') depth--;
    else if (!quoted && depth === 0 && ch === sep) {
      parts.push(input.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) throw grammarError(`unbalanced parentheses in "${input}"`);
  }
  if (depth !== 0 || quoted) throw grammarError(`unbalanced parentheses or quotes in "${input}"`);
  parts.push(input.slice(start));
  return parts;
}

const IDENT = /^[^\s(),.:"'\\-][^(),:"'\\]*?$/;

export function parseField(raw: string): Field {
  const text = raw.trim();
  const parts = text.split(/(->>|->)/);
  const name = parts[0]!.trim();
  if (!name || !IDENT.test(name) || name.includes('->')) throw grammarError(`"${raw}" is not a column`);
  const json: Field['json'] = [];
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i + 1]!.trim();
    if (!key) throw grammarError(`empty JSON path step in "${raw}"`);
    json.push({ arrow: parts[i] as '->' | '->>', key });
  }
  return { name, json };
}

/** A cast is one type name (an identifier, optionally an array of it): never a phrase, so it cannot carry SQL. */
const CAST = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\[\])?$/;

export function parseSelect(input: string | undefined): SelectItem[] {
  if (input === undefined || input.trim() === '' || input.trim() === '*') return [{ kind: 'star' }];
  return splitTop(input).map((raw): SelectItem => {
    const item = raw.trim();
    if (item === '*') return { kind: 'star' };
    const aggregate = /^(?:([^:(]+):)?(?:([^:(]+)\.)?(count|sum|avg|min|max)\(\)(?:::([\w ]+))?$/.exec(item);
    if (aggregate && (aggregate[2] !== undefined || aggregate[3] === 'count')) {
      const cast = aggregate[4]?.trim() ?? null;
      if (cast !== null && !CAST.test(cast)) throw grammarError(`"${cast}" is not a type`);
      return { kind: 'aggregate', fn: aggregate[3] as AggregateItem['fn'], field: aggregate[2] ? parseField(aggregate[2].trim()) : null, alias: aggregate[1]?.trim() ?? null, cast };
    }
    if (item.endsWith(')')) return parseEmbed(item);
    let rest = item;
    let alias: string | null = null;
    const aliasMatch = /^([^:]+):(?!:)(.*)$/.exec(rest);
    if (aliasMatch && !aliasMatch[1]!.includes('->')) {
      alias = aliasMatch[1]!.trim();
      rest = aliasMatch[2]!;
    }
    let cast: string | null = null;
    const castAt = rest.lastIndexOf('::');
    if (castAt >= 0) {
      cast = rest.slice(castAt + 2).trim();
      rest = rest.slice(0, castAt);
      if (!CAST.test(cast)) throw grammarError(`"${cast}" is not a type`);
    }
    return { kind: 'column', field: parseField(rest), alias, cast };
  });
}

/** `alias:name!hint!inner(select)` or `...name(select)` */
function parseEmbed(item: string): EmbedItem {
  const m = /^(?:([^:(!.]+):)?(\.\.\.)?([^!(:]+)((?:![^!(]+)*)\(([\s\S]*)\)$/.exec(item);
  if (!m) throw grammarError(`"${item}" is not an embedded resource`);
  let hint: string | null = null;
  let join: EmbedItem['join'] = null;
  for (const part of (m[4] ?? '').split('!').filter(Boolean)) {
    if (part === 'inner' || part === 'left') join = part;
    else if (hint === null) hint = part.trim();
    else throw grammarError(`"${item}" has more than one hint`);
  }
  const name = m[3]!.trim();
  if (!IDENT.test(name)) throw grammarError(`"${name}" is not a relation name`);
  // An empty embed (`users()`) selects nothing: it only filters (with !inner) and is left out of the result.
  return { kind: 'embed', alias: m[1]?.trim() ?? null, name, hint, join, spread: !!m[2], select: m[5]!.trim() === '' ? [] : parseSelect(m[5]) };
}

/** `[not.]op[(any|all)|(config)].value` */
export function parseCondition(column: string, expression: string): Condition {
  let rest = expression;
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const m = /^([a-z]+)(?:\(([A-Za-z0-9_]+)\))?\.([\s\S]*)$/.exec(rest);
  if (!m || !(OPERATORS as readonly string[]).includes(m[1]!)) {
    throw grammarError(`"${column}=${expression}": unknown operator`, `expected one of ${OPERATORS.join(', ')}, optionally after not.`);
  }
  const op = m[1] as Operator;
  const modifier = m[2] ?? null;
  let quant: Condition['quant'] = null;
  let config: string | null = null;
  if (modifier) {
    if (['fts', 'plfts', 'phfts', 'wfts'].includes(op)) config = modifier;
    else if (modifier === 'any' || modifier === 'all') quant = modifier;
    else throw grammarError(`"${op}(${modifier})": the modifier must be any or all`);
  }
  if (op === 'is' && !['null', 'not_null', 'true', 'false', 'unknown'].includes(m[3]!.toLowerCase())) {
    throw grammarError(`"is.${m[3]}": is takes null, not_null, true, false or unknown`);
  }
  return { kind: 'filter', field: parseField(column), negate, op, quant, config, value: m[3]! };
}

/** How deep and/or may nest: far past any hand-written filter, well short of a stack or planner limit. */
export const MAX_LOGIC_DEPTH = 32;

/** `or=(a.eq.1,and(b.gt.2,c.is.null))` */
export function parseLogic(key: 'and' | 'or' | 'not.and' | 'not.or', value: string, depth = 1): Logic {
  if (depth > MAX_LOGIC_DEPTH) throw grammarError(`"${key}" is nested more than ${MAX_LOGIC_DEPTH} levels deep`);
  const negate = key.startsWith('not.');
  const op = key.replace('not.', '') as 'and' | 'or';
  const body = value.trim();
  if (!body.startsWith('(') || !body.endsWith(')')) throw grammarError(`"${key}=${value}": expected a parenthesised list`);
  const items = splitTop(body.slice(1, -1)).map((raw): Condition | Logic => {
    const item = raw.trim();
    const nested = /^(not\.)?(and|or)(\([\s\S]*\))$/.exec(item);
    if (nested) return parseLogic(`${nested[1] ?? ''}${nested[2]}` as 'and' | 'or' | 'not.and' | 'not.or', nested[3]!, depth + 1);
    // column.op.value, where the column may hold a JSON path (which contains no dots)
    const m = /^([^.]+)\.([\s\S]+)$/.exec(item);
    if (!m) throw grammarError(`"${item}" is not a condition`);
    return parseCondition(m[1]!, m[2]!);
  });
  if (items.length === 0) throw grammarError(`"${key}" has no conditions`);
  return { kind: 'logic', op, negate, items };
}

export function parseOrder(input: string | undefined): OrderTerm[] {
  if (!input) return [];
  return splitTop(input).map((raw) => {
    const parts = raw.trim().split('.');
    const field = parseField(parts[0]!);
    let dir: OrderTerm['dir'] = null;
    let nulls: OrderTerm['nulls'] = null;
    for (const p of parts.slice(1)) {
      if (p === 'asc' || p === 'desc') dir = p;
      else if (p === 'nullsfirst') nulls = 'first';
      else if (p === 'nullslast') nulls = 'last';
      else throw grammarError(`"${raw}": order takes asc, desc, nullsfirst or nullslast`);
    }
    return { field, dir, nulls };
  });
}

export function parseNonNegative(name: string, value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  if (!/^\d{1,15}$/.test(value)) throw grammarError(`"${name}=${value}": expected a non-negative integer`);
  return Number(value);
}
