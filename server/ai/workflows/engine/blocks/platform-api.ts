// platform_api: this project's own tables and functions through the Row REST
// engine, in-process, as the user running the workflow (RLS applies; a run
// without a user, such as a webhook run, acts as the project).
//   {operation: select | insert | update | delete | rpc, table | function, schema,
//    select, filters: {column: "op.value"}, order, limit, offset, rows | values | args}
import { BlockError, type BlockHandler } from '../types.ts';

const OPERATIONS = new Set(['select', 'insert', 'update', 'delete', 'rpc']);

export const platformApi: BlockHandler = {
  run: async (ctx) => {
    const c = ctx.config;
    const operation = typeof c.operation === 'string' ? c.operation : 'select';
    if (!OPERATIONS.has(operation)) throw new BlockError(`platform_api operation must be one of ${[...OPERATIONS].join(', ')}`);
    const name = operation === 'rpc' ? c.function : c.table;
    if (typeof name !== 'string' || !name) throw new BlockError(operation === 'rpc' ? 'platform_api rpc needs a function' : 'platform_api needs a table');
    if ((operation === 'update' || operation === 'delete') && (!c.filters || typeof c.filters !== 'object' || Object.keys(c.filters).length === 0)) {
      throw new BlockError(`platform_api ${operation} needs filters (it would touch every row)`);
    }
    const query: Record<string, string> = {};
    if (c.filters && typeof c.filters === 'object') for (const [k, v] of Object.entries(c.filters)) query[k] = String(v);
    for (const k of ['select', 'order', 'on_conflict'] as const) if (typeof c[k] === 'string') query[k] = c[k] as string;
    for (const k of ['limit', 'offset'] as const) if (typeof c[k] === 'number') query[k] = String(c[k]);
    const body = operation === 'insert' ? c.rows : operation === 'update' ? c.values : operation === 'rpc' ? (c.args ?? {}) : undefined;
    const userId = ctx.services.userId;
    const caller = userId ? { role: 'authenticated', claims: { sub: userId, role: 'authenticated' } } : { role: 'service_role', claims: { role: 'service_role' } };
    try {
      const rows = await ctx.services.rest(caller, { operation: operation as 'select', name, schema: typeof c.schema === 'string' ? c.schema : undefined, query, body });
      return { output: rows };
    } catch (err) {
      throw new BlockError(`platform_api ${operation} ${name}: ${(err as Error).message}`);
    }
  },
};
