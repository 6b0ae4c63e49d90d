// general_api (alias api_call): one HTTP request through the SSRF guard.
// Output: {status, headers, body}, the body parsed when it is JSON. A status
// of 400 or more fails the block (retry and on_error apply).
import { outboundRequest, responseBody } from '../../../runtime/net/message.ts';
import { idempotencyKey, withIdempotencyKey } from '../../../runtime/net/idempotency.ts';
import { type BlockHandler } from '../types.ts';
import { Failure } from '../../../failures.ts';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export const generalApi: BlockHandler = {
  run: async (ctx) => {
    const c = ctx.config;
    if (typeof c.url !== 'string' || !c.url) throw new Failure('general_api needs a url');
    const method = typeof c.method === 'string' ? c.method.toUpperCase() : 'GET';
    if (!METHODS.has(method)) throw new Failure(`Unknown HTTP method ${method}`);
    const url = new URL(c.url);
    if (c.query && typeof c.query === 'object') for (const [k, v] of Object.entries(c.query)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    const outbound = outboundRequest(method, c.headers, c.body);
    const timeoutMs = typeof c.timeout_ms === 'number' && c.timeout_ms > 0 ? Math.min(c.timeout_ms, 300_000) : 30_000;
    // One key per call of the block in its run (a retry repeats it): the receiver can tell a repeat from a new call.
    const key = idempotencyKey('block', ctx.services.executionId, ctx.callPath);
    const res = await ctx.services.fetch(url.toString(), { method, ...outbound, headers: withIdempotencyKey(outbound.headers, key), timeoutMs, signal: ctx.signal });
    const parsed = responseBody(res);
    if (res.status >= 400) throw new Failure(`${method} ${url.origin}${url.pathname} answered ${res.status}`);
    return { output: { status: res.status, headers: res.headers, body: parsed } };
  },
};
