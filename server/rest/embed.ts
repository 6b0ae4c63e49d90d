// Resource embedding (select=*,comments(*),author:users!fk(name)): which
// foreign key joins two relations, and the correlated subqueries that put the
// related rows into each row's JSON (PostgREST v12's rules).
//   many-to-one   the parent holds the key        -> an object (or null)
//   one-to-one    the child holds the key, and it is also the child's
//                 primary or unique key            -> an object (or null)
//   one-to-many   the child holds the key         -> an array
//   many-to-many  a junction holds keys to both   -> an array
// A self-referencing key embedded by the table's name gives the children
// (one-to-many); by its column name, the parent. A target may be a table or
// a foreign key's constraint name. An empty embed (`users()`) only filters.
// `!inner` keeps only parents that have a match; `...rel(cols)` spreads a
// to-one relation's columns into the parent; rel.col=..., rel.order=...,
// rel.limit=... scope filters, ordering and paging to the embedded rows.
import { restErrors } from './errors.ts';
import type { Condition, EmbedItem, Logic, OrderTerm, SelectItem } from './grammar.ts';
import type { ForeignKey, Relation } from './catalogue.ts';
import type { SchemaCache } from './schema-cache.ts';
import { castSql, columnSql, fieldSql, ident, logicSql, orderSql, type Params } from './sql.ts';

export type Scope = { conditions: Array<Condition | Logic>; order: OrderTerm[]; limit: number | null; offset: number | null };
export const emptyScope = (): Scope => ({ conditions: [], order: [], limit: null, offset: null });

type Relationship = {
  kind: 'many-to-one' | 'one-to-one' | 'one-to-many' | 'many-to-many';
  target: Relation;
  describe: string;
  /** PostgREST's ambiguity details: {cardinality, embedding, relationship}, and the hint that picks it. */
  detail: { cardinality: string; embedding: string; relationship: string };
  hint: string;
  from: (child: string, junction: string, parent: string) => string;
  on: (parent: string, child: string, junction: string) => string;
};

function qualified(schema: string, name: string): string {
  return `${ident(schema)}.${ident(name)}`;
}

function pairs(a: string[], b: string[], left: string, right: string): string {
  return a.map((col, i) => `${left}.${ident(col)} = ${right}.${ident(b[i]!)}`).join(' and ');
}

