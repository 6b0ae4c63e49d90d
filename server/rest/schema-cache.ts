// The latest reading of the catalogue (catalogue.ts) and its lookups.
// Reloaded on NOTIFY pgrst, 'reload schema' (sent by the DDL event trigger of
// sql/0012, or by a DBA), over a listening connection that reconnects by
// itself when the database restarts. NOTIFY pgrst, 'reload config' reads the
// REST settings again (settings.ts), and the catalogue too when the exposed
// schemas changed, as PostgREST does.
import pg from 'pg';
import type { Logger } from 'pino';
import { listenChannel, type Listener } from '../../db/listener.ts';
import { readCatalogue, type DbFunction, type ForeignKey, type Relation } from './catalogue.ts';
import type { RestConfig } from './settings.ts';

export class SchemaCache {
  private relations = new Map<string, Relation>();
  private functions = new Map<string, DbFunction[]>();
  private foreignKeys: ForeignKey[] = [];

  get fks(): ForeignKey[] {
    return this.foreignKeys;
  }
  private listener: Listener | undefined;
  private readonly url: string;
  private schemas: string[];
  private readonly log: Logger;
  private readonly pool: pg.Pool;
  private readonly settings: RestConfig | undefined;

  constructor(opts: { pool: pg.Pool; url: string; schemas: string[]; log: Logger; settings?: RestConfig }) {
    this.pool = opts.pool;
    this.url = opts.url;
    this.schemas = opts.schemas;
    this.settings = opts.settings;
    this.log = opts.log.child({ component: 'schema-cache' });
  }

  get exposedSchemas(): string[] {
    return this.schemas;
  }

  /** Every table and view of one schema, by name. */
  relationsIn(schema: string): Relation[] {
    return [...this.relations.values()].filter((r) => r.schema === schema).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Every function /rpc may call in one schema. */
  functionsIn(schema: string): DbFunction[] {
    return [...this.functions.values()].flat().filter((f) => f.schema === schema && f.callable);
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
    return this.allFunctions(rel.schema, name).find((f) => f.args.length >= 1 && f.args[0]!.relation === `${rel.schema}.${rel.name}` && f.args.slice(1).every((a) => a.hasDefault));
  }

  /** The functions /rpc may call under this name (the callable overloads only, as PostgREST v12: sql/0105). */
  findFunctions(schema: string, name: string): DbFunction[] {
    return this.allFunctions(schema, name).filter((f) => f.callable);
  }

  /** Every function of this name, computed fields' and relationships' included. */
  private allFunctions(schema: string, name: string): DbFunction[] {
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
          const read = await readCatalogue(this.pool, this.schemas);
          this.relations = read.relations;
          this.functions = read.functions;
          this.foreignKeys = read.fks;
          this.log.debug({ relations: read.relations.size }, 'schema cache loaded');
        } while (this.reloadAgain);
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /** Listens for reload requests (db/listener.ts reconnects; anything changed while away is read again). */
  async listen(): Promise<void> {
    const reload = () => this.load()
      .then(() => Promise.all(this.reloadListeners.map((l) => l())))
      .catch((err: Error) => this.log.error({ error: err.message }, 'schema reload failed'));
    this.listener = listenChannel({
      url: this.url, channel: 'pgrst', name: 'schema-cache', log: this.log,
      onNotify: (payload) => {
        if (payload === 'reload schema' || payload === '') void reload();
        else if (payload === 'reload config') {
          void this.reloadConfig().then((changed) => (changed ? reload() : undefined))
            .catch((err: Error) => this.log.error({ error: err.message }, 'config reload failed'));
        }
      },
      onListening: () => this.reloadConfig().then(() => this.load()),
    });
    await this.listener.ready;
  }

  /** Reads the REST settings again; true when the exposed schemas changed (the catalogue must be read again). */
  private async reloadConfig(): Promise<boolean> {
    if (!this.settings) return false;
    const { schemas } = await this.settings.load();
    if (schemas.join(',') === this.schemas.join(',')) return false;
    this.schemas = schemas;
    return true;
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
  }
}
