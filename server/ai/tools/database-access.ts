// What the database tools share: the table an assignment lets the agent
// touch, and PostgREST filters from the model's arguments. The rows are read
// and written through the in-process REST engine as the caller, so RLS
// applies with no code here.
import { Failure } from '../failures.ts';
import { requiredString } from './arguments.ts';

const IDENT = /^[a-zA-Z_][a-zA-Z0-9_$]{0,62}$/;

/**
 * The table a database tool may touch: `schema.table` or `table` (schema
 * public). With a `schemas` override, only the listed tables (an empty list:
 * every table of that schema); without one, tables of `public` only.
 */
export function allowedTable(raw: unknown, override: Record<string, unknown>): { schema: string; table: string } {
  const name = requiredString(raw, 'table');
  const [schema, table] = name.includes('.') ? name.split('.', 2) as [string, string] : ['public', name];
  if (!IDENT.test(schema) || !IDENT.test(table)) throw new Failure(`Invalid table name ${name}`);
  const schemas = (override.schemas ?? { public: [] }) as Record<string, string[]>;
  const tables = schemas[schema];
  if (!tables) throw new Failure(`Schema ${schema} is not available to this agent (allowed: ${Object.keys(schemas).join(', ') || 'none'})`);
  if (tables.length > 0 && !tables.includes(table)) throw new Failure(`Table ${schema}.${table} is not available to this agent`);
  return { schema, table };
}

/** The model's `filters` as a PostgREST query ({"status": "eq.open"}). */
export function restFilters(args: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {};
  if (args.filters !== undefined) {
    if (!args.filters || typeof args.filters !== 'object' || Array.isArray(args.filters)) throw new Failure('filters must map columns to PostgREST filters, e.g. {"status": "eq.open"}');
    for (const [k, v] of Object.entries(args.filters)) query[k] = String(v);
  }
  return query;
}
