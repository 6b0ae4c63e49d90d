// The discovery documents at the root of the project port, where OAuth and
// MCP clients look for them first: the authorization server's metadata at
// RFC 8414's path for the issuer /auth/v1 (Supabase's place for it), and the
// protected resource metadata of /api/mcp (RFC 9728), which names that
// issuer, so an MCP client that is refused finds where to sign the user in.
import express, { type Router } from 'express';
import type { Config } from './config.ts';
import { route } from './errors.ts';
import { issuerOf, serverMetadata, signingAlgorithms } from './auth/oauth-server.ts';
import type { Keys } from './keys.ts';

/** The MCP server's resource identifier and where its metadata lives. */
export const mcpResourceOf = (config: Config) => `${config.apiUrl}/api/mcp`;
export const mcpResourceMetadataUrl = (config: Config) => `${config.apiUrl}/.well-known/oauth-protected-resource/api/mcp`;

export function wellKnownRoutes(config: Config, keys: Pick<Keys, 'jwks'>): Router {
  const router = express.Router();
  if (!config.AUTH_OAUTH_SERVER_ENABLED) return router;
  router.get(['/.well-known/oauth-authorization-server/auth/v1', '/.well-known/openid-configuration/auth/v1'], route(async (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=600');
    res.json(serverMetadata(config, await signingAlgorithms(keys.jwks)));
  }));
  router.get(['/.well-known/oauth-protected-resource/api/mcp', '/api/mcp/.well-known/oauth-protected-resource'], (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=600');
    res.json({
      resource: mcpResourceOf(config),
      authorization_servers: [issuerOf(config)],
      scopes_supported: ['openid', 'email', 'profile', 'phone'],
      bearer_methods_supported: ['header'],
      resource_name: 'pgbase MCP server',
    });
  });
  return router;
}
