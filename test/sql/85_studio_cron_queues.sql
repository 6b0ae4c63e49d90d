-- The Studio's Cron and Queues (sql/0125): the SQL each change runs, built
-- with every value quoted; pg_cron's words for a bad schedule; 404 for what
-- does not exist; the pages' reads.
begin;
select plan(9);

select is(studio.cron_schedule_sql('{"name": "it''s", "schedule": "0 3 * * *", "command": "select 1; select ''x''"}'),
  $$select cron.schedule('it''s', '0 3 * * *', 'select 1; select ''x''');$$, 'cron.schedule with every value quoted');
select throws_ok($$ select studio.cron_schedule_sql('{"name": "x", "schedule": "* * *", "command": "select 1"}') $$, 'PT400', 'invalid schedule: * * * (five cron fields in UTC, or ''N seconds'' from 1 to 59)', 'a bad schedule in pg_cron''s words');
select throws_ok($$ select studio.cron_unschedule_sql(424242) $$, 'PT404', 'No such cron job', 'an unknown job');
select cron.schedule('tidy', '0 4 * * *', 'select 1');
select is(studio.cron_alter_sql((select jobid from cron.job where jobname = 'tidy'), '{"active": false, "schedule": "5 seconds"}'),
  format('select cron.alter_job(%s, schedule => %L, active => false);', (select jobid from cron.job where jobname = 'tidy'), '5 seconds'), 'alter_job with only what changes');
select is((select jsonb_path_query_first(studio.cron_jobs(), '$[*] ? (@.jobname == "tidy")') ->> 'schedule'), '0 4 * * *', 'the jobs, with their schedule');
select is(studio.queue_create_sql('{"name": "emails", "unlogged": true}'), $$select pgmq.create_unlogged('emails');$$, 'an unlogged queue');
select throws_ok($$ select studio.queue_create_sql('{"name": "Bad; drop"}') $$, 'PT400', null, 'a name that is not a queue name');
select pgmq.create('emails');
select pgmq.send('emails', '{}');
select is((select (q ->> 'queue_length')::int from jsonb_array_elements(studio.queues()) q where q ->> 'queue_name' = 'emails'), 1, 'queues with their metrics');
select throws_ok($$ select studio.queue_drop_sql('nowhere') $$, 'PT404', 'No such queue', 'an unknown queue');

select * from finish();
rollback;
