// What the REST surface knows of the database, read from pg_catalog in one
// pass: the tables and views of the exposed schemas with their columns and
// keys, the functions, and the foreign keys (through views too, as PostgREST
// infers them). Read in a set order, so everything built from it (embedding
// candidates, PGRST201's list, the OpenAPI document) is the same on every
// load. SchemaCache holds the latest reading and decides when to read.
import type pg from 'pg';

export type Column = { name: string; type: string; nullable: boolean; hasDefault: boolean };
export type FunctionArg = { name: string; type: string; hasDefault: boolean; variadic: boolean;
  /** A row type (a table's or a composite): a JSON object for it is converted as json_populate_record would. */
  composite: boolean;
  /** The table or view whose row type it is ("schema.name"), for computed fields and relationships. */
  relation: string | null };
export type DbFunction = {
  schema: string;
  name: string;
  args: FunctionArg[];
  returnsSet: boolean;
  /** Returns rows (a table, composite or record type): selectable and filterable like a table. */
  returnsRows: boolean;
  /** Returns void: PostgREST answers 204 with no body. */
  returnsVoid: boolean;
  /** The table or view whose row type it returns (schema, name), for embedding on its result. */
  returnsRelation: { schema: string; name: string } | null;
  volatile: boolean;
  /** Declared `ROWS 1` on a set: a computed relationship that embeds as one object, not an array (as PostgREST reads it). */
  oneRow: boolean;
  /** Callable by /rpc (sql/0105); a computed field's or relationship's function (one unnamed row argument) need not be. */
  callable: boolean;
};

/** A foreign key: `columns` of schema.table reference `refColumns` of refSchema.refTable. */
export type ForeignKey = { name: string; schema: string; table: string; columns: string[]; refSchema: string; refTable: string; refColumns: string[];
  /** Its columns are also the table's primary key or a unique key: one-to-one, embedded as an object from either side. */
  unique: boolean;
  /** Inferred through a view (one end or both is a view showing the key's columns). */
  viaView?: boolean };

/** A view column that shows a table's column as it is. */
type ViewColumn = { schema: string; view: string; column: string; baseSchema: string; baseTable: string; baseColumn: string };

/**
 * Foreign keys through views (PostgREST infers them): a view that shows a
 * key's columns carries the key, from either end or both; named as the key.
 */
function throughViews(fks: ForeignKey[], columns: ViewColumn[]): ForeignKey[] {
  // For each table, the views over it and how they name its columns.
  const views = new Map<string, Map<string, Map<string, string>>>();
  for (const c of columns) {
    const table = `${c.baseSchema}.${c.baseTable}`;
    const byView = views.get(table) ?? new Map<string, Map<string, string>>();
    views.set(table, byView);
    const names = byView.get(`${c.schema}.${c.view}`) ?? new Map<string, string>();
    byView.set(`${c.schema}.${c.view}`, names);
    if (!names.has(c.baseColumn)) names.set(c.baseColumn, c.column);
  }
  /** The table itself, then every view that shows all of `cols`, with their names there. */
  const ends = (schema: string, table: string, cols: string[]) => [
    { schema, table, cols },
    ...[...(views.get(`${schema}.${table}`) ?? new Map<string, Map<string, string>>())]
      .filter(([, names]) => cols.every((c) => names.has(c)))
      .map(([view, names]) => ({ schema: view.slice(0, view.indexOf('.')), table: view.slice(view.indexOf('.') + 1), cols: cols.map((c) => names.get(c)!) })),
  ];
  const out: ForeignKey[] = [];
  for (const fk of fks) {
    for (const from of ends(fk.schema, fk.table, fk.columns)) {
      for (const to of ends(fk.refSchema, fk.refTable, fk.refColumns)) {
        if (from.table === fk.table && from.schema === fk.schema && to.table === fk.refTable && to.schema === fk.refSchema) continue;
        // A view has no unique key of its own: only a key still held by its table keeps its one-to-one.
        const own = from.schema === fk.schema && from.table === fk.table;
        out.push({ name: fk.name, schema: from.schema, table: from.table, columns: from.cols, refSchema: to.schema, refTable: to.table, refColumns: to.cols, unique: own && fk.unique, viaView: true });
      }
    }
  }
  return out;
}

