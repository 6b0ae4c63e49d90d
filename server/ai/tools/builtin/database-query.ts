// database_query: read rows through the REST engine as the running user (RLS applies).
import type { BuiltinTool } from './index.ts';

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
};