export function resolveRelationship(cache: SchemaCache, parent: Relation, item: EmbedItem): Relationship {
  const found: Relationship[] = [];
  const of = (fk: ForeignKey) => cache.find(fk.schema, fk.table);
  const ref = (fk: ForeignKey) => cache.find(fk.refSchema, fk.refTable);
  const isParent = (schema: string, table: string) => schema === parent.schema && table === parent.name;
  const viewAt = (schema: string, table: string) => cache.find(schema, table)?.kind === 'view';
  const hintOk = (fk: ForeignKey) => item.hint === null || item.hint === fk.name || fk.columns.includes(item.hint) || item.hint === fk.refTable;
  for (const fk of cache.fks) {
    // Many-to-one: the parent's key points at the embedded relation (named by table, constraint or key column).
    // A self-referencing key named by its table gives the children (below), not the parent.
    const isSelf = fk.table === fk.refTable && fk.schema === fk.refSchema;
    const selfByTable = isSelf && fk.refTable === item.name;
    // A constraint or key column named as the target finds only relationships whose embedded end is a table, as
    // PostgREST's does: a view carrying the key (an inferred copy) is reached by its own name, never by these.
    const byName = fk.name === item.name && !viewAt(fk.refSchema, fk.refTable);
    const byColumn = fk.columns.length === 1 && fk.columns[0] === item.name && !viewAt(fk.refSchema, fk.refTable);
    // A self-referencing key with a hint names only its children, by the key column (as PostgREST's does).
    if (isParent(fk.schema, fk.table) && !selfByTable && !(isSelf && item.hint !== null) && (fk.refTable === item.name || byName || byColumn) && hintOk(fk)) {
      const target = ref(fk);
      if (target) {
        found.push({
          kind: 'many-to-one', target, describe: `${fk.table}(${fk.columns.join(',')}) -> ${fk.refTable} via ${fk.name}`,
          detail: { cardinality: fk.unique ? 'one-to-one' : 'many-to-one', embedding: `${parent.name} with ${target.name}`, relationship: `${fk.name} using ${fk.table}(${fk.columns.join(', ')}) and ${fk.refTable}(${fk.refColumns.join(', ')})` },
          hint: `${item.name}!${fk.name}`,
          from: (child) => `${qualified(target.schema, target.name)} ${child}`,
          on: (p, child) => pairs(fk.refColumns, fk.columns, child, p),
        });
      }
    }
    // One-to-many: the embedded relation's key points at the parent.
    const byNameToMany = fk.name === item.name && !viewAt(fk.schema, fk.table);
    const hintToMany = item.hint === null || fk.columns.includes(item.hint) || (!isSelf && item.hint === fk.name);
    if (isParent(fk.refSchema, fk.refTable) && (fk.table === item.name || byNameToMany) && hintToMany) {
      const target = of(fk);
      if (target) {
        found.push({
          kind: fk.unique ? 'one-to-one' : 'one-to-many', target, describe: `${fk.refTable} <- ${fk.table}(${fk.columns.join(',')}) via ${fk.name}`,
          // The parent's side first, as v12 words it ("fk using users(username) and best_friends(first_user)").
          detail: { cardinality: fk.unique ? 'one-to-one' : 'one-to-many', embedding: `${parent.name} with ${target.name}`, relationship: `${fk.name} using ${fk.refTable}(${fk.refColumns.join(', ')}) and ${fk.table}(${fk.columns.join(', ')})` },
          hint: `${item.name}!${fk.name}`,
          from: (child) => `${qualified(target.schema, target.name)} ${child}`,
          on: (p, child) => pairs(fk.columns, fk.refColumns, child, p),
        });
      }
    }
  }
  // Many-to-many: a junction with one key to the parent and one to the embedded relation.
  for (const toParent of cache.fks) {
    if (!isParent(toParent.refSchema, toParent.refTable) || isParent(toParent.schema, toParent.table)) continue;
    for (const toTarget of cache.fks) {
      if (toTarget === toParent || toTarget.schema !== toParent.schema || toTarget.table !== toParent.table || toTarget.refTable !== item.name) continue;
      if (item.hint !== null && item.hint !== toParent.table) continue;
      const target = ref(toTarget);
      if (!target) continue;
      found.push({
        kind: 'many-to-many', target, describe: `${parent.name} <- ${toParent.table} -> ${target.name}`,
        detail: { cardinality: 'many-to-many', embedding: `${parent.name} with ${target.name}`, relationship: `${toParent.table} using ${toParent.name}(${toParent.columns.join(', ')}) and ${toTarget.name}(${toTarget.columns.join(', ')})` },
        hint: `${item.name}!${toParent.table}`,
        from: (child, j) => `${qualified(target.schema, target.name)} ${child} join ${qualified(toParent.schema, toParent.table)} ${j} on ${pairs(toTarget.columns, toTarget.refColumns, j, child)}`,
        on: (p, _child, j) => pairs(toParent.columns, toParent.refColumns, j, p),
      });
    }
  }
  // A computed relationship: a function of the parent's row returning rows of a table (one, or a set).
  const fn = found.length === 0 ? cache.computed(parent, item.name) : undefined;
  const returned = fn?.returnsRelation ? cache.find(fn.returnsRelation.schema, fn.returnsRelation.name) : undefined;
  if (fn && returned) {
    found.push({
      // A set declared ROWS 1 is one row, embedded as an object.
      kind: fn.returnsSet && !fn.oneRow ? 'one-to-many' : 'many-to-one', target: returned, describe: `${fn.name}(${parent.name}) -> ${returned.name}`,
      detail: { cardinality: fn.returnsSet && !fn.oneRow ? 'one-to-many' : 'many-to-one', embedding: `${parent.name} with ${returned.name}`, relationship: `${fn.schema}.${fn.name}` },
      hint: item.name,
      from: (child, _j, p) => `${qualified(fn.schema, fn.name)}(${p}) ${child}`,
      on: () => 'true',
    });
  }
  if (found.length === 0) {
    throw restErrors.noRelationship(parent.name, item.name, parent.schema);
  }
  if (found.length > 1) {
    throw restErrors.ambiguousRelationship(parent.name, item.name, found.map((r) => r.detail), found.map((r) => r.hint));
  }
  return found[0]!;
}