export type Relation = { schema: string; name: string; kind: 'table' | 'view'; insertable: boolean; columns: Column[]; primaryKey: string[] };

/** Everything the REST surface reads from the catalogue, for the exposed schemas. */
export type Catalogue = { relations: Map<string, Relation>; functions: Map<string, DbFunction[]>; fks: ForeignKey[] };

export async function readCatalogue(pool: pg.Pool, schemas: string[]): Promise<Catalogue> {
  const [relations, functions, fks] = await Promise.all([readRelations(pool, schemas), readFunctions(pool, schemas), readForeignKeys(pool, schemas)]);
  return { relations, functions, fks };
}

async function readForeignKeys(pool: pg.Pool, schemas: string[]): Promise<ForeignKey[]> {
  const { rows } = await pool.query<ForeignKey>(
    `select c.conname as name, sn.nspname as schema, s.relname as table,
            array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i)
                    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as columns,
            tn.nspname as "refSchema", t.relname as "refTable",
            array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i)
                    join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i) as "refColumns",
            exists (select 1 from pg_index i
                     where i.indrelid = c.conrelid and i.indisunique and i.indpred is null
                       and (select array_agg(x order by x) from unnest(i.indkey::int2[]) x) = (select array_agg(x order by x) from unnest(c.conkey) x)) as unique
       from pg_constraint c
       join pg_class s on s.oid = c.conrelid join pg_namespace sn on sn.oid = s.relnamespace
       join pg_class t on t.oid = c.confrelid join pg_namespace tn on tn.oid = t.relnamespace
      where c.contype = 'f' and sn.nspname = any($1) and tn.nspname = any($1)
      order by sn.nspname, s.relname, c.conname`,
    [schemas],
  );
  return [...rows, ...throughViews(rows, await readViewColumns(pool, schemas))];
}

/**
 * Where each view column comes from, as PostgREST infers it: the view's
 * stored query tree names the origin table and column of every output
 * column (TargetEntry resorigtbl, resorigcol). The outer query's target
 * list is printed last, so a view's own columns are the last ones there.
 */
async function readViewColumns(pool: pg.Pool, schemas: string[]): Promise<ViewColumn[]> {
  const { rows } = await pool.query<ViewColumn>(
    `with views as (
       select v.oid, vn.nspname as schema, v.relname as view, r.ev_action::text as tree,
              (select count(*) from pg_attribute a where a.attrelid = v.oid and a.attnum > 0 and not a.attisdropped) as width
         from pg_class v join pg_namespace vn on vn.oid = v.relnamespace
         join pg_rewrite r on r.ev_class = v.oid and r.rulename = '_RETURN'
        where v.relkind in ('v', 'm') and vn.nspname = any($1)),
     entries as (
       select v.schema, v.view, v.width, m.n, m.e[1] as column, m.e[2]::oid as tbl, m.e[3]::int as col
         from views v, regexp_matches(v.tree, ':resname (\\S+) :ressortgroupref \\d+ :resorigtbl (\\d+) :resorigcol (\\d+) :resjunk false', 'g') with ordinality m(e, n)),
     own as (
       select e.*, row_number() over (partition by e.schema, e.view order by e.n desc) as from_end from entries e)
     select o.schema, o.view, o.column, bn.nspname as "baseSchema", b.relname as "baseTable", a.attname::text as "baseColumn"
       from own o join pg_class b on b.oid = o.tbl join pg_namespace bn on bn.oid = b.relnamespace
       join pg_attribute a on a.attrelid = o.tbl and a.attnum = o.col
      where o.from_end <= o.width and o.tbl <> 0`,
    [schemas],
  );
  return rows;
}

