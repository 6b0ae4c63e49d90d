// /api/mcp answers its errors as JSON-RPC error bodies, as MCP clients parse
// them (the HTTP status is kept): `{jsonrpc: '2.0', id, error: {code, message}}`,
// `id` the request's when one request was sent, else null. Codes: -32001 for
// a session this process does not hold (as the SDK answers it), -32600 for a
// request the server cannot take, -32000 for the rest (too many sessions,
// a credential refused).
import type { ErrorShape } from '../../errors.ts';

const CODES: Record<number, number> = { 400: -32600, 404: -32001 };

export const mcpShape: ErrorShape = (e, req) => {
  const body = req.body as { id?: unknown } | undefined;
  const id = body && !Array.isArray(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
  return { jsonrpc: '2.0', id, error: { code: CODES[e.status] ?? -32000, message: e.message } };
};
