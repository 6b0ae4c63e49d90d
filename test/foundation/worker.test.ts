import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform } from '../helpers/platform.ts';

describe('worker', () => {
  it('runs jobs added from SQL inside the server process', async () => {
    let resolveSeen: (v: unknown) => void;
    const seen = new Promise((r) => (resolveSeen = r));
    const p = await startTestPlatform({}, { extraTasks: { test_echo: async (payload) => resolveSeen(payload) } });
    try {
      await p.adminPool.query(`select graphile_worker.add_job('test_echo', json_build_object('hello', 'world'))`);
      assert.deepEqual(await seen, { hello: 'world' });
      assert.equal(p.worker?.ready(), true);
    } finally {
      await stopTestPlatform(p);
    }
  });

  it('with WORKER=off the server is healthy without one (workers run apart with `npm run worker`)', async () => {
    const p = await startTestPlatform({ WORKER: 'off' });
    try {
      assert.equal(p.worker, undefined);
      const res = await fetch(`${p.url}/health`);
      assert.equal(res.status, 200);
    } finally {
      await stopTestPlatform(p);
    }
  });
});

describe('npm run worker', () => {
  it('runs alone against DATABASE_URL, migrating first, and stops on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const { freshDatabase, query } = await import('../helpers/db.ts');
    const db = await freshDatabase();
    const child = spawn('npm', ['run', 'worker'], { env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'info' } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const deadline = Date.now() + 30_000;
    while (!out.includes('"msg":"worker started"')) {
      assert.equal(child.exitCode, null, out);
      assert.ok(Date.now() < deadline, `worker did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const rows = await query<{ n: number }>(db.url, `select count(*)::int as n from platform.migrations`);
    assert.ok(rows[0]!.n >= 4, 'platform migrations applied by the worker');
    const graphile = await query(db.url, `select to_regclass('graphile_worker._private_jobs') as t`);
    assert.notEqual(graphile[0]!.t, null, 'graphile-worker schema installed');
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    await db.drop();
  });
});
