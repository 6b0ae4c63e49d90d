// Credentials never follow a redirect to another origin (containment round
// 2, item 6). Before, a custom tool, http_request, a general_api block and an
// HTTP hook (they share one guarded fetch) sent their configured
// Authorization, and a 307's body, to wherever a redirect pointed. Now a hop
// to another scheme, host or port carries no Authorization,
// Proxy-Authorization, Cookie or other configured header, a 307 or 308
// with a body is not followed across origins (its answer is the redirect),
// and every hop still passes the outbound guard. A redirect within the
// origin keeps them, as browsers do.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { guardedFetch, guardedStreamingFetch } from '../../server/ai/runtime/net/ssrf.ts';
import { privateNetworkRule } from '../../server/ai/runtime/net/addresses.ts';
import { aiApi } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Seen = { path: string; method: string; headers: http.IncomingHttpHeaders; body: string };

const SECRET_HEADERS = { authorization: 'Bearer s3cret-token', 'proxy-authorization': 'Basic cHJveHk=', cookie: 'session=s3cret', 'x-api-key': 's3cret-key' };

describe('redirects to another origin carry no credential', () => {
  let p: TestPlatform;
  let origin: http.Server;
  let other: http.Server;
  let originUrl: string;
  let otherUrl: string;
  const seen: Seen[] = [];
  const { post, put, json } = aiApi(() => p);

  /** Records every request; /to-other/<status> redirects to the other origin, /to-self/<status> within this one. */
  const server = (host: string) => http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ path: `${host}${req.url}`, method: req.method!, headers: req.headers, body });
      const hop = /^\/to-(other|self)\/(\d{3})/.exec(req.url ?? '');
      if (hop) return void res.writeHead(Number(hop[2]), { location: hop[1] === 'other' ? `${otherUrl}/landed` : '/landed' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ landed: true }));
    });
  });
  const listen = (s: http.Server, host: string) => new Promise<string>((resolve) => s.listen(0, host, () => resolve(`http://${host}:${(s.address() as AddressInfo).port}`)));
  const landed = () => seen.filter((s) => s.path.endsWith('/landed'));
  const credentialsIn = (s: Seen) => Object.keys(SECRET_HEADERS).filter((h) => s.headers[h] !== undefined);

  before(async () => {
    origin = server('origin');
    other = server('other');
    originUrl = await listen(origin, '127.0.0.1');
    otherUrl = await listen(other, '127.0.0.2');
    p = await startTestPlatform({ WORKER: 'off', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' });
  });
  after(async () => {
    await stopTestPlatform(p);
    for (const s of [origin, other]) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  it('the http_request tool and a custom tool drop every credential on a hop to another origin', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      seen.length = 0;
      const r = await p.ai.tools.run({ kind: 'builtin', name: 'http_request', override: {} }, { url: `${originUrl}/to-other/${status}`, method: 'GET', headers: SECRET_HEADERS }, { actor: { kind: 'project' } }, new AbortController().signal);
      assert.equal(r.ok, true, JSON.stringify(r));
      assert.equal(landed().length, 1, `${status}: followed`);
      assert.deepEqual(credentialsIn(landed()[0]!), [], `${status}: ${JSON.stringify(landed()[0]!.headers)}`);
    }
    seen.length = 0;
    const custom = await p.ai.tools.run({ kind: 'custom', name: 'lookup', config: { endpoint: `${originUrl}/to-other/302`, method: 'GET', headers: SECRET_HEADERS } }, { q: 'x' }, { actor: { kind: 'project' } }, new AbortController().signal);
    assert.equal(custom.ok, true, JSON.stringify(custom));
    assert.deepEqual(credentialsIn(landed()[0]!), []);
    assert.ok(credentialsIn(seen[0]!).length === 4, 'the first hop had them all');
  });

  it('does not carry a 307 or 308 body to another origin: the redirect is the answer', async () => {
    for (const status of [307, 308]) {
      seen.length = 0;
      const r = await p.ai.tools.run({ kind: 'builtin', name: 'http_request', override: {} }, { url: `${originUrl}/to-other/${status}`, method: 'POST', headers: SECRET_HEADERS, body: { card: '4242' } }, { actor: { kind: 'project' } }, new AbortController().signal);
      assert.equal(landed().length, 0, `${status}: the body was not sent on`);
      assert.equal(r.ok, true);
      assert.match(r.ok ? r.output : '', new RegExp(`"status":${status}`));
    }
  });

  it('keeps them within the origin, as browsers do', async () => {
    seen.length = 0;
    const r = await p.ai.tools.run({ kind: 'builtin', name: 'http_request', override: {} }, { url: `${originUrl}/to-self/307`, method: 'POST', headers: SECRET_HEADERS, body: { n: 1 } }, { actor: { kind: 'project' } }, new AbortController().signal);
    assert.equal(r.ok, true);
    assert.deepEqual(credentialsIn(landed()[0]!).sort(), Object.keys(SECRET_HEADERS).sort());
    assert.equal(landed()[0]!.body, '{"n":1}', 'a 307 within the origin keeps its body');
  });

  it('a general_api block', async () => {
    const service = p.keys.serviceRoleKey;
    const w = await json<{ id: string }>(await post(service, '/workflows', { name: 'redirected' }), 201);
    await json(await put(service, `/workflows/${w.id}/graph`, {
      blocks: [{ id: 'start', type: 'starter' }, { id: 'call', type: 'general_api', config: { url: `${originUrl}/to-other/302`, method: 'GET', headers: SECRET_HEADERS } }, { id: 'out', type: 'response', config: { output: '<call>' } }],
      edges: [{ source: 'start', target: 'call' }, { source: 'call', target: 'out' }],
    }), 200);
    seen.length = 0;
    assert.equal((await post(service, `/workflows/${w.id}/execute`, {})).status, 200);
    assert.equal(landed().length, 1);
    assert.deepEqual(credentialsIn(landed()[0]!), []);
  });

  it('the guarded fetches themselves, the streaming one (MCP servers, images) included', async () => {
    const allow = privateNetworkRule('127.0.0.0/8');
    seen.length = 0;
    await guardedFetch(allow)(`${originUrl}/to-other/302`, { method: 'GET', headers: SECRET_HEADERS, timeoutMs: 2000, signal: new AbortController().signal });
    assert.deepEqual(credentialsIn(landed()[0]!), []);
    seen.length = 0;
    const res = await guardedStreamingFetch(allow)(`${originUrl}/to-other/302`, { headers: SECRET_HEADERS });
    assert.equal(res.status, 200);
    await res.text();
    assert.deepEqual(credentialsIn(landed()[0]!), []);
    seen.length = 0;
    const posted = await guardedStreamingFetch(allow)(`${originUrl}/to-other/307`, { method: 'POST', headers: SECRET_HEADERS, body: '{"card":"4242"}' });
    assert.equal(posted.status, 307, 'not followed with its body');
    assert.equal(landed().length, 0);
    // Every hop is checked by the guard: a redirect to an address the rule does not allow is refused.
    await assert.rejects(guardedFetch(privateNetworkRule('127.0.0.1'))(`${originUrl}/to-other/302`, { method: 'GET', headers: {}, timeoutMs: 2000, signal: new AbortController().signal }), /private address/);
  });
});
