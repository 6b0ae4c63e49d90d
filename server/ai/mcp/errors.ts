// /api/mcp answers its errors as JSON-RPC error bodies, as MCP clients parse
// them (the HTTP status is kept): `{jsonrpc: '2.0', id, error: {code, message}}`,
// `id` the request's when one request was sent, else null. Codes: -32001 for
// a session this process does not hold (as the SDK answers it), -32600 for a
// request the server cannot take, -32000 for the rest (too many sessions,
// a credential refused). A 401 names, in WWW-Authenticate, the protected
// resource metadata (RFC 9728) that leads a client to pgbase's authorization
// server, as the MCP authorization spec has clients start from.
import type { ErrorShape } from '../../errors.ts';

const CODES: Record<number, number> = { 400: -32600, 404: -32001 };

export const mcpShape: ErrorShape = (e, req) => {
  const body = req.body as { id?: unknown } | undefined;
  const id = body && !Array.isArray(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
  return { jsonrpc: '2.0', id, error: { code: CODES[e.status] ?? -32000, message: e.message } };
};

/**
 * The shape with the MCP authorization spec's challenge: `resourceMetadata`
 * is the metadata's URL (server/well-known.ts); without one (the OAuth
 * server off) a 401 carries only the JSON-RPC body.
 */
export function mcpShapeWith(resourceMetadata: string | null): ErrorShape {
  return (e, req, res) => {
    if (e.status === 401 && resourceMetadata) {
      // A token sent and refused is RFC 6750's invalid_token; none sent is a bare challenge.
      const refused = req.headers.authorization !== undefined || req.headers.apikey !== undefined;
      res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${resourceMetadata}"${refused ? ', error="invalid_token"' : ''}`);
    }
    return mcpShape(e, req, res);
  };
}
