// Row REST's errors: PostgREST's body and its named errors (PGRST codes), in
// one place. Database errors are mapped by SQLSTATE in server/errors.ts.
import { apiError, type ErrorShape } from '../errors.ts';

/** PostgREST's body, `{code, message, details, hint}`, plus the spec's `error` kind. */
export const restShape: ErrorShape = (e) => ({
  code: e.code ?? `PGRST${e.status}`, message: e.message, details: e.details ?? null, hint: (e as { hint?: string }).hint ?? null, error: e.kind === 'forbidden' ? 'rls_denied' : e.kind,
});

/** PostgREST's `hint`: what to do about it. */
const withHint = <E extends object>(e: E, hint: string): E => Object.assign(e, { hint });

const rowsDetail = (rows: number) => `The result contains ${rows} rows`;

export const restErrors = {
  grammar: (message: string, details: string | null = null) => apiError(400, 'PGRST100', message, { details }),
  noRoute: (method: string, path: string) => apiError(400, 'PGRST100', `No route for ${method} ${path}`),
  bothHeadersRequired: () => apiError(401, 'PGRST301', 'Both apikey and Authorization headers are required'),
  schemaNotExposed: (exposed: string[]) => apiError(406, 'PGRST106', `The schema must be one of the following: ${exposed.join(', ')}`),
  tableNotFound: (schema: string, name: string) => apiError(404, 'PGRST205', `Could not find the table '${schema}.${name}' in the schema cache`),
  /** As PostgREST v12 words it: the arguments sorted, "without parameters" when none were given. */
  functionNotFound: (schema: string, name: string, args: string[]) => {
    const sorted = [...args].sort();
    const fn = `${schema}.${name}`;
    return apiError(404, 'PGRST202', sorted.length === 0 ? `Could not find the function ${fn} without parameters in the schema cache` : `Could not find the function ${fn}(${sorted.join(', ')}) in the schema cache`, {
      details: `Searched for the function ${fn} ${sorted.length === 0 ? 'without parameters' : `with parameters ${sorted.join(', ')}`} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
    });
  },
  volatileByGet: (schema: string, name: string) => apiError(405, 'PGRST101', `${schema}.${name} is volatile: call it with POST`),
  notOneRow: (rows: number) => apiError(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', { details: rowsDetail(rows) }),
  columnNotFound: (column: string, table: string) => apiError(400, 'PGRST204', `Could not find the '${column}' column of '${table}' in the schema cache`),
  bodyNotRows: () => apiError(400, 'PGRST102', 'The request body must be a JSON object or an array of objects'),
  bodyNotObject: () => apiError(400, 'PGRST102', 'The request body must be a JSON object'),
  nothingToUpdate: () => apiError(400, 'PGRST102', 'The request body has no columns to update'),
  upsertWithoutKey: () => apiError(400, 'PGRST100', 'An upsert needs on_conflict or a primary key'),
  maxAffected: (affected: number) => apiError(400, 'PGRST124', 'Query result exceeds max-affected preference constraint', { details: `The query affects ${affected} rows` }),
  embedOnWrite: (name: string) => apiError(400, 'PGRST100', `embedding ("${name}") is supported on reads only`),
  noRelationship: (parent: string, child: string, schema = 'public') => apiError(400, 'PGRST200', `Could not find a relationship between '${parent}' and '${child}' in the schema cache`, {
    details: `Searched for a foreign key relationship between '${parent}' and '${child}' in the schema '${schema}', but no matches were found.`,
  }),
  ambiguousRelationship: (parent: string, child: string, details: unknown, hints: string[]) => withHint(
    apiError(300, 'PGRST201', `Could not embed because more than one relationship was found for '${parent}' and '${child}'`, { details, kind: 'invalid_request' }),
    `Try changing '${child}' to one of the following: ${hints.map((h) => `'${h}'`).join(', ')}. Find the desired relationship in the 'details' key.`),
  embedCollision: (key: string) => apiError(400, 'PGRST100', `"${key}" is embedded twice: give one of them an alias (other_${key}:${key}!hint(...))`),
  ambiguousFunction: (candidates: string[]) => withHint(
    apiError(300, 'PGRST203', `Could not choose the best candidate function between: ${candidates.join(', ')}`, { details: null, kind: 'invalid_request' }),
    'Try renaming the parameters or the function itself in the database so function overloading can be resolved'),
  aggregatesDisabled: () => apiError(400, 'PGRST123', 'Use of aggregate functions is not allowed'),
  openApiDisabled: () => apiError(404, 'PGRST126', 'Root endpoint metadata is disabled'),
  planDisabled: () => apiError(406, 'PGRST107', 'None of these media types are available: application/vnd.pgrst.plan'),
  spreadNeedsToOne: (name: string) => apiError(400, 'PGRST119', `A spread ("...${name}") needs a to-one relationship`),
};
