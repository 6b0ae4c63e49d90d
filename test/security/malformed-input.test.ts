// Oversized and malformed input on every surface: only a 4xx or a closed
// socket, never a 500; the server keeps serving and its memory stays bounded.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { signPlatformToken } from '../../server/keys.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('malformed and oversized input', () => {
  let p: TestPlatform;
  let platformToken: string;
  const service = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` });
  const healthy = async () => assert.equal((await fetch(`${p.url}/health`)).status, 200, 'the server keeps serving');

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    const admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
    assert.equal((await admin.storage.createBucket('tiny', { public: false, fileSizeLimit: 1024 })).error, null);
    assert.equal((await admin.storage.createBucket('big')).error, null);
    await p.adminPool.query('create table public.items (id int primary key, name text)');
    platformToken = await signPlatformToken(p.keys.platformSecret, 'ops@example.com', ['default'], 600);
  });
  after(() => stopTestPlatform(p));

  it('refuses uploads past the 50 MB ceiling and a bucket’s own limit with 413', async () => {
    const rssBefore = process.memoryUsage().rss;
    const huge = await fetch(`${p.url}/storage/v1/object/big/huge.bin`, { method: 'POST', headers: { ...service(), 'content-type': 'application/octet-stream' }, body: Buffer.alloc(51 * 1024 * 1024, 1) });
    assert.equal(huge.status, 413);
    assert.equal((await huge.json() as { statusCode: string }).statusCode, '413');
    const over = await fetch(`${p.url}/storage/v1/object/tiny/two-kb.bin`, { method: 'POST', headers: { ...service(), 'content-type': 'application/octet-stream' }, body: Buffer.alloc(2048, 1) });
    assert.equal(over.status, 413);
    assert.equal((await p.adminPool.query('select count(*)::int as n from storage.objects')).rows[0].n, 0, 'nothing was stored');
    assert.ok(process.memoryUsage().rss - rssBefore < 300 * 1024 * 1024, 'the refused bytes were not buffered');
    await healthy();
  });

  it('answers broken JSON on every surface with a 4xx in that surface’s shape', async () => {
    const json = { 'content-type': 'application/json' };
    const cases: Array<[string, string, Record<string, string>]> = [
      [`${p.url}/rest/v1/items`, 'POST', service()],
      [`${p.url}/rest/v1/items?id=eq.1`, 'PATCH', service()],
      [`${p.url}/rest/v1/rpc/anything`, 'POST', service()],
      [`${p.url}/auth/v1/signup`, 'POST', { apikey: p.keys.anonKey }],
      [`${p.url}/auth/v1/token?grant_type=password`, 'POST', { apikey: p.keys.anonKey }],
      [`${p.url}/auth/v1/admin/users`, 'POST', service()],
      [`${p.url}/storage/v1/bucket`, 'POST', service()],
      [`${p.url}/storage/v1/object/sign/big/x`, 'POST', service()],
      [`${p.url}/storage/v1/object/list/big`, 'POST', service()],
      [`${p.url}/realtime/v1/api/broadcast`, 'POST', service()],
      [`${p.url}/graphql/v1`, 'POST', service()],
      [`${p.url}/api/database/tables/items`, 'POST', service()],
      [`${p.platformUrl}/api/platform/auth/default/users`, 'POST', { authorization: `Bearer ${platformToken}` }],
    ];
    for (const body of ['{"broken":', '[1,2', 'not json at all', '\u0000\u0001', '{"a":' + '['.repeat(5000)]) {
      for (const [url, method, headers] of cases) {
        const res = await fetch(url, { method, headers: { ...headers, ...json }, body });
        const text = await res.text();
        assert.ok(res.status >= 400 && res.status < 500, `${method} ${url} with ${JSON.stringify(body.slice(0, 12))}: ${res.status} ${text}`);
        assert.doesNotThrow(() => JSON.parse(text), `${url}: a JSON error body`);
        assert.doesNotMatch(text, /at .*\.ts:\d+|SyntaxError|stack/, `${url}: no stack trace`);
      }
    }
    await healthy();
  });

  it('closes a 1 MB header with 431 and keeps serving', async () => {
    const url = new URL(p.url);
    const status = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(`GET /rest/v1/items HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1024 * 1024)}\r\n\r\n`);
      });
      let got = '';
      socket.on('data', (c: Buffer) => (got += c.toString()));
      socket.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
      socket.on('error', () => resolve(got.split('\r\n')[0] ?? 'closed'));
    });
    assert.match(status, /^HTTP\/1\.1 431 /, status);
    await healthy();
  });

  it('closes a socket that sends a 20 MB frame or garbage, and serves others meanwhile', async () => {
    const open = () =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(`${p.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${p.keys.anonKey}&vsn=1.0.0`, { maxPayload: 64 * 1024 * 1024 });
        ws.on('open', () => resolve(ws));
        ws.on('error', reject);
      });
    const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    const bystander = await open();
    const big = await open();
    const bigClosed = closed(big);
    big.on('error', () => undefined);
    big.send(Buffer.alloc(20 * 1024 * 1024, 0x61));
    assert.ok([1006, 1009].includes(await bigClosed), 'a 20 MB frame closes the socket (1009 message too big)');

    const replies: unknown[] = [];
    const garbage = await open();
    garbage.on('message', (m) => replies.push(String(m)));
    const garbageClosed = closed(garbage);
    for (const frame of ['not json', '{"topic":', '[1,2,3]', '{"event":"phx_join"}', '{"topic":"realtime:x","event":"phx_join","payload":"nope","ref":"1"}', 'null', '{"topic":5,"event":[],"payload":{},"ref":{}}']) {
      if (garbage.readyState === WebSocket.OPEN) garbage.send(frame);
    }
    garbage.send(Buffer.from([0xff, 0x00, 0x13, 0x37]), { binary: true });
    await Promise.race([garbageClosed, new Promise((r) => setTimeout(r, 1500))]);
    for (const reply of replies) assert.doesNotMatch(String(reply), /stack|at .*\.ts:\d+/);

    // The bystander still gets answers.
    const pong = new Promise<string>((resolve) => bystander.once('message', (m) => resolve(String(m))));
    bystander.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 'hb' }));
    assert.match(await pong, /"status":"ok"/);
    bystander.close();
    if (garbage.readyState === WebSocket.OPEN) garbage.close();
    await healthy();
  });
});
