// Outbound HTTP for blocks and tools, guarded against server-side request
// forgery: every address a name resolves to is checked when the connection
// is made (so DNS rebinding gains nothing), the address the socket actually
// connected to is checked again, on every redirect hop too. What counts as
// private is decided on the parsed address (runtime/net/addresses.ts):
// refused unless HTTP_ALLOW_PRIVATE_NETWORKS is `true` (all of them) or
// lists the addresses or ranges allowed (an internal API, say).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { bareAddress, isPrivateAddress, outboundRule, privateNetworkRule } from './addresses.ts';
import { Failure } from '../../failures.ts';
import { failSpan, SpanKind, startSpan, traceHeaders } from '../../../telemetry/spans.ts';

const MAX_REDIRECTS = 5;
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * The headers a hop to another origin (scheme, host or port) keeps. Every
 * other one is dropped: Authorization, Proxy-Authorization and Cookie, as
 * browsers and fetch drop them, and the headers a tool, block or hook was
 * configured with, which hold its secrets. A request that lost them keeps
 * without them on later hops.
 */
const CROSS_ORIGIN_HEADERS = new Set(['accept', 'accept-language', 'content-language', 'content-type', 'user-agent', 'idempotency-key']);

function crossOriginHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_HEADERS.has(name.toLowerCase())));
}

/**
 * How a request goes on after a redirect from `from` to `to`: 303 (and 301
 * or 302 after a POST, as browsers do) as a GET without a body; to another
 * origin without its credentials; a 307 or 308 that would carry a body to
 * another origin is not followed (null: the redirect is the answer).
 */
function redirected<T extends { method: string; headers: Record<string, string>; body?: unknown }>(status: number, from: URL, to: URL, request: T): T | null {
  const crossOrigin = to.origin !== from.origin;
  let next = request;
  if (status === 303 || ((status === 301 || status === 302) && request.method === 'POST')) {
    const { body: _body, ...rest } = request;
    const { 'content-type': _type, ...headers } = Object.fromEntries(Object.entries(rest.headers).map(([k, v]) => [k.toLowerCase(), v]));
    next = { ...rest, method: 'GET', headers } as T;
  } else if (crossOrigin && request.body !== undefined && request.body !== null) return null;
  return crossOrigin ? { ...next, headers: crossOriginHeaders(next.headers) } : next;
}

export type GuardedResponse = { status: number; headers: Record<string, string>; body: string };

export { isPrivateAddress, privateNetworkRule };

