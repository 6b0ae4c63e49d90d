// Realtime floods with the default limits: 500 joins on one socket, a private
// channel without a policy, and a consumer that never reads while 5,000
// broadcasts go out. Pass: refused past the limit, the server responsive, the
// idle reader cut off while the others get everything.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { raw, sleep } from '../helpers/realtime.ts';

describe('realtime floods at the default limits', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', LOG_LEVEL: 'warn' });
  });
  after(() => stopTestPlatform(p));

  it('refuses a 500-channel join flood past the limit and stays responsive', async () => {
    const flood = await raw(p, `apikey=${p.keys.anonKey}&vsn=2.0.0`);
    const bystander = await raw(p, `apikey=${p.keys.anonKey}&vsn=2.0.0`);
    for (let i = 0; i < 500; i++) flood.send([String(i), String(i), `realtime:flood-${i}`, 'phx_join', {}]);
    const started = Date.now();
    bystander.send([null, 'hb', 'phoenix', 'heartbeat', {}]);
    assert.equal((await bystander.frames.next((f) => f.ref === 'hb')).payload.status, 'ok');
    assert.ok(Date.now() - started < 2000, 'another socket is answered meanwhile');
    // Every join gets an answer; only up to the limit are accepted.
    await flood.frames.count(500, 20_000);
    const replies = flood.frames.items.filter((f) => f.event === 'phx_reply');
    const ok = replies.filter((f) => f.payload.status === 'ok').length;
    const reasons = new Set(replies.filter((f) => f.payload.status === 'error').map((f) => f.payload.response.reason));
    assert.ok(ok > 0 && ok <= 100, `${ok} joins accepted, at most REALTIME_MAX_CHANNELS_PER_SOCKET (100)`);
    assert.ok([...reasons].every((r) => r === 'too_many_channels' || r === 'rate_limited'), `refusals name their limit: ${[...reasons]}`);
    assert.equal((await fetch(`${p.url}/health`)).status, 200);
    flood.ws.close();
    bystander.ws.close();
  });

  it('refuses a private channel to a caller no realtime.messages policy admits', async () => {
    const s = await raw(p, `apikey=${p.keys.anonKey}&vsn=2.0.0`);
    s.send(['1', '1', 'realtime:secret-room', 'phx_join', { config: { private: true } }]);
    const reply = await s.frames.next((f) => f.ref === '1');
    assert.equal(reply.payload.status, 'error');
    assert.match(reply.payload.response.reason, /unauthorized|not authorized|private/i);
    s.ws.close();
  });

  it('cuts off a consumer that never reads while 5,000 broadcasts go out; the others get all of them', async () => {
    // vsn 1.0.0: every broadcast arrives as a JSON frame (2.0.0 sends server broadcasts as binary).
    const idle = await raw(p, `apikey=${p.keys.anonKey}&vsn=1.0.0`);
    const readers = await Promise.all([0, 1].map(() => raw(p, `apikey=${p.keys.anonKey}&vsn=1.0.0`)));
    for (const s of [idle, ...readers]) {
      s.send(['1', '1', 'realtime:stream', 'phx_join', {}]);
      assert.equal((await s.frames.next((f) => f.ref === '1')).payload.status, 'ok');
    }
    (idle.ws as unknown as { _socket: { pause: () => void } })._socket.pause();
    const key = p.keys.serviceRoleKey;
    const blob = 'z'.repeat(3000);
    for (let round = 0; round < 50; round++) {
      const messages = Array.from({ length: 100 }, (_, i) => ({ topic: 'stream', event: 'tick', payload: { n: round * 100 + i, blob } }));
      const res = await fetch(`${p.url}/realtime/v1/api/broadcast`, { method: 'POST', headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages }) });
      assert.equal(res.status, 202);
    }
    for (const r of readers) {
      await r.frames.count(5000 + 1, 30_000); // the join reply, then every broadcast
      const ns = r.frames.items.filter((f) => f.event === 'broadcast').map((f) => f.payload.payload.n as number);
      assert.equal(ns.length, 5000, 'a reading client got every broadcast');
      assert.deepEqual(ns, Array.from({ length: 5000 }, (_, i) => i), 'in order');
    }
    (idle.ws as unknown as { _socket: { resume: () => void } })._socket.resume();
    const closed = await Promise.race([idle.closed, sleep(5000).then(() => 'still open' as const)]);
    assert.notEqual(closed, 'still open', 'the idle consumer was disconnected');
    assert.match(p.logs(), /disconnecting a slow realtime client: its send queue is full/, 'and the cut-off is logged');
    for (const r of readers) r.ws.close();
  });
});
