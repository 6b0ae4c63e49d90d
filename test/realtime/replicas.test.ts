// Two server processes' worth of platform (two listeners, two node ids) on
// one database: each delivers the other's broadcasts, presence and row
// changes; a replica that stops, or goes silent, leaves its presences behind.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { client, Inbox, sleep, subscribed, userClient } from '../helpers/realtime.ts';

describe('realtime across two replicas on one database', () => {
  let a: TestPlatform;
  let b: TestPlatform | undefined;
  let db: pg.Client;
  const env = {
    LOG_LEVEL: 'warn',
    JWT_SECRET: randomBytes(32).toString('hex'),
    REALTIME_NODE_HEARTBEAT_MS: '300',
    // Long enough that a replica stalled by the suite's load is not taken for dead (the reap test ages its ghost node by an hour).
    REALTIME_NODE_REAP_MS: '10000',
  };

  before(async () => {
    a = await startTestPlatform(env);
    b = await startTestPlatform(env, { databaseUrl: a.config.DATABASE_URL! });
    db = new pg.Client({ connectionString: a.adminUrl });
    await db.connect();
  });
  after(async () => {
    await db.end();
    if (b) await b.stop();
    await stopTestPlatform(a);
  });

  it('delivers broadcasts both ways, large ones included', async () => {
    const onA = client(a, '2.0.0');
    const onB = client(b!, '1.0.0');
    const gotA = new Inbox<{ payload: { from: string; blob?: string } }>();
    const gotB = new Inbox<{ payload: { from: string; blob?: string } }>();
    const chA = onA.channel('across').on('broadcast', { event: 'm' }, gotA.push);
    const chB = onB.channel('across').on('broadcast', { event: 'm' }, gotB.push);
    await subscribed(chA);
    await subscribed(chB);
    await chA.send({ type: 'broadcast', event: 'm', payload: { from: 'a' } });
    await chB.send({ type: 'broadcast', event: 'm', payload: { from: 'b' } });
    assert.equal((await gotB.next()).payload.from, 'a');
    assert.equal((await gotA.next()).payload.from, 'b');
    // Past NOTIFY's 8000 bytes: through realtime.relay_payloads.
    const blob = 'z'.repeat(50_000);
    await chA.send({ type: 'broadcast', event: 'm', payload: { from: 'a-big', blob } });
    assert.equal((await gotB.next((m) => m.payload.from === 'a-big')).payload.blob, blob);
    await sleep(100);
    assert.equal(gotA.items.length, 1, 'no echo back to the sending replica');
    await onA.removeAllChannels();
    await onB.removeAllChannels();
  });

  it('shares presence: state at join, diffs, and a leave when a socket on the other replica dies', async () => {
    const onA = client(a, '2.0.0');
    const onB = client(b!, '2.0.0');
    const chA = onA.channel('hall', { config: { presence: { key: 'on-a' } } });
    await subscribed(chA);
    await chA.track({ where: 'a' });
    const chB = onB.channel('hall', { config: { presence: { key: 'on-b' } } });
    const syncB = new Inbox<number>();
    const leavesB = new Inbox<{ key: string }>();
    chB.on('presence', { event: 'sync' }, () => syncB.push(1)).on('presence', { event: 'leave' }, leavesB.push);
    await subscribed(chB);
    await syncB.next();
    assert.deepEqual(Object.keys(chB.presenceState()), ['on-a'], "replica B's join sees A's presence");
    await chB.track({ where: 'b' });
    await sleep(300);
    assert.deepEqual(Object.keys(chA.presenceState()).sort(), ['on-a', 'on-b']);
    onA.realtime.disconnect();
    assert.equal((await leavesB.next()).key, 'on-a');
    await onB.removeAllChannels();
  });

  it('routes a row change to a subscriber on the other replica', async () => {
    await db.query(`create table public.notes (id serial primary key, owner uuid not null, body text);
      alter table public.notes enable row level security;
      create policy "own notes" on public.notes for select to authenticated using (auth.uid() = owner);
      create policy "write own notes" on public.notes for insert to authenticated with check (auth.uid() = owner);
      alter publication supabase_realtime add table public.notes;`);
    const ann = await userClient(b!, '2.0.0', 'ann-replicas@example.com');
    const got = new Inbox<{ new: { body: string } }>();
    await subscribed(ann.sb.channel('notes').on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'notes' }, got.push));
    // Written through replica A's REST layer, as ann (once A's schema cache has the new table).
    let res: Response;
    for (let attempt = 0; ; attempt++) {
      res = await fetch(`${a.url}/rest/v1/notes`, {
        method: 'POST',
        headers: { apikey: a.keys.anonKey, authorization: `Bearer ${ann.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ owner: ann.id, body: 'via A' }),
      });
      if (res.status !== 404 || attempt > 50) break;
      await sleep(100);
    }
    assert.equal(res.status, 201, await res.text());
    assert.equal((await got.next()).new.body, 'via A');
    await sleep(100);
    assert.equal(got.items.length, 1, 'delivered once, by the replica holding the subscription');
    await ann.sb.removeAllChannels();
  });

  it('reaps a replica that went silent: its presences leave everywhere', async () => {
    const onB = client(b!, '2.0.0');
    const ch = onB.channel('reaped', { config: { presence: { key: 'watcher' } } });
    const leaves = new Inbox<{ key: string }>();
    ch.on('presence', { event: 'leave' }, leaves.push);
    await subscribed(ch);
    // A replica that crashed: registered, tracked someone, then stopped beating.
    await db.query(`insert into realtime.nodes (id, seen_at) values ('00000000-0000-4000-8000-00000000dead', now())`);
    await db.query(`select realtime.track('00000000-0000-4000-8000-00000000dead', 's', 's/1', 'reaped', false, 'ghost', '{}')`);
    await db.query(`update realtime.nodes set seen_at = now() - interval '1 hour' where id = '00000000-0000-4000-8000-00000000dead'`);
    assert.equal((await leaves.next((l) => l.key === 'ghost', 5000)).key, 'ghost');
    assert.equal((await db.query(`select count(*)::int as n from realtime.nodes where id = '00000000-0000-4000-8000-00000000dead'`)).rows[0].n, 0);
    await onB.removeAllChannels();
  });

  it('a replica that stops cleanly leaves at once', async () => {
    const onA = client(a, '2.0.0');
    const onB = client(b!, '2.0.0');
    const chA = onA.channel('farewell', { config: { presence: { key: 'stays' } } });
    const leaves = new Inbox<{ key: string }>();
    chA.on('presence', { event: 'leave' }, leaves.push);
    await subscribed(chA);
    const chB = onB.channel('farewell', { config: { presence: { key: 'goes' } } });
    await subscribed(chB);
    await chB.track({});
    await sleep(200);
    const stopping = b!.stop();
    b = undefined;
    await stopping;
    assert.equal((await leaves.next((l) => l.key === 'goes', 5000)).key, 'goes');
    onB.realtime.disconnect();
    await onA.removeAllChannels();
  });
});
