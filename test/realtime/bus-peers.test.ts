// The realtime bus counts the other live processes from its heartbeat and
// learns at once of one that joins (its `node` notice): a heartbeat whose
// count was read before that notice arrived must not undo it, or the
// joiner's broadcasts are dropped until the next beat. Made deterministic
// with a row lock: the heartbeat waits on its own node's row while the
// notice arrives.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { migrate } from '../../db/migrate.ts';
import { RealtimeBus } from '../../server/realtime/bus.ts';
import { freshDatabase } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';

describe('realtime bus: peers', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let pool: pg.Pool;

  before(async () => {
    db = await freshDatabase();
    await migrate(db.url);
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
  });
  after(async () => {
    await pool.end();
    await db.drop();
  });

  it('keeps a joiner heard while a heartbeat was in flight', async () => {
    const nodeId = randomUUID();
    const bus = new RealtimeBus({ url: db.url, pool, nodeId, heartbeatMs: 1500, reapMs: 60_000, log: pino({ level: 'silent' }), onEvent: () => undefined, onReaped: () => undefined });
    await bus.start();
    assert.equal(bus.peers, 0, 'alone');
    const locker = await pool.connect();
    try {
      // The next heartbeat waits on this node's row (its upsert), its count not read yet.
      await locker.query('begin');
      await locker.query('select 1 from realtime.nodes where id = $1 for update', [nodeId]);
      await eventually('a heartbeat waiting on the lock', async () =>
        (await pool.query(`select count(*)::int as n from pg_stat_activity where query like '%node_heartbeat%' and wait_event_type = 'Lock'`)).rows[0].n, (n) => n === 1);
      // Another process says it joined (its row is not there: the waiting heartbeat will count none).
      await pool.query(`select pg_notify('realtime', 'node 0 ' || $1::text)`, [JSON.stringify({ id: randomUUID() })]);
      await eventually('the join heard', async () => bus.peers, (n) => n === 1);
    } finally {
      await locker.query('commit');
      locker.release();
    }
    await eventually('the waiting heartbeat done', async () =>
      (await pool.query(`select count(*)::int as n from pg_stat_activity where query like '%node_heartbeat%' and wait_event_type = 'Lock'`)).rows[0].n, (n) => n === 0);
    // Before the next beat (1.5 s on): one that starts after the notice rightly counts again.
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(bus.peers, 1, 'the heartbeat read before the notice does not undo it');
    await bus.stop();
  });
});
