// PostgREST's configuration of the REST layer. Each setting comes from its
// environment variable when that is set, else from the database (the
// authenticator role's pgrst.* settings, read by platform.rest_config() of
// sql/0106), else its default; NOTIFY pgrst, 'reload config' reads the
// database again (schema-cache.ts listens). A value the database holds that
// does not parse is left out with a warning, as a bad line in a config file
// would stop PostgREST's reload: the setting keeps its environment value or
// default, never a half-read one.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';

export type OpenApiMode = 'follow-privileges' | 'ignore-privileges' | 'disabled';

export type RestSettings = {
  aggregates: boolean;
  plan: boolean;
  /** db-max-rows: the most rows a read or a function answers (null: no limit). */
  maxRows: number | null;
  /** db-pre-request: the function called before each request's statement, quoted (null: none). */
  preRequest: string | null;
  /** db-extra-search-path: schemas searched after the request's own. */
  extraSearchPath: string[];
  openapiMode: OpenApiMode;
  /** openapi-server-proxy-uri: the address the OpenAPI document names (null: the API's own). */
  openapiServerProxyUri: string | null;
  /** db-schemas: the exposed schemas, the first the default. */
  schemas: string[];
};

const NAME = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const quote = (name: string) => `"${name}"`;
const names = (v: string): string[] | undefined => {
  const list = v.split(',').map((s) => s.trim());
  return list.length > 0 && list.every((n) => NAME.test(n)) ? list : undefined;
};
const bool = (v: string): boolean | undefined => (/^(true|on|yes|1)$/i.test(v) ? true : /^(false|off|no|0)$/i.test(v) ? false : undefined);

type Setting<K extends keyof RestSettings> = { key: K; env: keyof Config & string; parse: (v: string) => RestSettings[K] | undefined };
const setting = <K extends keyof RestSettings>(key: K, env: keyof Config & string, parse: (v: string) => RestSettings[K] | undefined): Setting<K> => ({ key, env, parse });

/** Each setting PostgREST reads from the database that pgbase honours, by its PostgREST name. */
const SETTINGS: Record<string, Setting<keyof RestSettings>> = {
  db_aggregates_enabled: setting('aggregates', 'REST_AGGREGATES_ENABLED', bool),
  db_plan_enabled: setting('plan', 'REST_PLAN_ENABLED', bool),
  db_max_rows: setting('maxRows', 'REST_MAX_ROWS', (v) => (v.trim() === '' ? null : /^\d{1,9}$/.test(v.trim()) ? Number(v) : undefined)),
  db_pre_request: setting('preRequest', 'REST_PRE_REQUEST', (v) => {
    if (v.trim() === '') return null;
    const parts = v.trim().split('.');
    return parts.length <= 2 && parts.every((p) => NAME.test(p)) ? parts.map(quote).join('.') : undefined;
  }),
  db_extra_search_path: setting('extraSearchPath', 'REST_EXTRA_SEARCH_PATH', (v) => (v.trim() === '' ? [] : names(v))),
  openapi_mode: setting('openapiMode', 'REST_OPENAPI_MODE', (v) => (['follow-privileges', 'ignore-privileges', 'disabled'].includes(v) ? (v as OpenApiMode) : undefined)),
  openapi_server_proxy_uri: setting('openapiServerProxyUri', 'REST_OPENAPI_SERVER_PROXY_URI', (v) => (v.trim() === '' ? null : URL.canParse(v) ? v.replace(/\/$/, '') : undefined)),
  db_schemas: setting('schemas', 'REST_SCHEMAS', names),
};

/** The settings of the environment alone (defaults where unset): the REST layer's before the database is read, and in-process callers'. */
export function environmentSettings(config: Config): RestSettings {
  const out = { maxRows: null, preRequest: null, openapiServerProxyUri: null } as Partial<RestSettings>;
  for (const s of Object.values(SETTINGS)) {
    const raw = config[s.env];
    const value = raw === undefined ? undefined : s.parse(String(raw));
    if (value !== undefined) (out as Record<string, unknown>)[s.key] = value;
  }
  return out as RestSettings;
}

/** The REST layer's live settings: `current` changes on each reload. */
export class RestConfig {
  current: RestSettings;
  private readonly config: Config;
  private readonly pool: pg.Pool;
  private readonly log: Logger;

  constructor(opts: { config: Config; pool: pg.Pool; log: Logger }) {
    this.config = opts.config;
    this.pool = opts.pool;
    this.log = opts.log.child({ component: 'rest-config' });
    this.current = environmentSettings(opts.config);
  }

  /** Reads the database's settings again; those the environment sets keep the environment's value. */
  async load(): Promise<RestSettings> {
    const { rows } = await this.pool.query<{ name: string; value: string }>('select name, value from platform.rest_config()');
    const next = environmentSettings(this.config);
    for (const { name, value } of rows) {
      const s = SETTINGS[name];
      if (!s) continue; // PostgREST's settings pgbase has its own way for (jwt_*, db_anon_role, server_*): docs/rest.md
      if (this.config.setInEnvironment.has(s.env)) continue;
      const parsed = s.parse(value);
      if (parsed === undefined) this.log.warn({ setting: `pgrst.${name}` }, 'in-database REST setting ignored: its value does not parse');
      else (next as Record<string, unknown>)[s.key] = parsed;
    }
    this.current = next;
    return next;
  }
}
