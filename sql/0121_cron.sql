-- Cron (issue 50, item 1) in pg_cron's API, without the extension:
-- cron.schedule / unschedule / alter_job / schedule_in_database, the tables
-- cron.job and cron.job_run_details with pg_cron's columns, five-field
-- schedules (with `$` for the month's last day and pg_cron's @ macros) and
-- 'N seconds' intervals, all in UTC.
--
-- Who runs what: every process running a worker ticks once a second and
-- claims the due jobs with cron.claim_due_runs (one guarded statement: a
-- job's next run moves on as it is claimed, rows taken with SKIP LOCKED),
-- so a tick runs a job once whatever the number of replicas. A job runs its
-- command as the role that scheduled it, through a security definer
-- function that role owns (cron_exec.run_as_<role oid>): inside one, SET
-- ROLE and RESET ROLE are refused by Postgres, so a command cannot step out
-- to the worker's own login.

do $$
begin
  if exists (select from pg_extension where extname = 'pg_cron') then
    raise exception 'The pg_cron extension is installed in this database, and pgbase provides pg_cron''s API itself'
      using errcode = '55000', hint = 'Copy cron.job out, drop extension pg_cron, and schedule the jobs again; or point pgbase at another database.';
  end if;
end
$$;

create schema if not exists cron;
revoke all on schema cron from public;
comment on schema cron is 'pg_cron''s API (sql/0121): grant usage on it to a role that may schedule jobs';

create sequence cron.jobid_seq;
create sequence cron.runid_seq;

create table cron.job (
  jobid bigint primary key default nextval('cron.jobid_seq'),
  schedule text not null,
  command text not null,
  nodename text not null default 'localhost',
  nodeport integer not null default coalesce(inet_server_port(), 5432),
  database text not null default current_database(),
  username text not null default current_user,
  active boolean not null default true,
  jobname text,
  constraint jobname_username_uniq unique (jobname, username)
);
alter sequence cron.jobid_seq owned by cron.job.jobid;
alter table cron.job enable row level security;
create policy cron_job_policy on cron.job using (username = current_user) with check (username = current_user);
grant select, insert, update, delete on cron.job to public;
grant usage on sequence cron.jobid_seq to public;

create table cron.job_run_details (
  jobid bigint,
  runid bigint primary key default nextval('cron.runid_seq'),
  job_pid integer,
  database text,
  username text,
  command text,
  status text,
  return_message text,
  start_time timestamptz,
  end_time timestamptz
);
alter sequence cron.runid_seq owned by cron.job_run_details.runid;
create index job_run_details_jobid_idx on cron.job_run_details (jobid, start_time desc);
create index job_run_details_open_idx on cron.job_run_details (runid) where status in ('starting', 'running');
create index job_run_details_end_idx on cron.job_run_details (end_time);
alter table cron.job_run_details enable row level security;
create policy cron_job_run_details_policy on cron.job_run_details using (username = current_user);
grant select, delete on cron.job_run_details to public;

-- A schedule, parsed: interval seconds, or the allowed values of each field.
create type cron.parsed_schedule as (
  seconds integer,
  minutes integer[],
  hours integer[],
  days integer[],
  months integer[],
  weekdays integer[],
  last_day boolean,
  days_any boolean,
  weekdays_any boolean
);

-- When each job runs next (claimed and moved on by the ticks). Platform state, no one else's.
create table cron.next_runs (
  jobid bigint primary key references cron.job (jobid) on delete cascade,
  parsed cron.parsed_schedule not null,
  next_run timestamptz not null
);
create index next_runs_due_idx on cron.next_runs (next_run);
alter table cron.next_runs enable row level security;
revoke all on cron.next_runs from public;

-- One field of a five-field schedule: *, a, a-b, */n, a-b/n, a/n, lists of
-- them, names (jan-dec, sun-sat). null when it does not parse.
create or replace function cron.parse_field(field text, lo integer, hi integer, names text[] default null) returns integer[]
language plpgsql immutable
set search_path = ''
as $$
declare
  item text;
  m text[];
  a integer;
  b integer;
  step integer;
  out_values integer[] := '{}';
  token text;
begin
  if field is null or field = '' then return null; end if;
  foreach item in array string_to_array(lower(field), ',') loop
    m := regexp_match(item, '^(\*|[a-z0-9]+)(?:-([a-z0-9]+))?(?:/([0-9]+))?$');
    if m is null then return null; end if;
    step := coalesce(m[3]::integer, 1);
    if step < 1 or step > hi then return null; end if;
    if m[1] = '*' then
      if m[2] is not null then return null; end if;
      a := lo; b := hi;
    else
      foreach token in array array[m[1], m[2]] loop
        if token is not null and token !~ '^[0-9]+$' and (names is null or array_position(names, token) is null) then return null; end if;
      end loop;
      a := case when m[1] ~ '^[0-9]+$' then m[1]::integer else array_position(names, m[1]) - 1 + lo end;
      b := case when m[2] is null then case when m[3] is null then a else hi end
                when m[2] ~ '^[0-9]+$' then m[2]::integer else array_position(names, m[2]) - 1 + lo end;
    end if;
    -- Sunday is 0 or 7.
    if hi = 7 then
      if a > 7 or b > 7 or a > b then return null; end if;
    elsif a < lo or b > hi or a > b then
      return null;
    end if;
    out_values := out_values || array(select generate_series(a, b, step));
  end loop;
  if hi = 7 then out_values := array(select distinct v % 7 from unnest(out_values) v); end if;
  return array(select distinct v from unnest(out_values) v order by v);
end
$$;

-- A schedule as pg_cron reads it, or pg_cron's error.
create or replace function cron.parse_schedule(schedule text) returns cron.parsed_schedule
language plpgsql immutable
set search_path = ''
as $$
declare
  s text := lower(btrim(coalesce(schedule, '')));
  f text[];
  secs text[];
  p cron.parsed_schedule;
begin
  secs := regexp_match(s, '^([0-9]+) *seconds?$');
  if secs is not null then
    if secs[1]::numeric between 1 and 59 then
      p.seconds := secs[1]::integer;
      return p;
    end if;
    raise exception 'invalid schedule: %', schedule using errcode = '22023', hint = 'An interval is 1 to 59 seconds; use a five-field schedule for longer ones.';
  end if;
  s := case s when '@yearly' then '0 0 1 1 *' when '@annually' then '0 0 1 1 *' when '@monthly' then '0 0 1 * *'
              when '@weekly' then '0 0 * * 0' when '@daily' then '0 0 * * *' when '@midnight' then '0 0 * * *'
              when '@hourly' then '0 * * * *' else s end;
  if s = '@reboot' then
    raise exception 'invalid schedule: %', schedule using errcode = '22023', hint = 'pgbase does not run jobs at start (@reboot); schedule them in time.';
  end if;
  f := regexp_split_to_array(s, '\s+');
  if cardinality(f) <> 5 then
    raise exception 'invalid schedule: %', schedule using errcode = '22023', hint = 'Five fields (minute hour day-of-month month day-of-week), or ''N seconds''.';
  end if;
  p.minutes := cron.parse_field(f[1], 0, 59);
  p.hours := cron.parse_field(f[2], 0, 23);
  p.last_day := f[3] = '$' or f[3] like '%,$' or f[3] like '$,%' or f[3] like '%,$,%';
  p.days := case when f[3] = '$' then '{}'::integer[]
                 else cron.parse_field(array_to_string(array_remove(string_to_array(f[3], ','), '$'), ','), 1, 31) end;
  p.months := cron.parse_field(f[4], 1, 12, array['jan','feb','mar','apr','may','jun','jul','aug','sep','oct','nov','dec']);
  p.weekdays := cron.parse_field(f[5], 0, 7, array['sun','mon','tue','wed','thu','fri','sat']);
  p.days_any := f[3] ~ '^\*(/1)?$';
  p.weekdays_any := f[5] ~ '^\*(/1)?$';
  if p.minutes is null or p.hours is null or p.days is null or p.months is null or p.weekdays is null then
    raise exception 'invalid schedule: %', schedule using errcode = '22023';
  end if;
  return p;
end
$$;

-- The first time after `after` that a parsed schedule names (UTC), within eight years.
create or replace function cron.next_run_after(p cron.parsed_schedule, after timestamptz) returns timestamptz
language plpgsql immutable
set search_path = ''
as $$
declare
  start timestamp := date_trunc('minute', after at time zone 'UTC') + interval '1 minute';
  d date := start::date;
  h integer;
  mi integer;
  day_ok boolean;
  dom_ok boolean;
  dow_ok boolean;
begin
  if p.seconds is not null then
    return to_timestamp((floor(extract(epoch from after) / p.seconds) + 1) * p.seconds);
  end if;
  for i in 0 .. 366 * 8 loop
    if extract(month from d)::integer = any (p.months) then
      dom_ok := extract(day from d)::integer = any (p.days)
        or (p.last_day and d = (date_trunc('month', d) + interval '1 month - 1 day')::date);
      dow_ok := extract(dow from d)::integer = any (p.weekdays);
      -- As cron: when both day fields are restricted, either one will do.
      day_ok := case when p.days_any and p.weekdays_any then true
                     when p.days_any then dow_ok
                     when p.weekdays_any then dom_ok
                     else dom_ok or dow_ok end;
      if day_ok then
        foreach h in array p.hours loop
          continue when d = start::date and h < extract(hour from start);
          foreach mi in array p.minutes loop
            if d + make_time(h, mi, 0) >= start then
              return (d + make_time(h, mi, 0)) at time zone 'UTC';
            end if;
          end loop;
        end loop;
      end if;
    end if;
    d := d + 1;
  end loop;
  return null;
end
$$;

-- The functions jobs run through, one per role, owned by it (see the top).
create schema if not exists cron_exec;
revoke all on schema cron_exec from public;
grant usage, create on schema cron_exec to public;
comment on schema cron_exec is 'One function per role that schedules cron jobs, owned by it: its jobs run through it (sql/0121)';

create or replace function cron.executor_name(role_name text) returns text
language sql stable set search_path = ''
as $$ select 'cron_exec.' || quote_ident('run_as_' || r.oid) from pg_catalog.pg_roles r where r.rolname = role_name $$;

-- Runs as the scheduling role (a trigger, not security definer): makes its executor once.
create or replace function cron.check_job() returns trigger
language plpgsql
set search_path = ''
as $$
declare
  executor text;
begin
  perform cron.parse_schedule(new.schedule);
  if new.database <> current_database() then
    raise exception 'pgbase runs cron jobs in its own database (%), not in %', current_database(), new.database using errcode = '22023';
  end if;
  if not exists (select from pg_catalog.pg_roles where rolname = new.username) then
    raise exception 'role "%" does not exist', new.username using errcode = '42704';
  end if;
  if not pg_catalog.pg_has_role(current_user, new.username, 'MEMBER') then
    raise exception 'permission denied to schedule a job as %', new.username using errcode = '42501';
  end if;
  executor := cron.executor_name(new.username);
  if to_regprocedure(executor || '(text)') is null then
    execute format($f$create function %s(command text) returns text
        language plpgsql security definer set search_path = "$user", public, extensions
        as $body$ declare n bigint; begin execute command; get diagnostics n = row_count; return n || case when n = 1 then ' row' else ' rows' end; end $body$ $f$, executor);
    execute format('revoke all on function %s(text) from public', executor);
    execute format('grant execute on function %s(text) to %s', executor, (select nspowner::regrole::text from pg_catalog.pg_namespace where nspname = 'cron'));
    if new.username <> current_user then
      execute format('alter function %s(text) owner to %I', executor, new.username);
    end if;
  end if;
  return new;
end
$$;

create trigger check_job before insert or update on cron.job for each row execute function cron.check_job();

-- The job's next run, kept by the platform (security definer: next_runs is no role's to write).
create or replace function cron.plan_job() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  parsed cron.parsed_schedule := cron.parse_schedule(new.schedule);
begin
  insert into cron.next_runs (jobid, parsed, next_run)
  values (new.jobid, parsed, cron.next_run_after(parsed, clock_timestamp()))
  on conflict (jobid) do update set parsed = excluded.parsed, next_run = excluded.next_run;
  return null;
