-- The Studio's Database -> Cron and Database -> Queues (issue 50): what the
-- pages read (the jobs with their last run, a job's history, the queues
-- with their metrics) and the SQL each change runs, shown before it runs
-- (as sql/0100's *_sql functions): pg_cron's and pgmq's own calls, nothing
-- the SQL editor could not run.
--
--   studio.cron_jobs, studio.cron_runs, studio.queues         reads
--   studio.cron_schedule_sql, cron_alter_sql, cron_unschedule_sql
--   studio.queue_create_sql, queue_purge_sql, queue_drop_sql  changes

create or replace function studio.cron_jobs() returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'jobid', j.jobid, 'jobname', j.jobname, 'schedule', j.schedule, 'command', j.command, 'active', j.active,
           'username', j.username, 'next_run', n.next_run,
           'last_run', (select jsonb_build_object('runid', d.runid, 'status', d.status, 'start_time', d.start_time, 'end_time', d.end_time, 'return_message', d.return_message)
                          from cron.job_run_details d where d.jobid = j.jobid order by d.runid desc limit 1)
         ) order by j.jobid), '[]')
    from cron.job j left join cron.next_runs n on n.jobid = j.jobid
$$;

create or replace function studio.cron_runs(p_job bigint, p_limit integer default 50) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(r order by r.runid desc), '[]')
    from (select d.runid, d.status, d.start_time, d.end_time, d.return_message,
                 round(extract(epoch from d.end_time - d.start_time) * 1000)::bigint as duration_ms
            from cron.job_run_details d where d.jobid = p_job order by d.runid desc limit least(greatest(p_limit, 1), 500)) r
$$;

create or replace function studio.queues() returns jsonb
language sql volatile
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'queue_name', q.queue_name, 'is_unlogged', q.is_unlogged, 'created_at', q.created_at,
           'queue_length', m.queue_length, 'queue_visible_length', m.queue_visible_length,
           'oldest_msg_age_sec', m.oldest_msg_age_sec, 'newest_msg_age_sec', m.newest_msg_age_sec, 'total_messages', m.total_messages
         ) order by q.queue_name), '[]')
    from pgmq.list_queues() q cross join lateral pgmq.metrics(q.queue_name) m
$$;

-- A job's spec from the page: its schedule checked as pg_cron would (400 with pg_cron's words).
create or replace function studio.cron_check_schedule(p_schedule text) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  perform cron.parse_schedule(p_schedule);
exception when invalid_parameter_value then
  perform auth.raise_error(400, 'invalid_schedule', format('invalid schedule: %s (five cron fields in UTC, or ''N seconds'' from 1 to 59)', p_schedule));
end
$$;

create or replace function studio.cron_require_job(p_job bigint) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if not exists (select 1 from cron.job j where j.jobid = p_job) then perform auth.raise_error(404, 'not_found', 'No such cron job'); end if;
end
$$;

create or replace function studio.cron_schedule_sql(p_spec jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  perform studio.cron_check_schedule(p_spec ->> 'schedule');
  if coalesce(btrim(p_spec ->> 'command'), '') = '' then perform auth.raise_error(400, 'invalid_command', 'command: the SQL the job runs'); end if;
  return format('select cron.schedule(%L, %L, %L);', p_spec ->> 'name', p_spec ->> 'schedule', p_spec ->> 'command');
end
$$;

create or replace function studio.cron_alter_sql(p_job bigint, p_spec jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  args text[] := array[p_job::text];
begin
  perform studio.cron_require_job(p_job);
  if p_spec ? 'schedule' then
    perform studio.cron_check_schedule(p_spec ->> 'schedule');
    args := args || format('schedule => %L', p_spec ->> 'schedule');
  end if;
  if p_spec ? 'command' then args := args || format('command => %L', p_spec ->> 'command'); end if;
  if p_spec ? 'active' then args := args || ('active => ' || case when (p_spec ->> 'active')::boolean then 'true' else 'false' end); end if;
  return format('select cron.alter_job(%s);', array_to_string(args, ', '));
end
$$;

create or replace function studio.cron_unschedule_sql(p_job bigint) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  perform studio.cron_require_job(p_job);
  return format('select cron.unschedule(%s);', p_job);
end
$$;

create or replace function studio.queue_create_sql(p_spec jsonb) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  if coalesce(p_spec ->> 'name', '') !~ '^[a-z0-9_]{1,47}$' then
    perform auth.raise_error(400, 'invalid_name', 'name: lowercase letters, digits and underscores, at most 47');
  end if;
  return format('select pgmq.%s(%L);', case when (p_spec ->> 'unlogged')::boolean then 'create_unlogged' else 'create' end, p_spec ->> 'name');
end
$$;

create or replace function studio.queue_require(p_name text) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if not exists (select 1 from pgmq.meta m where m.queue_name = p_name) then perform auth.raise_error(404, 'not_found', 'No such queue'); end if;
end
$$;

create or replace function studio.queue_purge_sql(p_name text) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  perform studio.queue_require(p_name);
  return format('select pgmq.purge_queue(%L);', p_name);
end
$$;

create or replace function studio.queue_drop_sql(p_name text) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  perform studio.queue_require(p_name);
  return format('select pgmq.drop_queue(%L);', p_name);
end
$$;
