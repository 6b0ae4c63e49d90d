// The socket with a raw `ws` client: the upgrade's checks, the Phoenix
// protocol's replies and errors, binary frames, and every limit (channels per
// socket, payload size, messages per second, send queue, heartbeat timeout).
// Private channels are checked with supabase-js against realtime.messages
// policies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import WebSocket from 'ws';
import { signToken } from '../../server/keys.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { client, Inbox, raw, sleep, subscribed, userClient } from '../helpers/realtime.ts';

/** The HTTP answer to an upgrade that is refused. */
function refusedUpgrade(p: TestPlatform, query: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${p.url.replace('http', 'ws')}/realtime/v1/websocket?${query}`);
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => undefined);
  });
}

/** A user broadcast push as supabase-js 2.x encodes it (kind 3). */
function userBroadcastPush(joinRef: string, ref: string, topic: string, event: string, body: Buffer, json: boolean): Buffer {
  const head = Buffer.from([3, joinRef.length, ref.length, topic.length, event.length, 0, json ? 1 : 0]);
  return Buffer.concat([head, Buffer.from(joinRef + ref + topic + event), body]);
}

describe('realtime protocol with a raw WebSocket client', () => {
  let p: TestPlatform;
  let key: string;
  before(async () => {
    p = await startTestPlatform({
      LOG_LEVEL: 'warn',
      REALTIME_MAX_CHANNELS_PER_SOCKET: '3',
      REALTIME_MAX_PAYLOAD_BYTES: '4096',
      REALTIME_MAX_EVENTS_PER_SECOND: '20',
      REALTIME_MAX_QUEUED_BYTES: '65536',
      REALTIME_HEARTBEAT_TIMEOUT_MS: '1500',
    });
    key = p.keys.anonKey;
  });
  after(async () => {
    await stopTestPlatform(p);
  });

  it('refuses the upgrade without a valid key or vsn, with a JSON reason', async () => {
    assert.deepEqual(await refusedUpgrade(p, `apikey=${key}`), { status: 400, body: { error: 'invalid_request', message: 'the vsn query parameter is required: 1.0.0 or 2.0.0' } });
    assert.deepEqual((await refusedUpgrade(p, `apikey=${key}&vsn=3.0.0`)).body.message, 'unsupported vsn "3.0.0": use 1.0.0 or 2.0.0');
    assert.equal((await refusedUpgrade(p, 'vsn=2.0.0')).status, 401);
    assert.deepEqual(await refusedUpgrade(p, 'vsn=2.0.0&apikey=not-a-token'), { status: 401, body: { error: 'unauthorized', message: 'Invalid API key or token' } });
    const expired = await signToken(p.keys.jwtSecret, { role: 'authenticated', sub: '00000000-0000-0000-0000-000000000001' }, -5);
    assert.deepEqual((await refusedUpgrade(p, `vsn=2.0.0&apikey=${expired}`)).body, { error: 'unauthorized', message: 'API key or token has expired' });
    assert.equal((await refusedUpgrade(p, `vsn=2.0.0&apikey=${key}&log_level=loud`)).status, 400);
  });

  for (const vsn of ['2.0.0', '1.0.0']) {
    it(`vsn ${vsn}: heartbeat, join, leave and their errors echo ref and join_ref`, async () => {
      const s = await raw(p, `apikey=${key}&vsn=${vsn}&log_level=info`);
      s.send([null, '1', 'phoenix', 'heartbeat', {}]);
      assert.deepEqual(await s.frames.next((f) => f.ref === '1'), { join_ref: null, ref: '1', topic: 'phoenix', event: 'phx_reply', payload: { status: 'ok', response: {} } });

      s.send(['2', '2', 'realtime:room', 'phx_join', { config: { broadcast: { self: true } } }]);
      const joined = await s.frames.next((f) => f.ref === '2');
      assert.deepEqual(joined, { join_ref: '2', ref: '2', topic: 'realtime:room', event: 'phx_reply', payload: { status: 'ok', response: { postgres_changes: [] } } });

      s.send(['2', '3', 'realtime:room', 'broadcast', { type: 'broadcast', event: 'hi', payload: { a: 1 } }]);
      if (vsn === '1.0.0') {
        const echo = await s.frames.next((f) => f.event === 'broadcast');
        assert.deepEqual(echo.payload, { type: 'broadcast', event: 'hi', payload: { a: 1 } });
      } else {
        // vsn 2.0.0: user broadcasts go out as binary kind-4 frames, JSON-encoded payload.
        const echo = await s.binary.next();
        assert.deepEqual([echo[0], echo[4]], [4, 1]);
        assert.equal(echo.subarray(5).toString(), 'realtime:roomhi{"a":1}');
      }

      s.send(['9', '4', 'room-without-prefix', 'phx_join', {}]);
      assert.equal((await s.frames.next((f) => f.ref === '4')).payload.response.reason, 'unmatched_topic');
      s.send(['5', '5', 'realtime:bad', 'phx_join', { config: { private: 'yes' } }]);
      const bad = (await s.frames.next((f) => f.ref === '5')).payload;
      assert.deepEqual(bad, { status: 'error', response: { reason: 'invalid_join_payload', message: 'config.private must be a boolean' } });
      s.send(['5', '6', 'realtime:elsewhere', 'broadcast', { type: 'broadcast', event: 'x', payload: {} }]);
      assert.equal((await s.frames.next((f) => f.ref === '6')).payload.response.reason, 'unmatched_topic');
      s.ws.send('{not json');
      assert.equal((await s.frames.next((f) => f.payload?.response?.reason === 'invalid_message')).topic, 'phoenix');

      s.send(['2', '7', 'realtime:room', 'phx_leave', {}]);
      assert.deepEqual((await s.frames.next((f) => f.ref === '7')).payload, { status: 'ok', response: {} });
      const close = await s.frames.next((f) => f.event === 'phx_close');
      assert.equal(close.join_ref, '2');
      s.ws.close();
    });
  }

  it('refuses a join whose access_token is invalid or expired, and takes the spec\'s presence_diff {action, data} from a client', async () => {
    const s = await raw(p, `apikey=${key}&vsn=2.0.0`);
    s.send(['1', '1', 'realtime:tokened', 'phx_join', { config: {}, access_token: 'not-a-jwt' }]);
    assert.deepEqual((await s.frames.next((f) => f.ref === '1')).payload, { status: 'error', response: { reason: 'unauthorized', message: 'Invalid token' } });
    const expired = await signToken(p.keys.jwtSecret, { role: 'authenticated', sub: '00000000-0000-4000-8000-000000000001' }, -5);
    s.send(['2', '2', 'realtime:tokened', 'phx_join', { config: {}, access_token: expired }]);
    assert.equal((await s.frames.next((f) => f.ref === '2')).payload.response.message, 'Token has expired');

    s.send(['3', '3', 'realtime:spec-presence', 'phx_join', { config: { presence: { key: 'k1', enabled: true } } }]);
    await s.frames.next((f) => f.ref === '3');
    assert.deepEqual((await s.frames.next((f) => f.event === 'presence_state')).payload, {});
    s.send(['3', '4', 'realtime:spec-presence', 'presence_diff', { action: 'track', data: { mood: 'fine' } }]);
    assert.equal((await s.frames.next((f) => f.ref === '4')).payload.status, 'ok');
    const diff = await s.frames.next((f) => f.event === 'presence_diff');
    assert.equal(diff.payload.joins.k1.metas[0].mood, 'fine');
    s.send(['3', '5', 'realtime:spec-presence', 'presence_diff', { action: 'untrack' }]);
    assert.equal((await s.frames.next((f) => f.event === 'presence_diff' && Object.keys(f.payload.leaves).length > 0)).payload.leaves.k1.metas[0].mood, 'fine');
    s.ws.close();
  });

  it('carries binary broadcasts (vsn 2.0.0 kind 3 in, kind 4 out) untouched; a 1.0.0 socket gets JSON ones only', async () => {
    const sender = await raw(p, `apikey=${key}&vsn=2.0.0`);
    const modern = await raw(p, `apikey=${key}&vsn=2.0.0`);
    const legacy = await raw(p, `apikey=${key}&vsn=1.0.0`);
    for (const s of [sender, modern, legacy]) {
      s.send(['1', '1', 'realtime:bin', 'phx_join', { config: {} }]);
      await s.frames.next((f) => f.ref === '1');
    }
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    sender.ws.send(userBroadcastPush('1', '2', 'realtime:bin', 'blob', bytes, false));
    const frame = await modern.binary.next();
    assert.equal(frame[0], 4, 'kind 4: user broadcast');
    const topicLen = frame[1]!, eventLen = frame[2]!, metaLen = frame[3]!;
    assert.equal(frame[4], 0, 'binary encoding');
    assert.equal(frame.subarray(5, 5 + topicLen).toString(), 'realtime:bin');
    assert.equal(frame.subarray(5 + topicLen, 5 + topicLen + eventLen).toString(), 'blob');
    assert.deepEqual(frame.subarray(5 + topicLen + eventLen + metaLen), bytes);

    sender.ws.send(userBroadcastPush('1', '3', 'realtime:bin', 'json', Buffer.from('{"ok":true}'), true));
    const viaJson = await legacy.frames.next((f) => f.event === 'broadcast');
    assert.deepEqual(viaJson.payload, { type: 'broadcast', event: 'json', payload: { ok: true } });
    assert.ok(!legacy.frames.items.some((f) => f.payload?.event === 'blob'), 'JSON frames cannot carry the binary payload');
    sender.ws.send(userBroadcastPush('1', '4', 'realtime:bin', 'broken', Buffer.from('{nope'), true));
    assert.equal((await sender.frames.next((f) => f.ref === '4')).payload.response.reason, 'invalid_payload');
    for (const s of [sender, modern, legacy]) s.ws.close();
  });

  it('enforces channels per socket, payload size and messages per second, each with a clear reply', async () => {
    const s = await raw(p, `apikey=${key}&vsn=2.0.0`);
    for (const n of ['1', '2', '3']) {
      s.send([n, n, `realtime:c${n}`, 'phx_join', {}]);
      assert.equal((await s.frames.next((f) => f.ref === n)).payload.status, 'ok');
    }
    s.send(['4', '4', 'realtime:c4', 'phx_join', {}]);
    assert.deepEqual((await s.frames.next((f) => f.ref === '4')).payload.response, { reason: 'too_many_channels', message: 'a socket may join at most 3 channels' });

    s.send(['1', '5', 'realtime:c1', 'broadcast', { type: 'broadcast', event: 'big', payload: { blob: 'x'.repeat(5000) } }]);
    assert.equal((await s.frames.next((f) => f.ref === '5')).payload.response.reason, 'payload_too_large');

    await sleep(1100); // a fresh one-second window
    for (let i = 0; i < 25; i++) s.send(['1', `r${i}`, 'realtime:c1', 'broadcast', { type: 'broadcast', event: 'n', payload: { i } }]);
    const limited = await s.frames.next((f) => f.payload?.response?.reason === 'rate_limited');
    assert.match(limited.payload.response.message, /more than 20 messages per second/);
    s.send([null, 'hb', 'phoenix', 'heartbeat', {}]);
    assert.equal((await s.frames.next((f) => f.ref === 'hb')).payload.status, 'ok', 'heartbeats are answered even when rate limited');
    s.ws.close();
  });

  it('disconnects a client that does not read, without holding up the others', async () => {
    const slow = await raw(p, `apikey=${key}&vsn=2.0.0`);
    const fast = await raw(p, `apikey=${key}&vsn=2.0.0`);
    for (const s of [slow, fast]) {
      s.send(['1', '1', 'realtime:firehose', 'phx_join', {}]);
      await s.frames.next((f) => f.ref === '1');
    }
    (slow.ws as unknown as { _socket: { pause: () => void } })._socket.pause();
    const service = p.keys.serviceRoleKey;
    const blob = 'y'.repeat(3000);
    let sent = 0;
    for (let round = 0; round < 10; round++) {
      const messages = Array.from({ length: 100 }, (_, i) => ({ topic: 'firehose', event: 'tick', payload: { n: round * 100 + i, blob } }));
      const res = await fetch(`${p.url}/realtime/v1/api/broadcast`, { method: 'POST', headers: { apikey: service, authorization: `Bearer ${service}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages }) });
      assert.equal(res.status, 202);
      sent += messages.length;
    }
    await fast.binary.count(sent, 15_000);
    assert.equal(fast.binary.items.length, sent, 'the reading client got every message');
    (slow.ws as unknown as { _socket: { resume: () => void } })._socket.resume();
    const code = await Promise.race([slow.closed, sleep(5000).then(() => 'still open')]);
    assert.notEqual(code, 'still open', 'the slow client was disconnected');
    fast.ws.close();
  });

  it('closes a socket that stops sending heartbeats', async () => {
    const s = await raw(p, `apikey=${key}&vsn=2.0.0`);
    const started = Date.now();
    const code = await Promise.race([s.closed, sleep(8000).then(() => -1)]);
    assert.notEqual(code, -1, 'closed');
    assert.ok(Date.now() - started >= 1400, 'not before the timeout');
  });

  it('private channels: joining needs a SELECT policy on realtime.messages, sending an INSERT policy, with realtime.topic()', async () => {
    const db = new pg.Client({ connectionString: p.adminUrl });
    await db.connect();
    await db.query(`
      create policy "members read their room" on realtime.messages for select to authenticated
        using (realtime.topic() = 'room:' || auth.uid()::text or realtime.topic() = 'shared');
      create policy "members write their room" on realtime.messages for insert to authenticated
        with check (realtime.topic() = 'room:' || auth.uid()::text and extension = 'broadcast');`);
    await db.end();
    const ann = await userClient(p, '2.0.0', 'ann-private@example.com');
    const bob = await userClient(p, '2.0.0', 'bob-private@example.com');

    const refused = bob.sb.channel(`room:${ann.id}`, { config: { private: true } });
    await assert.rejects(subscribed(refused), /private_unauthorized/);

    const got = new Inbox<{ payload: unknown }>();
    const own = ann.sb.channel(`room:${ann.id}`, { config: { private: true, broadcast: { self: true, ack: true } } }).on('broadcast', { event: '*' }, got.push);
    await subscribed(own);
    assert.equal(await own.send({ type: 'broadcast', event: 'note', payload: { n: 1 } }), 'ok');
    assert.deepEqual((await got.next()).payload, { n: 1 });

    // Both may read 'shared'; neither may write there.
    const sharedGot = new Inbox<unknown>();
    const annShared = ann.sb.channel('shared', { config: { private: true, broadcast: { ack: true } } });
    const bobShared = bob.sb.channel('shared', { config: { private: true } }).on('broadcast', { event: '*' }, sharedGot.push);
    await subscribed(annShared);
    await subscribed(bobShared);
    assert.equal(await annShared.send({ type: 'broadcast', event: 'x', payload: {} }), 'error');
    // A public channel of the same name is a different channel.
    const stranger = client(p, '2.0.0');
    const anyone = stranger.channel('shared', { config: { broadcast: { ack: true } } }).on('broadcast', { event: '*' }, sharedGot.push);
    await subscribed(anyone);
    assert.equal(await anyone.send({ type: 'broadcast', event: 'public', payload: {} }), 'ok');
    await sleep(200);
    assert.equal(sharedGot.items.length, 0);
    assert.equal(sharedGot.items.length, 0, "bob's private channel hears neither the refused send nor the public channel's");

    // A refreshed token that may no longer read the channel closes it (access_token re-evaluates).
    const system = new Inbox<{ status: string; message: string }>();
    const revoked = ann.sb.channel(`room:${ann.id}`);
    revoked.on('system', {}, system.push);
    await ann.sb.realtime.setAuth(bob.token);
    assert.equal((await system.next((m) => m.status === 'error')).message, `You no longer have permission to read from this Channel topic: room:${ann.id}`);
    for (let i = 0; i < 50 && revoked.state !== 'closed'; i++) await sleep(20);
    assert.equal(revoked.state, 'closed', 'the server closed the channel (phx_close)');
    await ann.sb.removeAllChannels();
    await bob.sb.removeAllChannels();
    await stranger.removeAllChannels();
  });
});
