// database_query: read rows through the REST engine as the running user (RLS applies).
import { actorContext } from '../../actor.ts';
import { allowedTable, restFilters } from '../database-access.ts';
import type { BuiltinTool } from '../types.ts';

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

export const databaseQuery: BuiltinTool = {
  name: 'database_query',
  description: 'Read rows from a table the agent may use (schemas and tables are set on the assignment), as the signed-in user: row-level security applies. Filters use PostgREST operators.',
  inputSchema: {
    type: 'object',
    properties: {
      table: { type: 'string', description: 'Table name, optionally schema-qualified (schema.table)' },
      select: { type: 'string', description: 'Columns to return, PostgREST select syntax (default *)' },
      filters: { type: 'object', additionalProperties: { type: 'string' }, description: 'Column to PostgREST filter, e.g. {"status": "eq.open"}' },
      order: { type: 'string', description: 'Order, e.g. created_at.desc' },
      limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'Rows to return (default 50)' },
    },
    required: ['table'],
    additionalProperties: false,
  },
  override: 'schemas',
  run: async ({ args, override, caller, services }) => {
    const { schema, table } = allowedTable(args.table, override);
    const query = restFilters(args);
    if (typeof args.select === 'string') query.select = args.select;
    if (typeof args.order === 'string') query.order = args.order;
    query.limit = String(typeof args.limit === 'number' && args.limit > 0 ? Math.min(Math.floor(args.limit), 1000) : 50);
    const rows = await services.rest(actorContext(caller.actor), { operation: 'select', name: table, schema, query });
    return fitRows(rows, await services.settings.number('DEFAULT_MAX_RESULT_CHARS'));
  },
};
