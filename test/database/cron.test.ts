// Cron (issue 50, item 1; sql/0121, worker/cron.ts) with real time and real
// processes: a '2 seconds' job with two platforms and a separate `npm run
// worker` on one database runs on schedule and never twice in a tick; with
// the other platform and the worker killed (SIGKILL) it goes on in the one
// left. The SQL is Supabase's Cron guide's, unchanged but for the names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPlatformProcess, startWorkerCli, type PlatformProcess, type WorkerCli } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { eventually } from '../helpers/eventually.ts';

type Hit = { tick: string; n: number };

describe('Cron across processes', () => {
  let p: TestPlatform;
  let other: PlatformProcess | undefined;
  let worker: WorkerCli | undefined;

  /** Runs of the job per two-second tick (the epoch's even seconds), from its inserts. */
  const hitsPerTick = async (since: Date): Promise<Hit[]> => (await p.adminPool.query<Hit>(
    `select floor(extract(epoch from at) / 2)::text as tick, count(*)::int as n from public.cron_hits where at >= $1 group by 1 order by 1`, [since])).rows;

  before(async () => {
    p = await startTestPlatform({ LOG_LEVEL: 'warn' });
    other = await startPlatformProcess(p, { LOG_LEVEL: 'warn' });
    worker = await startWorkerCli(p, { LOG_LEVEL: 'info' });
    await p.adminPool.query(`create table public.cron_hits (at timestamptz not null default clock_timestamp(), who text not null default current_user)`);
  });
  after(async () => {
    await worker?.kill();
    await other?.kill();
    await stopTestPlatform(p);
  });

  it('runs a 2-second job on schedule, once per tick, shared by two platforms and a worker', async () => {
    const { rows: [job] } = await p.adminPool.query<{ jobid: string }>(`select cron.schedule('every-two', '2 seconds', 'insert into public.cron_hits default values') as jobid`);
    const since = new Date();
    await sleep(9000);
    const ticks = await hitsPerTick(since);
    assert.ok(ticks.length >= 4, `four ticks or more in 9 s (got ${ticks.length})`);
    assert.deepEqual(ticks.filter((t) => t.n !== 1), [], 'never twice in a tick');
    const consecutive = ticks.every((t, i) => i === 0 || Number(t.tick) === Number(ticks[i - 1]!.tick) + 1);
    assert.ok(consecutive, `no tick missed: ${ticks.map((t) => t.tick).join(',')}`);
    const { rows: runs } = await p.adminPool.query<{ status: string; n: number; late_ms: number }>(
      `select status, count(*)::int as n, max(extract(epoch from start_time - to_timestamp(floor(extract(epoch from start_time) / 2) * 2)) * 1000)::int as late_ms
       from cron.job_run_details where jobid = $1 group by status`, [job!.jobid]);
    assert.deepEqual(runs.map((r) => r.status), ['succeeded']);
    assert.ok(runs[0]!.late_ms < 1000, `claimed on time (${runs[0]!.late_ms} ms late at most)`);
    const { rows: [who] } = await p.adminPool.query<{ who: string; admin: string }>(`select (select distinct who from public.cron_hits) as who, current_user as admin`);
    assert.equal(who!.who, who!.admin, 'as the role that scheduled it');
  });

  it('goes on in the process left when the others are killed', async () => {
    await worker!.kill();
    await other!.kill();
    const since = new Date(Date.now() + 500);
    await sleep(6500);
    const ticks = await hitsPerTick(since);
    assert.ok(ticks.length >= 3, `three ticks or more in 6 s after the kill (got ${ticks.length})`);
    assert.deepEqual(ticks.filter((t) => t.n !== 1), [], 'still once a tick');
  });

  it('takes the Cron guide\'s examples as written, and runs its VACUUM, procedure and function', async () => {
    const q = (sql: string) => p.adminPool.query(sql);
    await q(`create table events (event_time timestamptz not null default now())`);
    await q(`create function hello_world() returns text language sql as $$ select 'hello world' $$`);
    await q(`create table calls (at timestamptz not null default now())`);
    await q(`create procedure do_something() language sql as $$ insert into calls default values $$`);
    await q(`create procedure my_procedure() language sql as $$ insert into calls default values $$`);
    // The guide's statements, unchanged.
    await q(`select cron.schedule('permanent-cron-job-name', '30 seconds', 'CALL do_something()')`);
    await q(`select cron.alter_job(
  job_id := (select jobid from cron.job where jobname = 'permanent-cron-job-name'),
  schedule := '*/5 * * * *'
)`);
    await q(`select cron.alter_job(
  job_id := (select jobid from cron.job where jobname = 'permanent-cron-job-name'),
  active := false
)`);
    await q(`select cron.alter_job(
  job_id := (select jobid from cron.job where jobname = 'permanent-cron-job-name'),
  active := true
)`);
    await q(`select cron.schedule (
  'saturday-cleanup', -- name of the cron job
  '30 3 * * 6', -- Saturday at 3:30am (GMT)
  $$ delete from events where event_time < now() - interval '1 week' $$
)`);
    await q(`select cron.schedule('nightly-vacuum', '0 3 * * *', 'VACUUM')`);
    await q(`select cron.schedule('call-db-function', '*/5 * * * *', 'SELECT hello_world()')`);
    await q(`select cron.schedule('call-db-procedure', '*/5 * * * *', 'CALL my_procedure()')`);
    const { rows: jobs } = await p.adminPool.query<{ jobname: string; schedule: string; active: boolean }>(`select jobname, schedule, active from cron.job where jobname not in ('every-two') order by jobid`);
    assert.deepEqual(jobs.map((j) => [j.jobname, j.schedule, j.active]), [
      ['permanent-cron-job-name', '*/5 * * * *', true], ['saturday-cleanup', '30 3 * * 6', true], ['nightly-vacuum', '0 3 * * *', true],
      ['call-db-function', '*/5 * * * *', true], ['call-db-procedure', '*/5 * * * *', true],
    ]);
    // To see them run without waiting for 3 a.m.: every second, through the guide's alter_job.
    for (const name of ['nightly-vacuum', 'call-db-function', 'call-db-procedure']) {
      await q(`select cron.alter_job(job_id := (select jobid from cron.job where jobname = '${name}'), schedule := '1 seconds')`);
    }
    const ran = await eventually('the three ran', async () => (await p.adminPool.query<{ jobname: string; status: string; return_message: string }>(
      `select distinct on (j.jobname) j.jobname, d.status, d.return_message from cron.job_run_details d join cron.job j using (jobid)
        where j.jobname in ('nightly-vacuum', 'call-db-function', 'call-db-procedure') and d.status in ('succeeded', 'failed')
        order by j.jobname, d.runid`)).rows, (r) => r.length === 3, { tries: 80, everyMs: 100 });
    assert.deepEqual(ran.map((r) => [r.jobname, r.status, r.return_message]), [
      ['call-db-function', 'succeeded', '1 row'], ['call-db-procedure', 'succeeded', '0 rows'], ['nightly-vacuum', 'succeeded', 'VACUUM'],
    ]);
    // The guide's history query.
    const { rows: history } = await p.adminPool.query(`select
  *
from cron.job_run_details
where jobid = (select jobid from cron.job where jobname = 'nightly-vacuum')
order by start_time desc
limit 10`);
    assert.ok(history.length >= 1);
    for (const name of ['permanent-cron-job-name', 'saturday-cleanup', 'nightly-vacuum', 'call-db-function', 'call-db-procedure']) await q(`select cron.unschedule('${name}')`);
  });

  it('refuses a bad schedule with pg_cron\'s error, and unschedules as the guide does', async () => {
    await assert.rejects(p.adminPool.query(`select cron.schedule('bad', '*/5 * * *', 'select 1')`), /invalid schedule: \*\/5 \* \* \*/);
    // Supabase's Cron guide: a job that calls a function on a schedule, and its history.
    await p.adminPool.query(`create function public.purge_hits() returns void language sql as $$ delete from public.cron_hits $$`);
    await p.adminPool.query(`select cron.schedule('purge-hits', '1 seconds', 'select public.purge_hits()')`);
    await p.adminPool.query(`select cron.unschedule('every-two')`);
    const purged = await eventually('the purge job ran', async () => (await p.adminPool.query<{ n: number }>(`select count(*)::int as n from cron.job_run_details d join cron.job j using (jobid) where j.jobname = 'purge-hits' and d.status = 'succeeded'`)).rows[0]!.n, (n) => n > 0, { tries: 50, everyMs: 100 });
    assert.ok(purged > 0);
    const { rows: [left] } = await p.adminPool.query<{ n: number }>('select count(*)::int as n from public.cron_hits');
    assert.equal(left!.n, 0);
    const { rows: [details] } = await p.adminPool.query<{ return_message: string }>(`select return_message from cron.job_run_details d join cron.job j using (jobid) where j.jobname = 'purge-hits' order by runid desc limit 1`);
    assert.equal(details!.return_message, '1 row');
  });
});
