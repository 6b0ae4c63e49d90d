// database_write: insert, update or delete rows through the REST engine as the running user.
import { actorContext } from '../../actor.ts';
import { Failure } from '../../failures.ts';
import { allowedTable, restFilters } from '../database-access.ts';
import type { BuiltinTool } from '../types.ts';

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
  override: 'schemas',
  run: async ({ args, override, caller, services }) => {
    const { schema, table } = allowedTable(args.table, override);
    const operation = args.operation;
    if (operation !== 'insert' && operation !== 'update' && operation !== 'delete') throw new Failure('operation must be insert, update or delete');
    const query = restFilters(args);
    if (operation !== 'insert' && Object.keys(query).length === 0) throw new Failure(`${operation} needs filters (it would touch every row)`);
    const body = operation === 'insert' ? args.rows : operation === 'update' ? args.values : undefined;
    if (operation === 'insert' && (!Array.isArray(body) || body.length === 0)) throw new Failure('insert needs rows: a non-empty list of objects');
    if (operation === 'update' && (!body || typeof body !== 'object' || Array.isArray(body))) throw new Failure('update needs values: an object of columns to set');
    return services.rest(actorContext(caller.actor), { operation, name: table, schema, query, body });
  },
};
