-- Cron's runs (issue 50, item 1), over the jobs of sql/0123: a tick claims
-- the due runs in one guarded statement, each run goes through its role's
-- executor (or, for one VACUUM or ANALYZE, the worker's own session), its
-- outcome is recorded, and runs of a process that died are failed.
--
--   cron.claim_due_runs     a tick: due jobs moved on, a run row for each
--   cron.run, run_many      a run (or several quick ones) through the executor
--   cron.is_direct, begin_direct_run   what the worker runs on its session
--   cron.finish_run         a run's end, recorded
--   cron.tidy_runs          dead processes' runs failed; old history removed

-- A command that cannot run inside a function or a transaction (Supabase's
-- guide schedules 'VACUUM'): exactly one VACUUM or ANALYZE statement. The
-- worker runs it itself under SET ROLE; one such statement cannot change
-- the role back, so it gains nothing over the function path.
create or replace function cron.is_direct(command text) returns boolean
language sql immutable set search_path = ''
as $$ select command ~* '^\s*(vacuum|analyze|analyse)(\s[^;]*)?;?\s*$' $$;

-- A direct run begins (the worker's session runs it): its role and command.
create or replace function cron.begin_direct_run(run_id bigint) returns table (username text, command text)
language sql volatile security definer set search_path = ''
as $$
  update cron.job_run_details d set status = 'running', job_pid = pg_backend_pid(), start_time = clock_timestamp()
  where d.runid = run_id and d.status = 'starting' and cron.is_direct(d.command)
  returning d.username, d.command
$$;

-- A run's end, recorded: by the worker after a direct run, or failed when
-- its call was cancelled, its connection lost or its process stopping
-- (a run still 'starting' or 'running'; an ended one is left as it is).
create or replace function cron.finish_run(run_id bigint, outcome text, message text) returns void
language sql volatile security definer set search_path = ''
as $$
  update cron.job_run_details set status = outcome, return_message = message, end_time = clock_timestamp()
  where runid = run_id and status in ('starting', 'running') and outcome in ('succeeded', 'failed')
$$;

-- A tick: the due jobs, each moved to its next run as it is claimed (so no
-- other process claims it for this tick), and a run row for each. A run
-- missed by more than a minute (everything was down) is dropped, not made
-- up: the job runs next at its next time. `next_due`: when to tick next.
create or replace function cron.claim_due_runs(max_runs integer default 1000)
returns table (runid bigint, jobid bigint, due_at timestamptz, quick boolean, direct boolean, next_due timestamptz)
language plpgsql volatile
security definer
set search_path = ''
as $$
declare
  now_ts timestamptz := clock_timestamp();
begin
  return query
  with due as (
    select n.jobid, n.next_run from cron.next_runs n join cron.job j on j.jobid = n.jobid
    where n.next_run <= now_ts and j.active
    order by n.next_run limit max_runs
    for update of n skip locked
  ), moved as (
    update cron.next_runs n set next_run = cron.next_run_after(n.parsed, now_ts)
    from due where n.jobid = due.jobid
    returning n.jobid, due.next_run as due_at
  ), runs as (
    insert into cron.job_run_details (jobid, database, username, command, status, start_time)
    select j.jobid, j.database, j.username, j.command, 'starting', now_ts
    from moved join cron.job j on j.jobid = moved.jobid
    where moved.due_at > now_ts - interval '1 minute'
    returning job_run_details.runid, job_run_details.jobid
  )
  select runs.runid, runs.jobid, moved.due_at,
         -- Its last run ended well within 50 ms: it may share a transaction with other quick ones.
         coalesce((select d.status = 'succeeded' and d.end_time - d.start_time < interval '50 milliseconds'
                     from cron.job_run_details d where d.jobid = runs.jobid and d.end_time is not null
                    order by d.start_time desc limit 1), false),
         cron.is_direct((select j.command from cron.job j where j.jobid = runs.jobid)),
         null::timestamptz
    from runs join moved on moved.jobid = runs.jobid;
  -- A statement of its own: it must see the next runs the claim just moved.
  return query select null::bigint, null::bigint, null::timestamptz, null::boolean, null::boolean,
    (select min(n.next_run) from cron.next_runs n join cron.job j on j.jobid = n.jobid where j.active);
end
$$;

-- Runs one claimed run through its role's executor, recording the outcome.
-- A statement cancelled (its time limit) ends the whole call: the caller
-- then records the failure with cron.finish_run.
create or replace function cron.run(run_id bigint) returns text
language plpgsql volatile
security definer
set search_path = ''
as $$
declare
  r record;
  executor text;
  message text;
  outcome text := 'succeeded';
begin
  update cron.job_run_details d set status = 'running', job_pid = pg_backend_pid(), start_time = clock_timestamp()
    where d.runid = run_id and d.status = 'starting'
    returning d.username, d.command into r;
  if not found then return null; end if;
  executor := cron.executor_name(r.username);
  if executor is null or not exists (select from pg_catalog.pg_proc p join pg_catalog.pg_roles o on o.oid = p.proowner
                                      where p.oid = to_regprocedure(executor || '(text)') and o.rolname = r.username) then
    outcome := 'failed';
    message := format('the job''s role %s has no executor of its own: schedule the job again as that role', r.username);
  else
    begin
      execute format('select %s($1)', executor) into message using r.command;
    exception when others then
      outcome := 'failed';
      get stacked diagnostics message = message_text;
      message := 'ERROR:  ' || message;
    end;
  end if;
  perform cron.finish_run(run_id, outcome, message);
  return outcome;
end
$$;

-- Quick runs one after another in one call and one transaction (each
-- command still in its own subtransaction, so one failing leaves the others):
-- a hundred jobs a second cost a hundred commits otherwise.
create or replace function cron.run_many(run_ids bigint[]) returns integer
language plpgsql volatile
security definer
set search_path = ''
as $$
declare
  id bigint;
  ran integer := 0;
begin
  foreach id in array run_ids loop
    if cron.run(id) is not null then ran := ran + 1; end if;
  end loop;
  return ran;
end
$$;


-- Runs whose process ended are failed, and history older than
-- cron.run_details_retention (7 days unless a DBA sets it:
-- alter database … set cron.run_details_retention = '30 days') is removed.
create or replace function cron.tidy_runs() returns integer
language plpgsql volatile
security definer
set search_path = ''
as $$
declare
  keep interval := coalesce(nullif(current_setting('cron.run_details_retention', true), ''), '7 days')::interval;
  ended integer;
begin
  update cron.job_run_details d set status = 'failed', end_time = clock_timestamp(),
      return_message = 'the process running the job ended before it finished'
    where d.status in ('starting', 'running')
      and ((d.status = 'running' and not exists (select from pg_catalog.pg_stat_activity a where a.pid = d.job_pid))
        or (d.status = 'starting' and d.start_time < clock_timestamp() - interval '1 minute'));
  get diagnostics ended = row_count;
  delete from cron.job_run_details d where d.end_time < clock_timestamp() - keep;
  return ended;
end
$$;

revoke all on function cron.claim_due_runs(integer), cron.run(bigint), cron.run_many(bigint[]), cron.tidy_runs(),
  cron.begin_direct_run(bigint), cron.finish_run(bigint, text, text),
  cron.plan_job() from public;
