-- Cron (sql/0121) in pg_cron's API: schedules parsed as pg_cron reads them
-- (and its errors), the next run in UTC, jobs upserted by name, a role
-- seeing only its own jobs and runs, a job running as the role that
-- scheduled it and unable to step out of it, a tick claimed once, a run
-- missed long ago dropped, runs of a dead process failed.
begin;
select plan(30);

select is(cron.next_run_after(cron.parse_schedule('*/5 * * * *'), '2026-03-01 10:02:30Z'), '2026-03-01 10:05Z'::timestamptz, 'every five minutes');
select is(cron.next_run_after(cron.parse_schedule('0 9 * * mon-fri'), '2026-11-28 12:00Z'), '2026-11-30 09:00Z'::timestamptz, 'weekday names, Saturday to Monday');
select is(cron.next_run_after(cron.parse_schedule('0 0 $ * *'), '2026-02-10 00:00Z'), '2026-02-28 00:00Z'::timestamptz, '$ is the month''s last day');
select is(cron.next_run_after(cron.parse_schedule('0 0 29 2 *'), '2026-03-01 00:00Z'), '2028-02-29 00:00Z'::timestamptz, 'a leap day years away');
select is(cron.next_run_after(cron.parse_schedule('30 10 1 * 5'), '2026-11-29 00:00Z'), '2026-12-01 10:30Z'::timestamptz, 'day of month or day of week when both are given');
select is(cron.next_run_after(cron.parse_schedule('10 seconds'), '2026-11-29 00:00:05Z'), '2026-11-29 00:00:10Z'::timestamptz, 'an interval in seconds');
select is(cron.next_run_after(cron.parse_schedule('@daily'), '2026-11-29 05:00Z'), '2026-11-30 00:00Z'::timestamptz, 'macros');
select throws_ok($$ select cron.schedule('* * * *', 'select 1') $$, '22023', 'invalid schedule: * * * *', 'four fields is pg_cron''s error');
select throws_ok($$ select cron.schedule('60 seconds', 'select 1') $$, '22023', 'invalid schedule: 60 seconds', 'intervals are 1-59 seconds');
select throws_ok($$ select cron.schedule('61 * * * *', 'select 1') $$, '22023', 'invalid schedule: 61 * * * *', 'out of range');

select is(cron.schedule('nightly', '0 3 * * *', 'select 1'), cron.schedule('nightly', '0 4 * * *', 'select 2'), 'scheduling a name again changes that job');
select is((select schedule || ' ' || command from cron.job where jobname = 'nightly'), '0 4 * * * select 2', 'its schedule and command');
select lives_ok($$ select cron.alter_job((select jobid from cron.job where jobname = 'nightly'), active => false) $$, 'alter_job');
select throws_ok($$ select cron.unschedule(999999) $$, '22023', 'could not find valid entry for job 999999', 'unscheduling nothing is pg_cron''s error');
select ok(cron.unschedule('nightly'), 'unschedule by name');

-- Two roles: each sees its own jobs only, and a job runs as its role.
create role cron_alice; create role cron_bob;
grant usage on schema cron to cron_alice, cron_bob;
create table public.cron_seen (who text);
grant insert on public.cron_seen to cron_alice;
set local role cron_alice;
select cron.schedule('alice-job', '* * * * *', 'insert into public.cron_seen values (current_user)');
select cron.schedule('alice-escape', '* * * * *', 'reset role; insert into public.cron_seen values (current_user)');
reset role;
set local role cron_bob;
select cron.schedule('bob-job', '* * * * *', 'select 1');
select is((select array_agg(jobname) from cron.job), array['bob-job'], 'a role sees its own jobs only');
select throws_ok($$ select cron.unschedule('alice-job') $$, '22023', null, 'and cannot unschedule another''s');
select throws_ok($$ select cron.schedule_in_database('as-alice', '* * * * *', 'select 1', current_database(), 'cron_alice') $$, '42501', null, 'nor schedule as another role');
reset role;

update cron.next_runs set next_run = clock_timestamp() - interval '1 second';
create temp table claimed as select * from cron.claim_due_runs() where runid is not null;
select is((select count(*)::int from claimed), 3, 'a tick claims each due job once');
select is((select count(*)::int from cron.claim_due_runs() where runid is not null), 0, 'and a second claim in the same tick finds nothing');
select cron.run(runid) from claimed;
select is((select array_agg(who) from public.cron_seen), array['cron_alice'], 'the job ran as the role that scheduled it');
select alike((select return_message from cron.job_run_details d join cron.job j using (jobid) where j.jobname = 'alice-escape'), '%cannot set parameter "role"%', 'a command cannot step out of its role');

update cron.next_runs set next_run = clock_timestamp() - interval '2 minutes';
select is((select count(*)::int from cron.claim_due_runs() where runid is not null), 0, 'a run missed by minutes is not made up');

update cron.next_runs set next_run = clock_timestamp() - interval '1 second';
create temp table batch as select runid from cron.claim_due_runs() where runid is not null;
select is(cron.run_many((select array_agg(runid) from batch)), 3, 'run_many runs a group');
select is((select count(*)::int from public.cron_seen), 2, 'each command in it ran');
select cron.finish_run((select min(runid) from batch), 'failed', 'late');
select is((select status from cron.job_run_details where runid = (select min(runid) from batch)), 'succeeded', 'an ended run is not finished again');
insert into cron.job_run_details (jobid, status, start_time, end_time) values (1, 'succeeded', now() - interval '8 days', now() - interval '8 days');
set local cron.run_details_retention = '7 days';
select cron.tidy_runs();
select is((select count(*)::int from cron.job_run_details where end_time < now() - interval '7 days'), 0, 'history past its retention is removed');
insert into cron.job_run_details (jobid, status, job_pid, start_time) values (1, 'running', 2147483000, now());
select is(cron.tidy_runs(), 1, 'a run whose process is gone is failed');

select ok(cron.is_direct('VACUUM') and cron.is_direct('vacuum analyze public.cron_seen;'), 'one VACUUM or ANALYZE is run by the worker itself (Supabase''s guide schedules one)');
select ok(not cron.is_direct('vacuum; reset role') and not cron.is_direct('vacuumx'), 'anything more goes through the role''s function');

select * from finish();
rollback;
