// The request and response of an outbound HTTP call, shared by the
// general_api block and the agents' http_request and custom tools: headers
// lower-cased, a JSON body serialised with its type, a JSON answer parsed.
import type { GuardedResponse } from './ssrf.ts';

/** Headers and body for `method` from loosely typed input (a block's config, a model's arguments). */
export function outboundRequest(method: string, headers: unknown, body: unknown): { headers: Record<string, string>; body?: string } {
  const out: Record<string, string> = {};
  if (headers && typeof headers === 'object') for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = String(v);
  if (body === undefined || body === null || method === 'GET' || method === 'HEAD') return { headers: out };
  if (typeof body !== 'string') out['content-type'] ??= 'application/json';
  return { headers: out, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

/** The answer's body, parsed when it says it is JSON (kept as text when it is not valid). */
export function responseBody(res: GuardedResponse): unknown {
  if (!(res.headers['content-type'] ?? '').includes('json')) return res.body;
  try {
    return JSON.parse(res.body) as unknown;
  } catch {
    return res.body;
  }
}
