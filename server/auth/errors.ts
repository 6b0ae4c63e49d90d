// The identity service's error body, as GoTrue writes it and supabase-js's
// auth client parses it.
import type { ErrorShape } from '../errors.ts';

/** GoTrue's response API version: clients that send it get {code: <error code>, msg}. */
export const AUTH_API_VERSION = '2024-01-01';

/** {code: <status>, error_code, msg}; from API version 2024-01-01 on, {code: <error code>, msg}. */
export const authShape: ErrorShape = (e, req, res) => {
  const asked = req.headers['x-supabase-api-version'];
  const version = typeof asked === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : undefined;
  const current = version !== undefined && version >= AUTH_API_VERSION;
  if (current) res.setHeader('X-Supabase-Api-Version', AUTH_API_VERSION);
  const errorCode = e.code ?? e.kind;
  const body: Record<string, unknown> = current ? { code: errorCode, msg: e.message } : { code: e.status, error_code: errorCode, msg: e.message };
  if (e.details !== undefined && typeof e.details === 'object') Object.assign(body, e.details);
  return body;
};
