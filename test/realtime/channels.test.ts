// Broadcast and presence through supabase-js channels, unchanged, on both
// protocol versions (2.0.0 is supabase-js's default: array frames and binary
// broadcasts; 1.0.0 is the spec's JSON objects). REST and SQL broadcast too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { client, Inbox, sleep, subscribed, type Vsn } from '../helpers/realtime.ts';

describe('realtime channels: broadcast and presence', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform({ LOG_LEVEL: 'warn' });
  });
  after(async () => {
    await stopTestPlatform(p);
  });

  for (const vsn of ['2.0.0', '1.0.0'] as Vsn[]) {
    describe(`vsn ${vsn}`, () => {
      it('delivers a broadcast to the other subscribers, not back to the sender unless self is set', async () => {
        const a = client(p, vsn);
        const b = client(p, vsn);
        const topic = `room-${vsn}-basic`;
        const got = new Inbox<{ event: string; payload: unknown; type: string }>();
        const echoes = new Inbox<unknown>();
        const sender = a.channel(topic).on('broadcast', { event: 'cursor' }, echoes.push);
        const receiver = b.channel(topic).on('broadcast', { event: 'cursor' }, got.push);
        await subscribed(sender);
        await subscribed(receiver);
        assert.equal(await sender.send({ type: 'broadcast', event: 'cursor', payload: { x: 1, y: [2, 3] } }), 'ok');
        const message = await got.next();
        assert.deepEqual(message, { type: 'broadcast', event: 'cursor', payload: { x: 1, y: [2, 3] } });
        // A second message proves the first was not echoed to the sender in the meantime.
        await sender.send({ type: 'broadcast', event: 'cursor', payload: { x: 2 } });
        await got.next((m) => (m.payload as { x: number }).x === 2);
        assert.equal(echoes.items.length, 0, 'the sender does not receive its own broadcast by default');

        const selfish = a.channel(`${topic}-self`, { config: { broadcast: { self: true } } }).on('broadcast', { event: 'ping' }, echoes.push);
        await subscribed(selfish);
        await selfish.send({ type: 'broadcast', event: 'ping', payload: { n: 1 } });
        assert.deepEqual(await echoes.next(), { type: 'broadcast', event: 'ping', payload: { n: 1 } });
        await a.removeAllChannels();
        await b.removeAllChannels();
      });

      it('acknowledges a broadcast when ack is set, and delivers only the events a binding names', async () => {
        const a = client(p, vsn);
        const topic = `room-${vsn}-ack`;
        const only = new Inbox<{ event: string }>();
        const all = new Inbox<{ event: string }>();
        const ch = a.channel(topic, { config: { broadcast: { ack: true, self: true } } })
          .on('broadcast', { event: 'wanted' }, only.push)
          .on('broadcast', { event: '*' }, all.push);
        await subscribed(ch);
        assert.equal(await ch.send({ type: 'broadcast', event: 'unwanted', payload: {} }), 'ok', 'ack: the server replied ok');
        assert.equal(await ch.send({ type: 'broadcast', event: 'wanted', payload: {} }), 'ok');
        await all.count(2);
        assert.deepEqual(all.items.map((m) => m.event), ['unwanted', 'wanted']);
        assert.deepEqual(only.items.map((m) => m.event), ['wanted']);
        await a.removeAllChannels();
      });

      it('tracks presence: presence_state after join, joins and leaves as diffs, one entry per connection, a leave when a socket dies', async () => {
        const a = client(p, vsn);
        const b = client(p, vsn);
        const topic = `lobby-${vsn}`;
        const chA = a.channel(topic, { config: { presence: { key: 'ann' } } });
        const joins = new Inbox<{ key: string; newPresences: Array<Record<string, unknown>> }>();
        const leaves = new Inbox<{ key: string; leftPresences: Array<Record<string, unknown>> }>();
        const syncs = new Inbox<number>();
        chA.on('presence', { event: 'join' }, joins.push).on('presence', { event: 'leave' }, leaves.push).on('presence', { event: 'sync' }, () => syncs.push(1));
        await subscribed(chA);
        await syncs.next();
        assert.deepEqual(chA.presenceState(), {}, 'an empty room starts empty');
        assert.equal(await chA.track({ status: 'online' }), 'ok');
        const ownJoin = await joins.next((j) => j.key === 'ann');
        assert.equal(ownJoin.newPresences[0]!.status, 'online');
        assert.equal(typeof ownJoin.newPresences[0]!.presence_ref, 'string');

        // A second connection sees the state at join, then tracks under its own key.
        const chB = b.channel(topic, { config: { presence: { key: 'bob' } } });
        const syncB = new Inbox<number>();
        chB.on('presence', { event: 'sync' }, () => syncB.push(1));
        await subscribed(chB);
        await syncB.next();
        const stateAtJoin = chB.presenceState();
        assert.deepEqual(Object.keys(stateAtJoin), ['ann']);
        assert.equal((stateAtJoin.ann![0] as unknown as { status: string }).status, 'online');
        await chB.track({ status: 'typing' });
        await joins.next((j) => j.key === 'bob');

        // Re-tracking replaces the connection's one entry.
        await chA.track({ status: 'away' });
        await joins.next((j) => j.key === 'ann' && j.newPresences[0]!.status === 'away');
        await sleep(100);
        const state = chA.presenceState() as Record<string, Array<{ status: string }>>;
        assert.deepEqual(state.ann!.map((m) => m.status), ['away'], 'one entry per connection under the key');
        assert.deepEqual(state.bob!.map((m) => m.status), ['typing']);

        // b's socket dies without leaving: its presence leaves all the same.
        b.realtime.disconnect();
        const left = await leaves.next((l) => l.key === 'bob');
        assert.equal(left.leftPresences[0]!.status, 'typing');
        await sleep(50);
        assert.deepEqual(Object.keys(chA.presenceState()), ['ann']);

        assert.equal(await chA.untrack(), 'ok');
        await leaves.next((l) => l.key === 'ann');
        await a.removeAllChannels();
      });
    });
  }

  it('lets a 2.0.0 socket and a 1.0.0 socket broadcast to each other on one channel', async () => {
    const modern = client(p, '2.0.0');
    const legacy = client(p, '1.0.0');
    const fromLegacy = new Inbox<{ payload: unknown }>();
    const fromModern = new Inbox<{ payload: unknown }>();
    const m = modern.channel('mixed').on('broadcast', { event: 'e' }, fromLegacy.push);
    const l = legacy.channel('mixed').on('broadcast', { event: 'e' }, fromModern.push);
    await subscribed(m);
    await subscribed(l);
    await m.send({ type: 'broadcast', event: 'e', payload: { from: 'modern', n: 1.5, s: 'ünïcode' } });
    await l.send({ type: 'broadcast', event: 'e', payload: { from: 'legacy' } });
    assert.deepEqual((await fromModern.next()).payload, { from: 'modern', n: 1.5, s: 'ünïcode' });
    assert.deepEqual((await fromLegacy.next()).payload, { from: 'legacy' });
    await modern.removeAllChannels();
    await legacy.removeAllChannels();
  });

  it('REST broadcast: the service-role key sends {messages}, answers {message: ok}; other keys are refused', async () => {
    const listener = client(p, '2.0.0');
    const got = new Inbox<{ event: string; payload: unknown }>();
    await subscribed(listener.channel('news').on('broadcast', { event: '*' }, got.push));
    const post = (key: string, body: unknown) =>
      fetch(`${p.url}/realtime/v1/api/broadcast`, { method: 'POST', headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = await post(p.keys.serviceRoleKey, { messages: [{ topic: 'news', event: 'headline', payload: { title: 'hello' } }, { topic: 'news', event: 'second', payload: {} }] });
    assert.equal(ok.status, 202);
    assert.deepEqual(await ok.json(), { message: 'ok' });
    await got.count(2);
    assert.deepEqual(got.items.map((m) => [m.event, m.payload]), [['headline', { title: 'hello' }], ['second', {}]]);

    const anon = await post(p.keys.anonKey, { messages: [{ topic: 'news', event: 'x', payload: {} }] });
    assert.equal(anon.status, 403);
    assert.deepEqual(await anon.json(), { error: 'forbidden', message: 'REST broadcast requires the service-role key' });
    const missing = await post(p.keys.serviceRoleKey, { messages: [{ topic: 'news', payload: {} }] });
    assert.equal(missing.status, 400);
    assert.match(((await missing.json()) as { message: string }).message, /messages\[0\]\.event/);
    const noArray = await post(p.keys.serviceRoleKey, { topic: 'news' });
    assert.equal(noArray.status, 400);
    await sleep(100);
    assert.equal(got.items.length, 2, 'refused requests deliver nothing, not even their good messages');

    // supabase-js httpSend: POST .../api/broadcast/{topic}/events/{event}, 202.
    const service = client(p, '2.0.0', p.keys.serviceRoleKey);
    const result = await service.channel('news').httpSend('flash', { urgent: true });
    assert.deepEqual(result, { success: true });
    assert.deepEqual((await got.next((m) => m.event === 'flash')).payload, { urgent: true });
    await listener.removeAllChannels();
  });

  it('SQL broadcast: realtime.send delivers after commit, never on rollback, and broadcast_changes sends a row change', async () => {
    const sb = client(p, '2.0.0');
    const got = new Inbox<{ event: string; payload: Record<string, unknown> }>();
    await subscribed(sb.channel('sql-room').on('broadcast', { event: '*' }, got.push));
    const db = new pg.Client({ connectionString: p.adminUrl });
    await db.connect();
    try {
      await db.query('begin');
      await db.query(`select realtime.send('{"n": 1}', 'rolled-back', 'sql-room', false)`);
      await db.query('rollback');
      await db.query('begin');
      await db.query(`select realtime.send('{"n": 2}', 'committed', 'sql-room', false)`);
      await sleep(150);
      assert.equal(got.items.length, 0, 'nothing is delivered before the transaction commits');
      await db.query('commit');
      const first = await got.next();
      assert.deepEqual([first.event, first.payload], ['committed', { n: 2 }]);

      await db.query(`create table public.scores (id int primary key, points int);
        create function public.scores_broadcast() returns trigger language plpgsql security definer as $$
        begin perform realtime.broadcast_changes('sql-room', tg_op, tg_op, tg_table_name, tg_table_schema, new, old, 'public'); return null; end $$;
        create trigger scores_broadcast after insert or update on public.scores for each row execute function public.scores_broadcast();`);
      await db.query('insert into public.scores values (1, 10)');
      await db.query('update public.scores set points = 11 where id = 1');
      const insert = await got.next((m) => m.event === 'INSERT');
      assert.deepEqual(insert.payload, { operation: 'INSERT', schema: 'public', table: 'scores', record: { id: 1, points: 10 }, old_record: null });
      const update = await got.next((m) => m.event === 'UPDATE');
      assert.deepEqual(update.payload.old_record, { id: 1, points: 10 });
      assert.deepEqual(update.payload.record, { id: 1, points: 11 });
      assert.deepEqual(got.items.map((m) => m.event), ['committed', 'INSERT', 'UPDATE'], 'in commit order, and the rolled-back send never arrives');

      // A payload too big for NOTIFY travels through a table and arrives whole.
      const big = 'x'.repeat(20_000);
      await db.query(`select realtime.send(jsonb_build_object('big', $1::text), 'large', 'sql-room', false)`, [big]);
      assert.equal((await got.next((m) => m.event === 'large')).payload.big, big);
    } finally {
      await db.end();
      await sb.removeAllChannels();
    }
  });
});
