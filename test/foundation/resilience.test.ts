// The database dies under load and comes back: the server keeps running, answers
// 503 fast meanwhile, resumes by itself, and loses no acknowledged write.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { asRole } from '../../db/as-role.ts';
import { route } from '../../server/errors.ts';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { freshDatabase } from '../helpers/db.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Outcome = { id: number; status: number; ms: number };

describe('resilience: Postgres restarts under load', () => {
  let cluster: Cluster;
  let p: TestPlatform;
  let jobsRun = 0;

  before(async () => {
    cluster = await startCluster({ durable: true });
    const db = await freshDatabase(cluster.url);
    // The write path every surface uses: HTTP -> asRole on the request pool -> one SQL statement.
    const writes = express.Router();
    writes.post(
      '/acks/:id',
      route(async (req, res) => {
        const id = Number(req.params.id);
        await asRole(p.requestPool, { role: 'service_role', claims: { role: 'service_role' } }, (c) => c.query('insert into public.acks (id) values ($1)', [id]));
        res.status(201).json({ id });
      }),
    );
    p = await startTestPlatform({ DB_CONNECT_TIMEOUT_MS: '1000' }, { databaseUrl: db.url, surfaces: [{ prefix: '/api', router: writes }], extraTasks: { count_job: async () => void jobsRun++ } });
    await p.adminPool.query('create table public.acks (id bigint primary key)');
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
    const writer = async () => {
      while (running) {
        const id = next++;
        const t0 = Date.now();
        const res = await fetch(`${p.url}/api/acks/${id}`, { method: 'POST', headers, signal: AbortSignal.timeout(15_000) });
        const body = (await res.json()) as { error?: string };
        outcomes.push({ id, status: res.status, ms: Date.now() - t0 });
        if (res.status === 503) {
          assert.deepEqual(body, { error: 'The database is unavailable; retry shortly' });
          assert.equal(res.headers.get('retry-after'), '1');
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    const writers = Array.from({ length: 6 }, () => writer());

    await waitFor(() => outcomes.filter((o) => o.status === 201).length >= 50, 10_000, 'writes before the crash');
    await cluster.kill('SIGKILL');
    const crashedAt = Date.now();

    await waitFor(async () => (await fetch(`${p.url}/health`)).status === 503, 5_000, '/health to report 503');
    const health = (await (await fetch(`${p.url}/health`)).json()) as { status: string; checks: Record<string, string> };
    assert.equal(health.status, 'unavailable');
    assert.equal(health.checks.database, 'unavailable');
    await waitFor(() => outcomes.some((o) => o.status === 503 && o.id > 50), 5_000, 'requests to fail with 503');
    await new Promise((r) => setTimeout(r, 1500));

    await cluster.start();
    const restartedAt = Date.now();
    await waitFor(async () => (await fetch(`${p.url}/health`)).status === 200, 20_000, '/health to recover');
    const afterRecovery = outcomes.length;
    await waitFor(() => outcomes.slice(afterRecovery).filter((o) => o.status === 201).length >= 30, 10_000, 'writes after recovery');
    running = false;
    await Promise.all(writers);

    const statuses = new Set(outcomes.map((o) => o.status));
    assert.deepEqual([...statuses].sort(), [201, 503], 'only successes and clean 503s, never a 500 or a hang');
    const slowest503 = Math.max(...outcomes.filter((o) => o.status === 503).map((o) => o.ms));
    assert.ok(slowest503 < 3000, `a request during the outage fails fast (slowest took ${slowest503} ms)`);
    assert.ok(restartedAt - crashedAt >= 1500);

    const acknowledged = outcomes.filter((o) => o.status === 201).map((o) => o.id);
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
