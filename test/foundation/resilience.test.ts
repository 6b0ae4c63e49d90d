// The database dies (kill -9 on the postmaster) under mixed REST load and comes
// back: the server keeps running, answers 503 fast meanwhile and only then,
// recovers by itself within 10 s, and loses no acknowledged write.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { freshDatabase } from '../helpers/db.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Outcome = { id: number; status: number; ms: number; at: number; kind: 'write' | 'read' };

describe('resilience: Postgres restarts under load', () => {
  let cluster: Cluster;
  let p: TestPlatform;
  let jobsRun = 0;

  before(async () => {
    cluster = await startCluster({ durable: true });
    const db = await freshDatabase(cluster.url);
    p = await startTestPlatform({ DB_CONNECT_TIMEOUT_MS: '1000' }, { databaseUrl: db.url, extraTasks: { count_job: async () => void jobsRun++ } });
    await p.adminPool.query('create table public.acks (id bigint primary key, note text)');
    for (let i = 0; i < 100 && (await fetch(`${p.url}/rest/v1/acks`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` } })).status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  after(async () => {
    await stopTestPlatform(p).catch(() => undefined);
    await cluster.stop();
  });

  it('answers 503 fast while the database is down, recovers alone, and keeps every acknowledged write', async () => {
    const outcomes: Outcome[] = [];
    let next = 1;
    let running = true;
    const headers = { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` };
    const request = async (kind: 'write' | 'read', id: number) => {
      const t0 = Date.now();
      const res = kind === 'write'
        ? await fetch(`${p.url}/rest/v1/acks`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ id, note: `n${id}` }), signal: AbortSignal.timeout(15_000) })
        : await fetch(`${p.url}/rest/v1/acks?id=lte.${id}&order=id.desc&limit=5`, { headers, signal: AbortSignal.timeout(15_000) });
      const text = await res.text();
      outcomes.push({ id, status: res.status, ms: Date.now() - t0, at: Date.now(), kind });
      if (res.status === 503) {
        assert.equal((JSON.parse(text) as { message?: string }).message, 'The database is unavailable; retry shortly');
        assert.equal(res.headers.get('retry-after'), '1');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const writer = async () => {
      while (running) await request('write', next++);
    };
    const reader = async () => {
      while (running) await request('read', next);
    };
    const writers = [...Array.from({ length: 4 }, () => writer()), ...Array.from({ length: 2 }, () => reader())];

    await waitFor(() => outcomes.filter((o) => o.status === 201).length >= 50, 10_000, 'writes before the crash');
    const killedAt = Date.now();
    await cluster.kill('SIGKILL');
    const crashedAt = Date.now();

    await waitFor(async () => (await fetch(`${p.url}/health`)).status === 503, 5_000, '/health to report 503');
    const health = (await (await fetch(`${p.url}/health`)).json()) as { status: string; checks: Record<string, string> };
    assert.equal(health.status, 'unavailable');
    assert.equal(health.checks.database, 'unavailable');
    await waitFor(() => outcomes.some((o) => o.status === 503 && o.kind === 'write') && outcomes.some((o) => o.status === 503 && o.kind === 'read'), 5_000, 'reads and writes to fail with 503');
    await new Promise((r) => setTimeout(r, 1500));

    await cluster.start();
    const restartedAt = Date.now();
    await waitFor(() => outcomes.some((o) => o.at > restartedAt && o.status === 201), 10_000, 'a write to succeed within 10 s of the restart');
    const recoveredAt = Math.min(...outcomes.filter((o) => o.at > restartedAt && o.status === 201).map((o) => o.at));
    assert.ok(recoveredAt - restartedAt < 10_000, `recovered ${recoveredAt - restartedAt} ms after the restart`);
    const afterRecovery = outcomes.length;
    await waitFor(() => outcomes.slice(afterRecovery).filter((o) => o.status === 201).length >= 30, 10_000, 'writes after recovery');
    await waitFor(() => outcomes.slice(afterRecovery).some((o) => o.kind === 'read' && o.status === 200), 10_000, 'reads after recovery');
    running = false;
    await Promise.all(writers);

    const statuses = new Set(outcomes.map((o) => o.status));
    assert.deepEqual([...statuses].sort(), [200, 201, 503], 'only successes and clean 503s, never a 500 or a hang');
    const lastFailure = Math.max(...outcomes.filter((o) => o.status === 503).map((o) => o.at));
    assert.ok(lastFailure < recoveredAt + 2000, 'errors only during the outage (and the reconnect just after it)');
    const firstFailure = Math.min(...outcomes.filter((o) => o.status === 503).map((o) => o.at));
    assert.ok(firstFailure >= killedAt, 'no error before the crash');
    const slowest503 = Math.max(...outcomes.filter((o) => o.status === 503).map((o) => o.ms));
    assert.ok(slowest503 < 3000, `a request during the outage fails fast (slowest took ${slowest503} ms)`);
    assert.ok(restartedAt - crashedAt >= 1500);

    const acknowledged = outcomes.filter((o) => o.kind === 'write' && o.status === 201).map((o) => o.id);
    const { rows } = await p.adminPool.query<{ id: string }>('select id from public.acks where id = any($1::bigint[])', [acknowledged]);
    assert.equal(rows.length, acknowledged.length, 'every acknowledged write survived the crash');

    // The worker reconnects too: a job added after the restart runs.
    const before = jobsRun;
    await p.adminPool.query(`select graphile_worker.add_job('count_job', '{}')`);
    await waitFor(() => jobsRun > before, 15_000, 'the worker to run a job after the restart');
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