async function readFunctions(pool: pg.Pool, schemas: string[]): Promise<Map<string, DbFunction[]>> {
  const { rows } = await pool.query<{ schema: string; name: string; names: string[]; types: string[]; composite: boolean[]; relation_of: Array<string | null>; modes: string[]; ndefaults: number; retset: boolean; one_row: boolean; rows: boolean; callable: boolean; void: boolean; rel_schema: string | null; rel_name: string | null; volatile: boolean; variadic: boolean }>(
    `select n.nspname as schema, p.proname as name,
            coalesce(p.proargnames, array_fill(''::text, array[p.pronargs])) as names,
            array(select format_type(t, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t) as types,
            array(select coalesce((select at.typtype = 'c' from pg_type at where at.oid = t), false) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t) as composite,
            array(select (select rn.nspname || '.' || rc.relname from pg_type at join pg_class rc on rc.oid = at.typrelid join pg_namespace rn on rn.oid = rc.relnamespace
                            where at.oid = t and rc.relkind in ('r', 'v', 'm', 'f', 'p'))
                    from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t) as relation_of,
            t.oid = 'void'::regtype as void,
            (select rn.nspname from pg_class rc join pg_namespace rn on rn.oid = rc.relnamespace where rc.oid = t.typrelid and rc.relkind in ('r', 'v', 'm', 'f', 'p')) as rel_schema,
            (select rc.relname from pg_class rc where rc.oid = t.typrelid and rc.relkind in ('r', 'v', 'm', 'f', 'p')) as rel_name,
            coalesce(p.proargmodes::text[], array_fill('i'::text, array[p.pronargs])) as modes,
            p.pronargdefaults as ndefaults, p.proretset as retset, p.proretset and p.prorows = 1 as one_row,
            (t.typtype = 'c' or t.oid = 'record'::regtype) as rows,
            p.provolatile = 'v' as volatile, p.provariadic <> 0 as variadic,
            -- What PostgREST v12 can call by /rpc (sql/0105): named inputs, or one unnamed body-typed input.
            platform.rest_callable(p.oid) as callable
       from pg_proc p
       join pg_namespace n on n.oid = p.pronamespace
       join pg_type t on t.oid = p.prorettype
      where n.nspname = any($1) and p.prokind = 'f' and t.oid <> 'trigger'::regtype and t.oid <> 'event_trigger'::regtype
      order by n.nspname, p.proname, p.oid`,
    [schemas],
  );
  const fns = new Map<string, DbFunction[]>();
  for (const r of rows) {
    // Input arguments only (IN, INOUT, VARIADIC); defaults belong to the last ones.
    const inputs = r.types.map((type, i) => ({ type, name: r.names[i] ?? '', mode: r.modes[i] ?? 'i', composite: r.composite[i] ?? false, relation: r.relation_of[i] ?? null }))
      .filter((a) => a.mode === 'i' || a.mode === 'b' || a.mode === 'v');
    const args = inputs.map((a, i) => ({ name: a.name, type: a.type, hasDefault: i >= inputs.length - r.ndefaults, variadic: a.mode === 'v', composite: a.composite, relation: a.relation }));
    const key = `${r.schema}.${r.name}`;
    if (!fns.has(key)) fns.set(key, []);
    fns.get(key)!.push({
      schema: r.schema, name: r.name, args, returnsSet: r.retset, returnsRows: r.rows, returnsVoid: r.void,
      returnsRelation: r.rel_schema && r.rel_name ? { schema: r.rel_schema, name: r.rel_name } : null, volatile: r.volatile, oneRow: r.one_row, callable: r.callable,
    });
  }
  return fns;
}

async function readRelations(pool: pg.Pool, schemas: string[]): Promise<Map<string, Relation>> {
  const { rows } = await pool.query<{ schema: string; name: string; relkind: string; insertable: boolean; columns: Column[] | null; pk: string[] | null }>(
    `select n.nspname as schema, c.relname as name, c.relkind,
            c.relkind in ('r', 'p', 'f') or pg_relation_is_updatable(c.oid, true) & 8 = 8 as insertable,
            (select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod),
                                               'nullable', not a.attnotnull,
                                               'hasDefault', a.atthasdef or a.attidentity <> '' or a.attgenerated <> '') order by a.attnum)
               from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns,
            (select array_agg(a.attname::text order by array_position(i.indkey::int2[], a.attnum))
               from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
              where i.indrelid = c.oid and i.indisprimary) as pk
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1) and c.relkind in ('r', 'v', 'm', 'f', 'p')
      order by n.nspname, c.relname`,
    [schemas],
  );
  return new Map(
    rows.map((r) => [
      `${r.schema}.${r.name}`,
      { schema: r.schema, name: r.name, kind: r.relkind === 'v' || r.relkind === 'm' ? 'view' : 'table', insertable: r.insertable, columns: r.columns ?? [], primaryKey: r.pk ?? [] },
    ]),
  );
}
