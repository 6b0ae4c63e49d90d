// One outbound HTTP call of a tool (http_request and custom tools), through
// the SSRF guard with the shared message builder.
import { Failure } from '../failures.ts';
import { outboundRequest, responseBody } from '../runtime/net/message.ts';
import { withIdempotencyKey } from '../runtime/net/idempotency.ts';
import { positiveNumber, requiredString } from './arguments.ts';
import type { ToolServices } from './types.ts';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

/** `args`: url, method, headers, body, timeout_seconds (at most 300; `defaultTimeoutS` otherwise). */
export async function toolHttp(services: ToolServices, args: Record<string, unknown>, defaultTimeoutS: number, signal: AbortSignal, key?: string): Promise<{ status: number; body: unknown }> {
  const method = typeof args.method === 'string' ? args.method.toUpperCase() : 'GET';
  if (!METHODS.has(method)) throw new Failure(`Unknown HTTP method ${method}`);
  const outbound = outboundRequest(method, args.headers, args.body);
  const seconds = positiveNumber(args.timeout_seconds, defaultTimeoutS, 300);
  const res = await services.fetch(requiredString(args.url, 'url'), { method, ...outbound, headers: withIdempotencyKey(outbound.headers, key), timeoutMs: seconds * 1000, signal });
  return { status: res.status, body: responseBody(res) };
}
