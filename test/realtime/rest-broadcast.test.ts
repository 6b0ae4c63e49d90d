// REST broadcast with a user's token (realtime fidelity): by default the
// service-role key only (spec part 5); with REALTIME_BROADCAST_ANY_TOKEN any
// valid project token, as Supabase Realtime takes it: supabase-js's
// httpSend (and send() before a join, which falls back to it) delivers
// public messages freely and private ones when the INSERT policies on
// realtime.messages let the token write the topic. Both protocol versions.
import assert from 'node:assert/strict';
import pg from 'pg';
import { after, before, describe, it } from 'node:test';
import { client, Inbox, sleep, subscribed, userClient, type Vsn } from '../helpers/realtime.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('realtime: REST broadcast with any project token (setting)', () => {
  let open: TestPlatform;
  let strict: TestPlatform;

  before(async () => {
    open = await startTestPlatform({ WORKER: 'off', REALTIME_BROADCAST_ANY_TOKEN: 'true' });
    strict = await startTestPlatform({ WORKER: 'off' });
    const db = new pg.Client({ connectionString: open.adminUrl });
    await db.connect();
    await db.query(`
      create policy "members read their room" on realtime.messages for select to authenticated using (realtime.topic() = 'room:' || auth.uid()::text);
      create policy "members write their room" on realtime.messages for insert to authenticated
        with check (realtime.topic() = 'room:' || auth.uid()::text and extension = 'broadcast');`);
    await db.end();
  });
  after(async () => {
    await stopTestPlatform(open);
    await stopTestPlatform(strict);
  });

  for (const vsn of ['1.0.0', '2.0.0'] as Vsn[]) {
    it(`delivers a user's public and permitted private REST broadcasts, refuses the rest (vsn ${vsn})`, async () => {
      const ann = await userClient(open, vsn, `ann-rest-${vsn}@example.com`);
      const bob = await userClient(open, vsn, `bob-rest-${vsn}@example.com`);
      const heard = new Inbox<{ event: string; payload: unknown }>();
      const listener = client(open, vsn).channel(`lobby-${vsn}`).on('broadcast', { event: '*' }, heard.push);
      await subscribed(listener);
      const sender = ann.sb.channel(`lobby-${vsn}`);
      assert.deepEqual(await sender.httpSend('hello', { from: 'ann' }), { success: true });
      assert.deepEqual((await heard.next((m) => m.event === 'hello')).payload, { from: 'ann' });

      // send() before the channel has joined falls back to REST.
      const early = ann.sb.channel(`lobby-${vsn}`);
      assert.equal(await early.send({ type: 'broadcast', event: 'early', payload: { n: 1 } }), 'ok');
      assert.deepEqual((await heard.next((m) => m.event === 'early')).payload, { n: 1 });

      const mine = new Inbox<{ event: string; payload: unknown }>();
      const room = ann.sb.channel(`room:${ann.id}`, { config: { private: true } }).on('broadcast', { event: '*' }, mine.push);
      await subscribed(room);
      const viaRest = ann.sb.channel(`room:${ann.id}`, { config: { private: true } });
      assert.deepEqual(await viaRest.httpSend('note', { private: true }), { success: true });
      assert.deepEqual((await mine.next((m) => m.event === 'note')).payload, { private: true });
      const intruder = bob.sb.channel(`room:${ann.id}`, { config: { private: true } });
      await assert.rejects(intruder.httpSend('spam', { x: 1 }), /forbidden/, 'refused: 403');
      await sleep(150);
      assert.ok(!mine.items.some((m) => m.event === 'spam'), 'the refused message was not delivered');
    });
  }

  it('keeps the service-role rule by default', async () => {
    const ann = await userClient(strict, '2.0.0', 'ann-strict@example.com');
    await assert.rejects(ann.sb.channel('lobby').httpSend('hello', { x: 1 }), /forbidden/, 'refused: 403');
    const res = await fetch(`${strict.url}/realtime/v1/api/broadcast`, {
      method: 'POST', headers: { apikey: strict.keys.serviceRoleKey, authorization: `Bearer ${strict.keys.serviceRoleKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ topic: 'lobby', event: 'x', payload: {} }] }),
    });
    assert.equal(res.status, 202);
  });
});
