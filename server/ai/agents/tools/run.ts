// Runs one tool call of an agent: the eight builtins and custom HTTP tools.
// The user the agent runs for is the caller everywhere (REST and storage
// in-process, so RLS and storage policies apply); outbound HTTP goes through
// the SSRF guard; code through the workflow sandbox. A failure is a tool
// error the model reads, never a thrown crash. Output is cut at
// MAX_TOOL_OUTPUT_LENGTH.
import type { InProcessRest } from '../../../rest/in-process.ts';
import type { InProcessStorage } from '../../../storage/in-process.ts';
import type { Settings } from '../../settings/accessor.ts';
import type { UsageContext } from '../../usage/ledger.ts';
import type { Sandbox } from '../../workflows/engine/sandbox/index.ts';
import { outboundRequest, responseBody } from '../../workflows/net/message.ts';
import type { GuardedResponse } from '../../workflows/net/ssrf.ts';
import { BUILTIN_TOOLS } from '../../tools/builtin/index.ts';
import { actorContext, ledgerUser, type Actor } from '../../actor.ts';
import { WebToolError, webTools, type ImageServices } from './web.ts';

export type ToolResult = { ok: true; output: string; truncated: boolean } | { ok: false; error: string };

/** A tool as assigned to an agent: a builtin with its override, or a custom tool with its config. */
export type AssignedTool =
  | { kind: 'builtin'; name: string; override: Record<string, unknown> }
  | { kind: 'custom'; name: string; config: Record<string, unknown> };

export type ToolServices = {
  rest: InProcessRest;
  storage: InProcessStorage;
  settings: Settings;
  sandbox: { pool: Sandbox; timeoutMs: number; memoryMb: number };
  /** web_search's provider and web_scrape's when the CRAWL_API_BASE setting is empty. */
  searchBase: string;
  crawlBaseDefault: string;
  /** web_scrape's image descriptions: VISION_MODEL through the router, images fetched through the SSRF guard. */
  images: ImageServices;
  fetch: (url: string, init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number; signal: AbortSignal }) => Promise<GuardedResponse>;
};

/**
 * Who the tool acts as (a user, or explicitly the project: never a missing
 * user); `usage`, the run's ledger context, so model calls a tool makes
 * (web_scrape's image descriptions) count under that run.
 */
export type ToolCaller = { actor: Actor; usage?: UsageContext };

class ToolError extends Error {}

const TEXT = /^(text\/|application\/(json|xml|javascript|x-ndjson)|image\/svg\+xml)/;
const IDENT = /^[a-zA-Z_][a-zA-Z0-9_$]{0,62}$/;
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v === '') throw new ToolError(`${what} is required`);
  return v;
};

/**
 * The table a database tool may touch: `schema.table` or `table` (schema
 * public). With a `schemas` override, only the listed tables (an empty list:
 * every table of that schema); without one, tables of `public` only.
 */
function allowedTable(raw: unknown, override: Record<string, unknown>): { schema: string; table: string } {
  const name = str(raw, 'table');
  const [schema, table] = name.includes('.') ? name.split('.', 2) as [string, string] : ['public', name];
  if (!IDENT.test(schema) || !IDENT.test(table)) throw new ToolError(`Invalid table name ${name}`);
  const schemas = (override.schemas ?? { public: [] }) as Record<string, string[]>;
  const tables = schemas[schema];
  if (!tables) throw new ToolError(`Schema ${schema} is not available to this agent (allowed: ${Object.keys(schemas).join(', ') || 'none'})`);
  if (tables.length > 0 && !tables.includes(table)) throw new ToolError(`Table ${schema}.${table} is not available to this agent`);
  return { schema, table };
}

function restQuery(args: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {};
  if (args.filters !== undefined) {
    if (!args.filters || typeof args.filters !== 'object' || Array.isArray(args.filters)) throw new ToolError('filters must map columns to PostgREST filters, e.g. {"status": "eq.open"}');
    for (const [k, v] of Object.entries(args.filters)) query[k] = String(v);
  }
  return query;
}

