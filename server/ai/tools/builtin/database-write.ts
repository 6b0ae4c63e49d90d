// database_write: insert, update or delete rows through the REST engine as the running user.
import type { BuiltinTool } from './index.ts';

export const databaseWrite: BuiltinTool = {
  name: 'database_write',
  description: 'Insert, update or delete rows in a table the agent may use, as the signed-in user: row-level security applies. Updates and deletes need filters.',
  inputSchema: {
    type: 'object',
    properties: {
      table: { type: 'string', description: 'Table name, optionally schema-qualified (schema.table)' },
      operation: { type: 'string', enum: ['insert', 'update', 'delete'] },
      rows: { type: 'array', items: { type: 'object' }, description: 'Rows to insert' },
      values: { type: 'object', description: 'Columns to set, for update' },
      filters: { type: 'object', additionalProperties: { type: 'string' }, description: 'Column to PostgREST filter, for update and delete' },
    },
    required: ['table', 'operation'],
    additionalProperties: false,
  },
};