/** dns.lookup that refuses the addresses `refused` names; used by the socket itself. */
function guardedLookup(refused: (address: string) => boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as dns.LookupAddress[];
      const blocked = list.find((a) => refused(a.address));
      if (blocked) return callback(Object.assign(new Error(`${hostname} resolves to ${blocked.address}, a private address`), { code: 'EPRIVATE' }), '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** A streamed response body read whole, refused once it passes maxBytes (declared or counted). */
export async function readCapped(res: Response, maxBytes: number): Promise<Buffer> {
  if (Number(res.headers.get('content-length') ?? 0) > maxBytes) throw new Error(`larger than ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) throw new Error(`larger than ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/**
 * A standard fetch (streaming bodies, for clients such as MCP's) whose every
 * connection, redirects included, is checked as guardedFetch's are.
 */
export function guardedStreamingFetch(mayReach: (address: string) => boolean): typeof fetch {
  const refused = outboundRule(mayReach);
  const connector = buildConnector({ lookup: guardedLookup(refused) } as buildConnector.BuildOptions);
  const dispatcher = new Agent({
    connect: (opts, callback) => {
      const host = bareAddress(opts.hostname);
      if (net.isIP(host) && refused(host)) return callback(new Error(`Requests to private addresses are refused (${host})`), null);
      connector(opts, (err, socket) => {
        if (err || !socket) return callback(err ?? new Error('no connection'), null);
        // The address actually connected, whatever resolved it.
        const remote = (socket as net.Socket).remoteAddress;
        if (remote && refused(remote)) {
          socket.destroy();
          return callback(new Error(`Requests to private addresses are refused (${remote})`), null);
        }
        callback(null, socket);
      });
    },
  });
  // Redirects are followed here, hop by hop (each connection guarded by the dispatcher), so that a hop
  // to another origin goes without its credentials (`redirected`). With tracing on, each hop is a
  // CLIENT span to the response's headers (a stream's body goes on after it).
  return (async (input: string | URL, init?: RequestInit) => {
    let url = URL.parse(String(input));
    if (!url) return undiciFetch(input, { ...(init as object), dispatcher });
    let request = { method: (init?.method ?? 'GET').toUpperCase(), headers: Object.fromEntries(new Headers(init?.headers as ConstructorParameters<typeof Headers>[0]).entries()), body: init?.body ?? undefined };
    for (let hop = 0; ; hop++) {
      const at = url;
      const res = await inClientSpan(request.method, at, (trace) => undiciFetch(at, {
        ...(init as object), dispatcher, redirect: 'manual', method: request.method, headers: { ...request.headers, ...trace }, body: request.body as never,
      }));
      const location = res.headers.get('location');
      if (init?.redirect === 'manual' || !location || ![301, 302, 303, 307, 308].includes(res.status)) return res;
      if (hop >= MAX_REDIRECTS) throw new TypeError(`More than ${MAX_REDIRECTS} redirects`);
      const to = new URL(location, at);
      const next = redirected(res.status, at, to, request);
      // A body sent again (a 307 or 308 within the origin) must be one that can be: text or bytes.
      if (!next || (next.body !== undefined && typeof next.body !== 'string' && !(next.body instanceof Uint8Array) && !(next.body instanceof ArrayBuffer))) return res;
      await res.body?.cancel();
      url = to;
      request = next;
    }
  }) as unknown as typeof fetch;
}

/**
 * One outbound hop in an HTTP CLIENT span, when tracing is on: `send` gets
 * the `traceparent` to add, so the receiver's trace can continue this one.
 * The span keeps the URL without its query, where keys ride.
 */
async function inClientSpan<R extends { status: number }>(method: string, url: URL, send: (trace?: Record<string, string>) => Promise<R>): Promise<R> {
  const span = startSpan(method, {
    kind: SpanKind.CLIENT,
    attributes: { 'http.request.method': method, 'server.address': url.hostname, 'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80), 'url.full': `${url.origin}${url.pathname}` },
  });
  if (!span) return send();
  try {
    const res = await send(traceHeaders(span));
    span.setAttribute('http.response.status_code', res.status);
    if (res.status >= 400) failSpan(span, null, String(res.status));
    return res;
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

export function guardedFetch(mayReach: (address: string) => boolean) {
  const refused = outboundRule(mayReach);
  const lookup = guardedLookup(refused);

  const once = (url: URL, init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number; signal: AbortSignal }) =>
    new Promise<GuardedResponse & { location?: string }>((resolve, reject) => {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new Failure(`Only http and https URLs can be called (got ${url.protocol})`));
      // A literal IP skips DNS: check it here.
      const host = bareAddress(url.hostname);
      if (net.isIP(host) && refused(host)) return reject(new Failure(`Requests to private addresses are refused (${host})`));
      const request = (url.protocol === 'https:' ? https : http).request(url, { method: init.method, headers: init.headers, lookup, timeout: init.timeoutMs, signal: init.signal }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY_BYTES) res.destroy(new Failure(`The response is larger than ${MAX_BODY_BYTES} bytes`));
          else chunks.push(c);
        });
        res.on('error', reject);
        res.on('end', () => {
          const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8'), ...(res.headers.location ? { location: res.headers.location } : {}) });
        });
      });
      // The address actually connected, whatever resolved it. A kept-alive socket handed to a later request is
      // connected already: checked at once (waiting for a 'connect' it will not emit again left a listener per request).
      request.on('socket', (socket: net.Socket) => {
        const check = () => {
          if (socket.remoteAddress && refused(socket.remoteAddress)) request.destroy(new Failure(`Requests to private addresses are refused (${socket.remoteAddress})`));
        };
        if (socket.connecting) socket.once('connect', check);
        else check();
      });
      request.on('timeout', () => request.destroy(new Failure(`The request took longer than ${init.timeoutMs} ms`)));
      request.on('error', (err: NodeJS.ErrnoException) => {
        reject(err.code === 'EPRIVATE' ? new Failure(`Requests to private addresses are refused (${err.message})`) : err instanceof Failure ? err : new Failure(`The request failed: ${err.message}`));
      });
      request.end(init.body);
    });

  /** One hop, in its span (inClientSpan), its trace headers added. */
  const tracedOnce: typeof once = (url, init) => inClientSpan(init.method, url, (trace) => once(url, trace ? { ...init, headers: { ...init.headers, ...trace } } : init));

  /** A request, following redirects (each hop checked), with the body as text. */
  return async (raw: string, init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number; signal: AbortSignal }): Promise<GuardedResponse> => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Failure(`Not a URL: ${raw}`);
    }
    let current = init;
    for (let hop = 0; ; hop++) {
      const res = await tracedOnce(url, current);
      const answer = { status: res.status, headers: res.headers, body: res.body };
      if (!res.location || ![301, 302, 303, 307, 308].includes(res.status)) return answer;
      if (hop >= MAX_REDIRECTS) throw new Failure(`More than ${MAX_REDIRECTS} redirects`);
      const to = new URL(res.location, url);
      const next = redirected(res.status, url, to, current);
      if (!next) return answer;
      url = to;
      current = next;
    }
  };
}