/**
 * Rows as database_query returns them: all of them when their JSON fits in
 * DEFAULT_MAX_RESULT_CHARS, else as many whole rows as fit, saying so (a cut
 * through the middle of a row would leave the model unparseable JSON).
 */
function fitRows(rows: unknown, max: number): unknown {
  if (!Array.isArray(rows) || JSON.stringify(rows).length <= max) return rows;
  const kept: unknown[] = [];
  let size = 2;
  for (const row of rows) {
    const length = JSON.stringify(row).length + (kept.length > 0 ? 1 : 0);
    if (size + length > max) break;
    kept.push(row);
    size += length;
  }
  return { rows: kept, truncated: true, rows_read: rows.length, note: `${kept.length} of ${rows.length} rows: the result is cut at DEFAULT_MAX_RESULT_CHARS (${max}) characters; select fewer columns, filter, or lower the limit` };
}

export function toolRunner(services: ToolServices) {
  const web = webTools(services.settings, services.searchBase, services.crawlBaseDefault, services.images);
  const callerOf = (c: ToolCaller) => actorContext(c.actor);

  const http = async (args: Record<string, unknown>, defaultTimeoutS: number, signal: AbortSignal) => {
    const method = typeof args.method === 'string' ? args.method.toUpperCase() : 'GET';
    if (!METHODS.has(method)) throw new ToolError(`Unknown HTTP method ${method}`);
    const outbound = outboundRequest(method, args.headers, args.body);
    const seconds = typeof args.timeout_seconds === 'number' && args.timeout_seconds > 0 ? Math.min(args.timeout_seconds, 300) : defaultTimeoutS;
    const res = await services.fetch(str(args.url, 'url'), { method, ...outbound, timeoutMs: seconds * 1000, signal });
    return { status: res.status, body: responseBody(res) };
  };

  const builtin: Record<string, (args: Record<string, unknown>, override: Record<string, unknown>, caller: ToolCaller, signal: AbortSignal) => Promise<unknown>> = {
    database_query: async (args, override, caller) => {
      const { schema, table } = allowedTable(args.table, override);
      const query = restQuery(args);
      if (typeof args.select === 'string') query.select = args.select;
      if (typeof args.order === 'string') query.order = args.order;
      query.limit = String(typeof args.limit === 'number' && args.limit > 0 ? Math.min(Math.floor(args.limit), 1000) : 50);
      const rows = await services.rest(callerOf(caller), { operation: 'select', name: table, schema, query });
      return fitRows(rows, await services.settings.number('DEFAULT_MAX_RESULT_CHARS'));
    },
    database_write: async (args, override, caller) => {
      const { schema, table } = allowedTable(args.table, override);
      const operation = args.operation;
      if (operation !== 'insert' && operation !== 'update' && operation !== 'delete') throw new ToolError('operation must be insert, update or delete');
      const query = restQuery(args);
      if (operation !== 'insert' && Object.keys(query).length === 0) throw new ToolError(`${operation} needs filters (it would touch every row)`);
      const body = operation === 'insert' ? args.rows : operation === 'update' ? args.values : undefined;
      if (operation === 'insert' && (!Array.isArray(body) || body.length === 0)) throw new ToolError('insert needs rows: a non-empty list of objects');
      if (operation === 'update' && (!body || typeof body !== 'object' || Array.isArray(body))) throw new ToolError('update needs values: an object of columns to set');
      return services.rest(callerOf(caller), { operation, name: table, schema, query, body });
    },
    http_request: (args, _o, _c, signal) => http(args, 30, signal),
    code_execute: async (args) => {
      const code = str(args.code, 'code');
      const asked = typeof args.timeout_ms === 'number' && args.timeout_ms > 0 ? args.timeout_ms : services.sandbox.timeoutMs;
      const result = await services.sandbox.pool.run({
        code, timeoutMs: Math.min(asked, services.sandbox.timeoutMs), memoryMb: services.sandbox.memoryMb,
        scope: { inputs: args.inputs && typeof args.inputs === 'object' ? args.inputs : {} },
      });
      return { result: result.value, logs: result.logs };
    },
    storage_read: async (args, _o, caller) => {
      const bucket = str(args.bucket, 'bucket');
      const path = typeof args.path === 'string' ? args.path : '';
      if (path === '' || path.endsWith('/')) return services.storage.list(callerOf(caller), bucket, path, 100);
      const largest = await services.settings.number('DEFAULT_MAX_RESULT_CHARS');
      const maxChars = typeof args.max_chars === 'number' && args.max_chars > 0 ? Math.min(Math.floor(args.max_chars), largest) : largest;
      const file = await services.storage.read(callerOf(caller), bucket, path, Math.min(maxChars * 4, 10 * 1024 * 1024));
      if (!TEXT.test(file.contentType)) return { content_type: file.contentType, size: file.size, note: 'not text: its bytes are not shown' };
      const text = file.bytes.toString('utf8');
      return { content_type: file.contentType, size: file.size, text: text.slice(0, maxChars), truncated: file.truncated || text.length > maxChars };
    },
    storage_write: async (args, _o, caller) => {
      const content = typeof args.content === 'string' ? args.content : str(undefined, 'content');
      const type = typeof args.content_type === 'string' && args.content_type ? args.content_type : 'text/plain';
      return services.storage.write(callerOf(caller), str(args.bucket, 'bucket'), str(args.path, 'path'), Buffer.from(content, 'utf8'), type, args.upsert === true);
    },
    web_search: (args, _o, _c, signal) => web.search(args, signal),
    web_scrape: (args, _o, caller, signal) => web.scrape(args, caller.usage ?? { userId: ledgerUser(caller.actor), feature: 'tools' }, signal),
  };

  /** Cuts the output to MAX_TOOL_OUTPUT_LENGTH characters. */
  const finish = async (value: unknown): Promise<ToolResult> => {
    const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
    const max = await services.settings.number('MAX_TOOL_OUTPUT_LENGTH');
    return text.length > max ? { ok: true, output: `${text.slice(0, max)}\n[output cut at ${max} characters]`, truncated: true } : { ok: true, output: text, truncated: false };
  };

  return {
    /** One call of an assigned tool with the model's arguments. */
    run: async (tool: AssignedTool, rawArgs: unknown, caller: ToolCaller, signal: AbortSignal): Promise<ToolResult> => {
      let args = rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? { ...(rawArgs as Record<string, unknown>) } : {};
      try {
        if (tool.kind === 'custom') {
          const c = tool.config;
          if (typeof c.endpoint !== 'string' || !c.endpoint) throw new ToolError(`Custom tool ${tool.name} has no config.endpoint`);
          const timeout = typeof c.timeout_seconds === 'number' && c.timeout_seconds > 0 ? c.timeout_seconds : await services.settings.number('CUSTOM_TOOL_TIMEOUT');
          const method = typeof c.method === 'string' ? c.method.toUpperCase() : 'POST';
          const sendsBody = method !== 'GET' && method !== 'HEAD';
          const url = new URL(c.endpoint);
          if (!sendsBody) for (const [k, v] of Object.entries(args)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
          const res = await http({ url: url.toString(), method, headers: c.headers, ...(sendsBody ? { body: args } : {}), timeout_seconds: timeout }, timeout, signal);
          if (res.status >= 400) throw new ToolError(`${tool.name} answered HTTP ${res.status}: ${typeof res.body === 'string' ? res.body.slice(0, 500) : JSON.stringify(res.body).slice(0, 500)}`);
          return await finish(res.body);
        }
        const impl = builtin[tool.name];
        if (!impl || !BUILTIN_TOOLS.some((t) => t.name === tool.name)) throw new ToolError(`Unknown tool ${tool.name}`);
        // config_override: for tools other than the database ones, its keys (parameters only) win over the model's.
        if (tool.name !== 'database_query' && tool.name !== 'database_write') args = { ...args, ...tool.override };
        return await finish(await impl(args, tool.override, caller, signal));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return { ok: false, error: err instanceof ToolError || err instanceof WebToolError ? (err instanceof WebToolError ? `${tool.name}: ${message}` : message) : `${tool.name} failed: ${message}` };
      }
    },
  };
}

export type ToolRunner = ReturnType<typeof toolRunner>;
