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
