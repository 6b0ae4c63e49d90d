// general_api (alias api_call): one HTTP request through the SSRF guard.
// Output: {status, headers, body}, the body parsed when it is JSON. A status
// of 400 or more fails the block (retry and on_error apply).
import { BlockError, type BlockHandler } from '../types.ts';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export const generalApi: BlockHandler = {
  run: async (ctx) => {
    const c = ctx.config;
    if (typeof c.url !== 'string' || !c.url) throw new BlockError('general_api needs a url');
    const method = typeof c.method === 'string' ? c.method.toUpperCase() : 'GET';
    if (!METHODS.has(method)) throw new BlockError(`Unknown HTTP method ${method}`);
    const url = new URL(c.url);
    if (c.query && typeof c.query === 'object') for (const [k, v] of Object.entries(c.query)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    const headers: Record<string, string> = {};
    if (c.headers && typeof c.headers === 'object') for (const [k, v] of Object.entries(c.headers)) headers[k.toLowerCase()] = String(v);
    let body: string | undefined;
    if (c.body !== undefined && c.body !== null && method !== 'GET' && method !== 'HEAD') {
      body = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
      if (typeof c.body !== 'string') headers['content-type'] ??= 'application/json';
    }
    const timeoutMs = typeof c.timeout_ms === 'number' && c.timeout_ms > 0 ? Math.min(c.timeout_ms, 300_000) : 30_000;
    const res = await ctx.services.fetch(url.toString(), { method, headers, ...(body !== undefined ? { body } : {}), timeoutMs, signal: ctx.signal });
    let parsed: unknown = res.body;
    if ((res.headers['content-type'] ?? '').includes('json')) {
      try {
        parsed = JSON.parse(res.body);
      } catch {
        parsed = res.body;
      }
    }
    if (res.status >= 400) throw new BlockError(`${method} ${url.origin}${url.pathname} answered ${res.status}`);
    return { output: { status: res.status, headers: res.headers, body: parsed } };
  },
};