/** `next(name)` gives a fresh quoted alias for a relation named `name` (`"tags_1"`, as PostgREST names them). */
export type SelectContext = { cache: SchemaCache; params: Params; scopes: Map<string, Scope>; next: (name: string) => string; aggregates?: boolean };
/**
 * `groupBy`: with an aggregate in the list, the other columns' expressions (the rows are grouped by them).
 * `joins`: lateral joins the columns read from (a spread's, when the list aggregates: its columns are then
 * grouped by as columns, which a correlated subquery's could not be).
 */
export type BuiltSelect = { columns: Array<{ expr: string; name: string | null }>; inner: string[]; groupBy?: string[]; joins?: string[] };

/** The lateral joins of a select list, to follow its FROM item. */
export function joinsSql(built: BuiltSelect): string {
  return built.joins && built.joins.length > 0 ? ` ${built.joins.join(' ')}` : '';
}

/** ` group by ...` for a list with aggregates, else nothing. */
export function groupBySql(built: BuiltSelect): string {
  return built.groupBy && built.groupBy.length > 0 ? ` group by ${built.groupBy.join(', ')}` : '';
}

/** The select list of one relation (aliased `alias`), embeds included. */
export function buildSelect(rel: Relation, items: SelectItem[], alias: string, path: string, ctx: SelectContext): BuiltSelect {
  const out: BuiltSelect = { columns: [], inner: [] };
  // Two embeds under one key would overwrite each other in the JSON: refused, naming the alias to add.
  const keys = new Set<string>();
  for (const item of items) {
    if (item.kind !== 'embed' || item.spread || item.select.length === 0) continue;
    const key = item.alias ?? item.name;
    if (keys.has(key)) throw restErrors.embedCollision(key);
    keys.add(key);
  }
  const grouped: string[] = [];
  let aggregated = false;
  const aggregating = items.some((i) => i.kind === 'aggregate');
  for (const item of items) {
    if (item.kind === 'aggregate') {
      if (!ctx.aggregates) throw restErrors.aggregatesDisabled();
      aggregated = true;
      const arg = item.field ? fieldSql(item.field, ctx.params, alias) : '*';
      out.columns.push({ expr: `${item.fn}(${arg})${item.cast ? castSql(item.cast) : ''}`, name: item.alias ?? item.fn });
      continue;
    }
    const before = out.columns.length;
    if (item.kind === 'star') {
      out.columns.push({ expr: `${alias}.*`, name: null });
      grouped.push(...rel.columns.map((c) => `${alias}.${ident(c.name)}`));
      continue;
    } else if (item.kind === 'column') {
      // A computed field: a function of the row, called by name (filters and order reach it by attribute notation).
      const computed = !rel.columns.some((c) => c.name === item.field.name) && item.field.json.length === 0 && !item.cast ? ctx.cache.computed(rel, item.field.name) : undefined;
      if (computed && !computed.returnsRows) out.columns.push({ expr: `${qualified(computed.schema, computed.name)}(${alias})`, name: item.alias ?? item.field.name });
      else out.columns.push(columnSql(item, ctx.params, alias));
    } else {
      embed(rel, item, alias, path, ctx, out, aggregating);
    }
    grouped.push(...out.columns.slice(before).map((c) => c.expr));
  }
  if (aggregated) out.groupBy = grouped;
  return out;
}

