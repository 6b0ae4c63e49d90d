// The SSRF guard works on canonical addresses (containment item 4). A
// service on loopback answers a secret; every spelling of a loopback or
// otherwise private address, through every outbound path, is refused and
// the secret never comes back. The guard is on (no HTTP_ALLOW_PRIVATE_NETWORKS).
// Paths: a workflow's general_api block, the http_request tool, a custom
// tool, the streaming fetch MCP servers, web_scrape's images and import-url
// share, and import-url over HTTP; HTTP hooks use general_api's guarded fetch.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { guardedFetch, guardedStreamingFetch } from '../../server/ai/runtime/net/ssrf.ts';
import { isPrivateAddress, privateNetworkRule } from '../../server/ai/runtime/net/addresses.ts';
import { aiApi } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const SECRET = 'loopback-secret-7c1f';

describe('the SSRF guard refuses every spelling of a private address on every path', () => {
  let p: TestPlatform;
  let secret: http.Server;
  let port: number;
  const { post, json } = aiApi(() => p);

  /** Hosts that all reach this machine (or an unspecified address) in one spelling or another. */
  const forms = () => [
    '[::ffff:127.0.0.1]', '[0:0:0:0:0:ffff:7f00:1]', '[::ffff:7f00:1]', '[::ffff:0.0.0.0]', '[::ffff:0:0]', '[::]', '[::1]', '[::127.0.0.1]',
    '[64:ff9b::7f00:1]', '[2002:7f00:1::]', '127.0.0.1', '127.1', '2130706433', '0x7f.0.0.1', '0177.0.0.1', '0.0.0.0', '0', 'localhost',
    '169.254.169.254', '100.64.0.1', '10.0.0.1', '[fd00::1]', '[fe80::1]',
  ].map((host) => `http://${host}:${port}/secret`);

  before(async () => {
    secret = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(SECRET));
    await new Promise<void>((r) => secret.listen(0, '::', () => r()));
    port = (secret.address() as AddressInfo).port;
    p = await startTestPlatform({ WORKER: 'off', WORKFLOW_EXECUTIONS_PER_MINUTE: '1000' });
  });
  after(async () => {
    await stopTestPlatform(p);
    secret.closeAllConnections();
    await new Promise<void>((r) => secret.close(() => r()));
  });

  it('classifies parsed addresses, not their spelling', () => {
    for (const address of ['::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::ffff:0.0.0.0', '::7f00:1', '64:ff9b::a00:1', '2002:a00:1::', '2001::1', 'fc00::1', 'fe80::1%eth0', 'ff02::1', '100.64.0.1', '0.1.2.3', '224.0.0.1', '255.255.255.255', 'not-an-ip']) {
      assert.equal(isPrivateAddress(address), true, address);
    }
    for (const address of ['93.184.215.14', '2606:4700::1111', '::ffff:93.184.215.14']) assert.equal(isPrivateAddress(address), false, address);
    const allowed = privateNetworkRule('127.0.0.2,10.1.0.0/16');
    assert.deepEqual(['127.0.0.2', '::ffff:7f00:2', '10.1.2.3', '127.0.0.1', '10.2.0.1'].map(allowed), [true, true, true, false, false]);
  });

  it('a workflow\'s general_api block', async () => {
    const service = p.keys.serviceRoleKey;
    const w = await json<{ id: string }>(await post(service, '/workflows', { name: 'ssrf' }), 201);
    const saved = await aiApi(() => p).put(service, `/workflows/${w.id}/graph`, {
      blocks: [{ id: 'start', type: 'starter' }, { id: 'call', type: 'general_api', config: { url: '<variables.url>', method: 'GET' } }, { id: 'out', type: 'response', config: { output: '<call>' } }],
      edges: [{ source: 'start', target: 'call' }, { source: 'call', target: 'out' }],
    });
    assert.equal(saved.status, 200);
    for (const url of forms()) {
      const res = await post(service, `/workflows/${w.id}/execute`, { variables: { url } });
      const text = await res.text();
      assert.equal(res.status, 500, `${url}: ${text}`);
      assert.match(text, /private address/, url);
      assert.ok(!text.includes(SECRET), url);
    }
  });

  it('the http_request tool and a custom tool (and HTTP hooks, which share their fetch)', async () => {
    for (const url of forms()) {
      const builtin = await p.ai.tools.run({ kind: 'builtin', name: 'http_request', override: {} }, { url }, { actor: { kind: 'project' } }, new AbortController().signal);
      assert.equal(builtin.ok, false, url);
      assert.match(builtin.ok ? '' : builtin.error, /private address/, url);
      const custom = await p.ai.tools.run({ kind: 'custom', name: 'lookup', config: { endpoint: url, method: 'GET' } }, {}, { actor: { kind: 'project' } }, new AbortController().signal);
      assert.equal(custom.ok, false, url);
      assert.match(custom.ok ? '' : custom.error, /private address/, url);
    }
  });

  it('the guarded fetches themselves, redirects included', async () => {
    const plain = guardedFetch(privateNetworkRule('false'));
    const streaming = guardedStreamingFetch(privateNetworkRule('false'));
    for (const url of forms()) {
      await assert.rejects(plain(url, { method: 'GET', headers: {}, timeoutMs: 2000, signal: new AbortController().signal }), /private address/, url);
      await assert.rejects(streaming(url), (err: Error) => /private address/.test(String((err.cause as Error | undefined)?.message ?? err.message)), url);
    }
    // A public-looking first hop that redirects to loopback: refused at the hop (the redirect is followed through the same guard).
    const allowed = privateNetworkRule('127.0.0.3');
    const bouncer = http.createServer((_req, res) => res.writeHead(302, { location: `http://[::ffff:7f00:1]:${port}/secret` }).end());
    await new Promise<void>((r) => bouncer.listen(0, '127.0.0.3', () => r()));
    try {
      const hop = `http://127.0.0.3:${(bouncer.address() as AddressInfo).port}/`;
      await assert.rejects(guardedFetch(allowed)(hop, { method: 'GET', headers: {}, timeoutMs: 2000, signal: new AbortController().signal }), /private address/);
      await assert.rejects(guardedStreamingFetch(allowed)(hop), (err: Error) => /private address/.test(String((err.cause as Error | undefined)?.message ?? err.message)));
    } finally {
      await new Promise<void>((r) => bouncer.close(() => r()));
    }
  });

  it('checks the address of a kept-alive socket each time it is reused, leaving no listener behind', async () => {
    let allow = true;
    const fetchOnce = guardedFetch(() => allow);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const init = () => ({ method: 'GET', headers: {}, timeoutMs: 2000, signal: new AbortController().signal });
    try {
      // More requests than an emitter's default listener limit, each on the one kept-alive socket.
      for (let i = 0; i < 12; i++) assert.equal((await fetchOnce(`http://localhost:${port}/secret`, init())).body, SECRET);
      allow = false;
      await assert.rejects(fetchOnce(`http://localhost:${port}/secret`, init()), /private address/, 'a reused socket is checked too (no lookup runs for it)');
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings, []);
  });

  it('import-url', async () => {
    const res = await fetch(`${p.url}/api/sources/import-url`, { method: 'POST', headers: aiApi(() => p).headers(p.keys.serviceRoleKey), body: JSON.stringify({ mode: 'urls', urls: forms() }) });
    const text = await res.text();
    assert.ok(!text.includes(SECRET), text);
    const body = JSON.parse(text) as { sources?: unknown[]; failed?: Array<{ url: string; reason: string }>; error?: string };
    if (res.status === 201) {
      assert.deepEqual(body.sources, [], 'nothing was imported');
      assert.equal(body.failed!.length, forms().length);
      for (const f of body.failed!) assert.match(f.reason, /private address/, f.url);
    } else {
      assert.equal(res.status, 400, text);
      assert.match(body.error!, /private address|refused/);
    }
  });
});
