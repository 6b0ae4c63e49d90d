// A worker process killed (SIGKILL) in the middle of a job: another worker
// process takes the job up within a minute (issue 29), not after
// graphile-worker's four-hour lock (sql/0066). Real processes: the doomed
// worker is a child process running the platform on free ports; the
// rescuer is a platform in this process on the same database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { eventually } from '../helpers/eventually.ts';
import { startPlatformProcess, type PlatformProcess } from '../helpers/platform-process.ts';

const FAST = { REALTIME_NODE_HEARTBEAT_MS: '300', REALTIME_NODE_REAP_MS: '1500', WORKER_RECLAIM_INTERVAL_MS: '500', LOG_LEVEL: 'warn' };

describe('a worker process killed mid-job', () => {
  let api: TestPlatform;
  let rescuer: TestPlatform | undefined;
  let child: PlatformProcess | undefined;

  before(async () => {
    api = await startTestPlatform({ ...FAST, WORKER: 'off' });
  });
  after(async () => {
    await child?.kill();
    if (rescuer) await rescuer.stop();
    await stopTestPlatform(api);
  });

  it('has its job taken up by another worker process within a minute, as a repeat', async () => {
    child = await startPlatformProcess(api, FAST);
    await api.adminPool.query(`select graphile_worker.add_job('test_hold', '{"n": 1}', max_attempts := 5)`);
    const held = await eventually('the child to hold the job', async () => (await api.adminPool.query<{ locked_by: string | null; node_id: string | null }>(
      `select j.locked_by, w.node_id from graphile_worker.jobs j left join platform.worker_nodes w on w.worker_id = j.locked_by where j.task_identifier = 'test_hold'`)).rows[0]!,
    (r) => r.locked_by !== null, { tries: 600 });
    assert.ok(held.node_id, 'the locker is recorded against its process');

    await child.kill();
    child = undefined;
    const killedAt = Date.now();

    let taken: { attempts: number; payload: unknown } | undefined;
    rescuer = await startTestPlatform(FAST, {
      databaseUrl: api.config.DATABASE_URL!,
      extraTasks: { test_hold: async (payload, helpers) => void (taken = { attempts: helpers.job.attempts, payload }) },
    });
    await eventually('the job to run again and finish', async () =>
      (await api.adminPool.query(`select 1 from graphile_worker.jobs where task_identifier = 'test_hold'`)).rows.length, (n) => n === 0, { tries: 1200 });
    const waited = Date.now() - killedAt;
    assert.ok(waited < 60_000, `taken up after ${waited} ms`);
    assert.deepEqual(taken, { attempts: 2, payload: { n: 1 } }, 'the second attempt: a task can tell a repeat');
    assert.equal((await api.adminPool.query(`select count(*)::int as n from platform.worker_nodes where node_id = $1`, [held.node_id])).rows[0].n, 0, 'the dead process\'s rows are gone');
  });
});
