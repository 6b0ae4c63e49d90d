// Tables, views and their columns and primary keys in the exposed schemas,
// read from pg_catalog. Reloaded on NOTIFY pgrst, 'reload schema' (sent by the
// DDL event trigger of sql/0012, or by a DBA), over a listening connection that
// reconnects by itself when the database restarts.
import pg from 'pg';
import type { Logger } from 'pino';

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

export class SchemaCache {
  private relations = new Map<string, Relation>();
  private functions = new Map<string, DbFunction[]>();
  private foreignKeys: ForeignKey[] = [];

  get fks(): ForeignKey[] {
    return this.foreignKeys;
  }
  private listener: pg.Client | undefined;
  private stopped = false;
  private readonly url: string;
  private readonly schemas: string[];
  private readonly log: Logger;
  private readonly pool: pg.Pool;

  constructor(opts: { pool: pg.Pool; url: string; schemas: string[]; log: Logger }) {
    this.pool = opts.pool;
    this.url = opts.url;
    this.schemas = opts.schemas;
    this.log = opts.log.child({ component: 'schema-cache' });
  }

  get exposedSchemas(): string[] {
    return this.schemas;
  }

  /** Every table and view of one schema, by name. */
  relationsIn(schema: string): Relation[] {
    return [...this.relations.values()].filter((r) => r.schema === schema).sort((a, b) => a.name.localeCompare(b.name));
  }

  find(schema: string, name: string): Relation | undefined {
    return this.relations.get(`${schema}.${name}`);
  }

  /** The overloads of a function, by schema and name. */
  /**
   * A computed field or relationship of `rel` (PostgREST v10+): a function of
   * rel's schema named `name` whose first argument is rel's row type and
   * whose other arguments all have defaults.
   */
  computed(rel: Relation, name: string): DbFunction | undefined {
    return this.findFunctions(rel.schema, name).find((f) => f.args.length >= 1 && f.args[0]!.relation === `${rel.schema}.${rel.name}` && f.args.slice(1).every((a) => a.hasDefault));
  }

  findFunctions(schema: string, name: string): DbFunction[] {
    return this.functions.get(`${schema}.${name}`) ?? [];
  }

  private readonly reloadListeners: Array<() => Promise<void>> = [];

  /** Called after each reload that followed a change (the GraphQL schema rebuilds here). */
  onReload(listener: () => Promise<void>): void {
    this.reloadListeners.push(listener);
  }

  private loading: Promise<void> | undefined;
  private reloadAgain = false;

  /**
   * Loads the catalog. Reloads never overlap: one asked for while another runs
   * makes exactly one more run after it, so a burst of DDL ends with a load
   * that saw all of it, and an older load can never overwrite a newer one.
   */
  load(): Promise<void> {
    if (this.loading) {
      this.reloadAgain = true;
      return this.loading;
    }
    this.loading = (async () => {
      try {
        do {
          this.reloadAgain = false;
          const [relations, functions, fks] = await Promise.all([this.readRelations(), this.readFunctions(), this.readForeignKeys()]);
          this.relations = relations;
          this.functions = functions;
          this.foreignKeys = fks;
        } while (this.reloadAgain);
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  private async readForeignKeys(): Promise<ForeignKey[]> {
    const { rows } = await this.pool.query<ForeignKey>(
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
        where c.contype = 'f' and sn.nspname = any($1) and tn.nspname = any($1)`,
      [this.schemas],
    );
    return [...rows, ...throughViews(rows, await this.readViewColumns())];
  }

  /**
   * Where each view column comes from, as PostgREST infers it: the view's
   * stored query tree names the origin table and column of every output
   * column (TargetEntry resorigtbl, resorigcol). The outer query's target
   * list is printed last, so a view's own columns are the last ones there.
   */
  private async readViewColumns(): Promise<ViewColumn[]> {
    const { rows } = await this.pool.query<ViewColumn>(
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
      [this.schemas],
    );
    return rows;
  }

  private async readFunctions(): Promise<Map<string, DbFunction[]>> {
    const { rows } = await this.pool.query<{ schema: string; name: string; names: string[]; types: string[]; composite: boolean[]; relation_of: Array<string | null>; modes: string[]; ndefaults: number; retset: boolean; rows: boolean; void: boolean; rel_schema: string | null; rel_name: string | null; volatile: boolean; variadic: boolean }>(
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
              p.pronargdefaults as ndefaults, p.proretset as retset,
              (t.typtype = 'c' or t.oid = 'record'::regtype) as rows,
              p.provolatile = 'v' as volatile, p.provariadic <> 0 as variadic
         from pg_proc p
         join pg_namespace n on n.oid = p.pronamespace
         join pg_type t on t.oid = p.prorettype
        where n.nspname = any($1) and p.prokind = 'f' and t.oid <> 'trigger'::regtype and t.oid <> 'event_trigger'::regtype`,
      [this.schemas],
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
        returnsRelation: r.rel_schema && r.rel_name ? { schema: r.rel_schema, name: r.rel_name } : null, volatile: r.volatile,
      });
    }
    return fns;
  }

  private async readRelations(): Promise<Map<string, Relation>> {
    const { rows } = await this.pool.query<{ schema: string; name: string; relkind: string; insertable: boolean; columns: Column[] | null; pk: string[] | null }>(
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
        where n.nspname = any($1) and c.relkind in ('r', 'v', 'm', 'f', 'p')`,
      [this.schemas],
    );
    this.log.debug({ relations: rows.length }, 'schema cache loaded');
    return new Map(
      rows.map((r) => [
        `${r.schema}.${r.name}`,
        { schema: r.schema, name: r.name, kind: r.relkind === 'v' || r.relkind === 'm' ? 'view' : 'table', insertable: r.insertable, columns: r.columns ?? [], primaryKey: r.pk ?? [] },
      ]),
    );
  }

  /** Listens for reload requests; reconnects with backoff if the connection drops. */
  async listen(): Promise<void> {
    let delay = 500;
    const connect = async (): Promise<void> => {
      if (this.stopped) return;
      const client = new pg.Client({ connectionString: this.url, application_name: 'pgbase:schema-cache' });
      client.on('error', () => undefined);
      client.on('end', () => {
        if (this.stopped) return;
        this.log.warn('schema cache listener lost its connection; reconnecting');
        setTimeout(() => void connect().catch(() => undefined), delay).unref();
        delay = Math.min(delay * 2, 10_000);
      });
      client.on('notification', (msg) => {
        if (msg.channel === 'pgrst' && (msg.payload === 'reload schema' || msg.payload === '')) {
          this.load()
            .then(() => Promise.all(this.reloadListeners.map((l) => l())))
            .catch((err: Error) => this.log.error({ error: err.message }, 'schema reload failed'));
        }
      });
      try {
        await client.connect();
        await client.query('listen pgrst');
        this.listener = client;
        delay = 500;
        // Anything changed while we were away.
        await this.load();
      } catch {
        await client.end().catch(() => undefined);
      }
    };
    await connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listener?.end().catch(() => undefined);
  }
}
