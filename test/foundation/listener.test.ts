// db/listener.ts: every channel a process listens on shares one connection
// per database (PostgreSQL wakes every listening backend of a database for
// every NOTIFY, so each more connection costs every notice). Each channel
// gets its own notices; when the connection is lost, one new connection
// listens on them all and each owner is told to catch up; a channel that
// stops leaves the others listening, and the last one closes the connection.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { listenChannel } from '../../db/listener.ts';
import { freshDatabase } from '../helpers/db.ts';
import { eventually } from '../helpers/eventually.ts';

describe('one listening connection per database', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let admin: pg.Client;
  const log = pino({ level: 'silent' });
  const sessions = async () => (await admin.query<{ pid: number }>(`select pid from pg_stat_activity where application_name = 'pgbase:listen' and datname = current_database()`)).rows.map((r) => r.pid);
  const notify = (channel: string, payload: string) => admin.query('select pg_notify($1, $2)', [channel, payload]);

  before(async () => {
    db = await freshDatabase();
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  after(async () => {
    await admin.end();
    await db.drop();
  });

  it('listens on every channel over one connection, each owner hearing its own; reconnects them all; closes with the last', async () => {
    const heard: Record<string, string[]> = { alpha: [], beta: [] };
    const caughtUp: Record<string, boolean[]> = { alpha: [], beta: [] };
    const on = (channel: 'alpha' | 'beta') => listenChannel({
      url: db.url, channel, name: channel, log, firstDelayMs: 50,
      onNotify: (payload) => void heard[channel]!.push(payload),
      onListening: (again) => void caughtUp[channel]!.push(again),
    });
    const alpha = on('alpha');
    const beta = on('beta');
    await Promise.all([alpha.ready, beta.ready]);
    assert.deepEqual(caughtUp, { alpha: [false], beta: [false] }, 'each owner is told once it listens');
    const [first] = await sessions();
    assert.equal((await sessions()).length, 1, 'one connection for both channels');

    await notify('alpha', 'a1');
    await notify('beta', 'b1');
    await notify('gamma', 'nobody');
    await eventually('both notices', async () => heard, (h) => h.alpha!.length === 1 && h.beta!.length === 1);
    assert.deepEqual(heard, { alpha: ['a1'], beta: ['b1'] });

    // The connection is lost: one new one listens on both channels, and both owners catch up.
    await admin.query('select pg_terminate_backend($1)', [first]);
    await eventually('both owners told to catch up', async () => caughtUp, (c) => c.alpha!.length === 2 && c.beta!.length === 2);
    assert.deepEqual(caughtUp, { alpha: [false, true], beta: [false, true] });
    const [second] = await sessions();
    assert.notEqual(second, first);
    assert.equal((await sessions()).length, 1);
    await notify('beta', 'b2');
    await eventually('the notice after the reconnect', async () => heard.beta, (b) => b!.length === 2);

    // One owner stops: the other still hears, on the same connection.
    await alpha.stop();
    await notify('alpha', 'a2');
    await notify('beta', 'b3');
    await eventually('beta still hears', async () => heard.beta, (b) => b!.length === 3);
    assert.deepEqual(heard.alpha, ['a1'], 'a stopped channel hears nothing more');
    assert.deepEqual(await sessions(), [second]);

    // A channel that comes later joins the live connection.
    const late: string[] = [];
    const gamma = listenChannel({ url: db.url, channel: 'gamma', name: 'gamma', log, onNotify: (p) => void late.push(p) });
    await gamma.ready;
    await notify('gamma', 'g1');
    await eventually('the late channel hears', async () => late, (l) => l.length === 1);
    assert.deepEqual(await sessions(), [second]);

    // The last owner stops: the connection closes.
    await beta.stop();
    await gamma.stop();
    await eventually('no listening connection left', sessions, (s) => s.length === 0);
  });
});
