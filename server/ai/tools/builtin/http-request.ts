// http_request: call an HTTP endpoint (private and loopback addresses refused).
import { toolHttp } from '../http.ts';
import type { BuiltinTool } from '../types.ts';

export const httpRequest: BuiltinTool = {
  name: 'http_request',
  description: 'Make an HTTP request to a public URL and return the status, headers and body (cut to the tool output limit). Private, loopback and link-local addresses are refused.',
  inputSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri' },
      method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'], default: 'GET' },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      body: { description: 'A string, or JSON sent as application/json' },
      timeout_seconds: { type: 'integer', minimum: 1, maximum: 300 },
    },
    required: ['url'],
    additionalProperties: false,
  },
  override: 'parameters',
  run: ({ args, services, signal, caller }) => toolHttp(services, args, 30, signal, caller.key),
};