end
$$;

create trigger plan_job after insert or update of schedule on cron.job for each row execute function cron.plan_job();

create or replace function cron.schedule(job_name text, schedule text, command text) returns bigint
language sql volatile set search_path = ''
as $$
  insert into cron.job (jobname, schedule, command) values (job_name, schedule, command)
  on conflict on constraint jobname_username_uniq do update set schedule = excluded.schedule, command = excluded.command
  returning jobid
$$;

create or replace function cron.schedule(schedule text, command text) returns bigint
language sql volatile set search_path = ''
as $$ insert into cron.job (schedule, command) values (schedule, command) returning jobid $$;

create or replace function cron.schedule_in_database(job_name text, schedule text, command text, database text, username text default null, active boolean default true) returns bigint
language sql volatile set search_path = ''
as $$
  insert into cron.job (jobname, schedule, command, database, username, active)
  values (job_name, schedule, command, database, coalesce(username, current_user), active)
  on conflict on constraint jobname_username_uniq do update
    set schedule = excluded.schedule, command = excluded.command, database = excluded.database, active = excluded.active
  returning jobid
$$;

create or replace function cron.unschedule(job_id bigint) returns boolean
language plpgsql volatile set search_path = ''
as $$
begin
  delete from cron.job where jobid = job_id;
  if not found then
    raise exception 'could not find valid entry for job %', job_id using errcode = '22023';
  end if;
  return true;
end
$$;

create or replace function cron.unschedule(job_name text) returns boolean
language plpgsql volatile set search_path = ''
as $$
begin
  delete from cron.job where jobname = job_name and username = current_user;
  if not found then
    raise exception 'could not find valid entry for job ''%''', job_name using errcode = '22023';
  end if;
  return true;
end
$$;

create or replace function cron.alter_job(job_id bigint, schedule text default null, command text default null, database text default null, username text default null, active boolean default null) returns void
language plpgsql volatile set search_path = ''
as $$
begin
  update cron.job j set schedule = coalesce(alter_job.schedule, j.schedule), command = coalesce(alter_job.command, j.command),
      database = coalesce(alter_job.database, j.database), username = coalesce(alter_job.username, j.username),
      active = coalesce(alter_job.active, j.active)
    where j.jobid = job_id;
  if not found then
    raise exception 'could not find valid entry for job %', job_id using errcode = '22023';
  end if;
end
$$;

