// The database proxy's named errors (the spec's `{error}` body, plainShape).
import { apiError } from '../errors.ts';

export const proxyErrors = {
  userRequired: () => apiError(401, 'unauthorized', 'A signed-in user token is required; the anonymous key is not accepted here'),
  badTable: (table: string) => apiError(400, undefined, `Invalid table name "${table}": it must match ^[A-Za-z_][A-Za-z0-9_]*$`),
  publicOnly: (schema: string) => apiError(400, undefined, `Only the public schema is exposed (got "${schema}")`),
  restUnreachable: (cause: unknown) => apiError(502, undefined, 'The REST layer is unreachable', { kind: 'internal', cause }),
  proxyFailed: (cause: unknown) => apiError(500, undefined, 'The database proxy could not build its request to the REST layer', { cause }),
  restNotJson: () => apiError(502, undefined, 'The REST layer answered something that is not JSON', { kind: 'internal' }),
  rowNotFound: () => apiError(404, undefined, 'Row not found'),
  /** An error the REST layer answered, kept with its status. */
  fromRest: (status: number, message: string, details: unknown) => apiError(status, undefined, message, { kind: status === 401 ? 'unauthorized' : 'invalid_request', details }),
  listingFailed: (cause: unknown) => apiError(500, undefined, 'Listing tables failed', { cause }),
  rowBody: () => apiError(400, undefined, 'The body must be a JSON object (one row)'),
  objectBody: () => apiError(400, undefined, 'The body must be a JSON object'),
};
