// platform_api: this project's own tables, functions and storage through the
// Row REST and storage engines, in-process, as the user running the workflow
// (RLS and storage policies apply). The run's actor decides: the caller, or
// for webhook, arm and async runs the workflow's owner; the project only for
// a project workflow (no owner) or a run the service role started.
//   tables:  {operation: select | insert | update | delete | rpc, table | function, schema,
//             select, filters: {column: "op.value"}, order, limit, offset, rows | values | args}
//   storage: {operation: storage_read | storage_write | storage_list, bucket, path | prefix,
//             content, content_type, upsert, limit}
import { type BlockContext, type BlockHandler } from '../types.ts';
import { actorContext } from '../../../actor.ts';
import { Failure } from '../../../failures.ts';

const OPERATIONS = new Set(['select', 'insert', 'update', 'delete', 'rpc', 'storage_read', 'storage_write', 'storage_list']);
const TEXT = /^(text\/|application\/(json|xml|javascript|x-ndjson)|image\/svg\+xml)/;
const MAX_READ_BYTES = 10 * 1024 * 1024;

async function storage(ctx: BlockContext, operation: string, caller: { role: string; claims: Record<string, unknown> }): Promise<unknown> {
  const c = ctx.config;
  const bucket = typeof c.bucket === 'string' ? c.bucket : '';
  if (!bucket) throw new Failure(`platform_api ${operation} needs a bucket`);
  if (operation === 'storage_list') {
    return ctx.services.storage.list(caller, bucket, typeof c.prefix === 'string' ? c.prefix : '', typeof c.limit === 'number' ? Math.min(c.limit, 1000) : 100);
  }
  if (typeof c.path !== 'string' || !c.path) throw new Failure(`platform_api ${operation} needs a path`);
  if (operation === 'storage_read') {
    const file = await ctx.services.storage.read(caller, bucket, c.path, MAX_READ_BYTES);
    const text = TEXT.test(file.contentType);
    return { content_type: file.contentType, size: file.size, truncated: file.truncated, ...(text ? { text: file.bytes.toString('utf8') } : { base64: file.bytes.toString('base64') }) };
  }
  const content = typeof c.content === 'string' ? c.content : JSON.stringify(c.content ?? null);
  const type = typeof c.content_type === 'string' ? c.content_type : typeof c.content === 'string' ? 'text/plain' : 'application/json';
  return ctx.services.storage.write(caller, bucket, c.path, Buffer.from(content, 'utf8'), type, c.upsert === true);
}

export const platformApi: BlockHandler = {
  run: async (ctx) => {
    const c = ctx.config;
    const operation = typeof c.operation === 'string' ? c.operation : 'select';
    if (!OPERATIONS.has(operation)) throw new Failure(`platform_api operation must be one of ${[...OPERATIONS].join(', ')}`);
    const caller = actorContext(ctx.services.actor);
    if (operation.startsWith('storage_')) {
      try {
        return { output: await storage(ctx, operation, caller) };
      } catch (err) {
        throw err instanceof Failure ? err : new Failure(`platform_api ${operation}: ${(err as Error).message}`);
      }
    }
    const name = operation === 'rpc' ? c.function : c.table;
    if (typeof name !== 'string' || !name) throw new Failure(operation === 'rpc' ? 'platform_api rpc needs a function' : 'platform_api needs a table');
    if ((operation === 'update' || operation === 'delete') && (!c.filters || typeof c.filters !== 'object' || Object.keys(c.filters).length === 0)) {
      throw new Failure(`platform_api ${operation} needs filters (it would touch every row)`);
    }
    const query: Record<string, string> = {};
    if (c.filters && typeof c.filters === 'object') for (const [k, v] of Object.entries(c.filters)) query[k] = String(v);
    for (const k of ['select', 'order', 'on_conflict'] as const) if (typeof c[k] === 'string') query[k] = c[k] as string;
    for (const k of ['limit', 'offset'] as const) if (typeof c[k] === 'number') query[k] = String(c[k]);
    const body = operation === 'insert' ? c.rows : operation === 'update' ? c.values : operation === 'rpc' ? (c.args ?? {}) : undefined;
    try {
      const rows = await ctx.services.rest(caller, { operation: operation as 'select', name, schema: typeof c.schema === 'string' ? c.schema : undefined, query, body });
      return { output: rows };
    } catch (err) {
      throw new Failure(`platform_api ${operation} ${name}: ${(err as Error).message}`);
    }
  },
};