export function selectListSql(built: BuiltSelect): string {
  return built.columns.map((c) => (c.name === null ? c.expr : `${c.expr} as ${ident(c.name)}`)).join(', ');
}

function embed(parent: Relation, item: EmbedItem, parentAlias: string, path: string, ctx: SelectContext, out: BuiltSelect, aggregating: boolean): void {
  const r = resolveRelationship(ctx.cache, parent, item);
  const key = item.alias ?? item.name;
  const childPath = path ? `${path}.${key}` : key;
  const scope = ctx.scopes.get(childPath) ?? emptyScope();
  const child = ctx.next(r.target.name);
  const junction = ctx.next('junction');
  const toOne = r.kind === 'many-to-one' || r.kind === 'one-to-one';
  const childSelect = buildSelect(r.target, item.select, child, childPath, ctx);
  const conditions = [r.on(parentAlias, child, junction), ...scope.conditions.map((c) => logicSql(c, ctx.params, child)), ...childSelect.inner];
  const where = ` where ${conditions.join(' and ')}`;
  const from = r.from(child, junction, parentAlias);
  if (item.join === 'inner') out.inner.push(`exists (select 1 from ${from}${where})`);
  if (item.select.length === 0) return;

  if (item.spread) {
    if (!toOne) throw restErrors.spreadNeedsToOne(item.name);
    const cols = childSelect.columns.flatMap((c) =>
      c.name === null ? r.target.columns.map((col) => ({ expr: `${child}.${ident(col.name)}`, name: col.name })) : [c as { expr: string; name: string }],
    );
    if (aggregating) {
      // Beside an aggregate the spread's columns are grouped by: read from a lateral join, as columns.
      const lateral = ctx.next(`${r.target.name}_spread`);
      out.joins = [...(out.joins ?? []), `left join lateral (select ${cols.map((c, i) => `${c.expr} as _pgrst_s${i}`).join(', ')} from ${from}${joinsSql(childSelect)}${where} limit 1) ${lateral} on true`];
      cols.forEach((c, i) => out.columns.push({ expr: `${lateral}._pgrst_s${i}`, name: c.name }));
      return;
    }
    for (const c of cols) out.columns.push({ expr: `(select ${c.expr} from ${from}${joinsSql(childSelect)}${where} limit 1)`, name: c.name });
    return;
  }
  const list = selectListSql(childSelect);
  if (toOne) {
    out.columns.push({ expr: `(select row_to_json(_pgrst_e) from (select ${list} from ${from}${joinsSql(childSelect)}${where}${groupBySql(childSelect)} limit 1) _pgrst_e)`, name: key });
    return;
  }
  const order = orderSql(scope.order, ctx.params, child);
  const page = `${scope.limit !== null ? ` limit ${ctx.params.add(scope.limit)}` : ''}${scope.offset ? ` offset ${ctx.params.add(scope.offset)}` : ''}`;
  out.columns.push({ expr: `(select coalesce(json_agg(_pgrst_e), '[]') from (select ${list} from ${from}${joinsSql(childSelect)}${where}${groupBySql(childSelect)}${order}${page}) _pgrst_e)`, name: key });
}

/** Paths of every embed in a select tree ("comments", "comments.author", ...), longest first. */
export function embedPaths(items: SelectItem[], prefix = ''): string[] {
  const paths: string[] = [];
  for (const item of items) {
    if (item.kind !== 'embed') continue;
    const path = prefix ? `${prefix}.${item.alias ?? item.name}` : (item.alias ?? item.name);
    paths.push(path, ...embedPaths(item.select, path));
  }
  return paths.sort((a, b) => b.length - a.length);
}
