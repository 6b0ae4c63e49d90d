// The Studio's Database -> Cron and Queues over the control plane (sql/0125):
// a job scheduled from a previewed cron.schedule call runs and shows its
// runs, is paused and resumed with cron.alter_job and unscheduled; a bad
// schedule is pg_cron's words in a 400; a queue made, shown with its
// metrics, purged and dropped; every change in the audit log.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { setupOperator, type Operator } from '../helpers/studio.ts';

type Job = { jobid: number; jobname: string; schedule: string; command: string; active: boolean; username: string; next_run: string | null; last_run: { status: string; return_message: string } | null };
type Queue = { queue_name: string; is_unlogged: boolean; queue_length: number; queue_visible_length: number; total_messages: number };

describe('Studio: cron jobs and queues through the control plane', () => {
  let p: TestPlatform;
  let op: Operator;
  const meta = (path: string) => `/api/platform/pg-meta/default${path}`;

  before(async () => {
    p = await startTestPlatform({ LOG_LEVEL: 'warn' });
    op = await setupOperator(p);
    await p.adminPool.query('create table public.beats (at timestamptz not null default now())');
  });
  after(() => stopTestPlatform(p));

  it('schedules a job from its previewed SQL, shows its runs, pauses, resumes and unschedules it', async () => {
    const spec = { name: 'heartbeat', schedule: '1 seconds', command: "insert into public.beats default values" };
    const preview = await op.json<{ sql: string; ran: boolean }>(meta('/cron/jobs'), 200, { method: 'POST', body: { ...spec, preview: true } });
    assert.deepEqual(preview, { sql: "select cron.schedule('heartbeat', '1 seconds', 'insert into public.beats default values');", ran: false });
    assert.deepEqual(await op.json<Job[]>(meta('/cron/jobs'), 200), [], 'a preview changes nothing');
    await op.json(meta('/cron/jobs'), 200, { method: 'POST', body: spec });
    const [job] = await eventually('the job with a run', () => op.json<Job[]>(meta('/cron/jobs'), 200), (j) => j[0]?.last_run?.status === 'succeeded', { tries: 60, everyMs: 100 });
    assert.deepEqual([job!.jobname, job!.schedule, job!.active, job!.last_run!.return_message], ['heartbeat', '1 seconds', true, '1 row']);
    const runs = await op.json<Array<{ runid: number; status: string; duration_ms: number }>>(meta(`/cron/jobs/${job!.jobid}/runs`), 200);
    assert.ok(runs.length >= 1 && runs.every((r) => r.status === 'succeeded' && r.duration_ms >= 0));

    const pause = await op.json<{ sql: string }>(meta(`/cron/jobs/${job!.jobid}`), 200, { method: 'PATCH', body: { active: false } });
    assert.equal(pause.sql, `select cron.alter_job(${job!.jobid}, active => false);`);
    const [paused] = await op.json<Job[]>(meta('/cron/jobs'), 200);
    assert.equal(paused!.active, false);
    const edit = await op.json<{ sql: string }>(meta(`/cron/jobs/${job!.jobid}`), 200, { method: 'PATCH', body: { schedule: '0 3 * * *', active: true } });
    assert.equal(edit.sql, `select cron.alter_job(${job!.jobid}, schedule => '0 3 * * *', active => true);`);

    const bad = await op.call(meta('/cron/jobs'), { method: 'POST', body: { name: 'bad', schedule: '* * * *', command: 'select 1' } });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { message: string }).message, /invalid schedule: \* \* \* \*/);
    assert.equal((await op.call(meta('/cron/jobs/999999/runs'))).status, 200, 'no runs for an unknown id is an empty list');
    assert.equal((await op.call(meta('/cron/jobs/999999'), { method: 'DELETE', body: {} })).status, 404);
    assert.equal((await op.call(meta('/cron/jobs/abc'), { method: 'DELETE', body: {} })).status, 404);

    const gone = await op.json<{ sql: string }>(meta(`/cron/jobs/${job!.jobid}`), 200, { method: 'DELETE', body: {} });
    assert.equal(gone.sql, `select cron.unschedule(${job!.jobid});`);
    assert.deepEqual(await op.json<Job[]>(meta('/cron/jobs'), 200), []);
  });

  it('makes a queue from its previewed SQL, shows its metrics, purges and drops it', async () => {
    const preview = await op.json<{ sql: string }>(meta('/queues'), 200, { method: 'POST', body: { name: 'emails', preview: true } });
    assert.equal(preview.sql, "select pgmq.create('emails');");
    await op.json(meta('/queues'), 200, { method: 'POST', body: { name: 'emails' } });
    await op.json(meta('/queues'), 200, { method: 'POST', body: { name: 'fast', unlogged: true } });
    await p.adminPool.query(`select pgmq.send('emails', '{"to": "a@example.com"}'); select pgmq.send('emails', '{"to": "b@example.com"}', 60)`);
    const queues = await op.json<Queue[]>(meta('/queues'), 200);
    assert.deepEqual(queues.map((q) => [q.queue_name, q.is_unlogged, q.queue_length, q.queue_visible_length, q.total_messages]), [['emails', false, 2, 1, 2], ['fast', true, 0, 0, 0]]);
    const bad = await op.call(meta('/queues'), { method: 'POST', body: { name: 'Bad Name' } });
    assert.equal(bad.status, 400);
    assert.equal((await op.json<{ sql: string }>(meta('/queues/emails/purge'), 200, { method: 'POST', body: {} })).sql, "select pgmq.purge_queue('emails');");
    assert.equal((await op.json<Queue[]>(meta('/queues'), 200))[0]!.queue_length, 0);
    assert.equal((await op.json<{ sql: string }>(meta('/queues/fast'), 200, { method: 'DELETE', body: {} })).sql, "select pgmq.drop_queue('fast');");
    assert.equal((await op.call(meta('/queues/fast'), { method: 'DELETE', body: {} })).status, 404);
    assert.deepEqual((await op.json<Queue[]>(meta('/queues'), 200)).map((q) => q.queue_name), ['emails']);
    const { rows: audit } = await p.adminPool.query<{ action: string }>(`select action from studio.audit_log where action in ('schedule_cron_job', 'alter_cron_job', 'unschedule_cron_job', 'create_queue', 'purge_queue', 'drop_queue') order by at`);
    assert.deepEqual([...new Set(audit.map((a) => a.action))], ['schedule_cron_job', 'alter_cron_job', 'unschedule_cron_job', 'create_queue', 'purge_queue', 'drop_queue']);
  });
});
