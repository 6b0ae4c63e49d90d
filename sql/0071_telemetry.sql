-- Telemetry (server/telemetry/): what /metrics reads from the database, and
-- the trace a run, an execution or a source was started in, so the worker
-- that carries it on later (a resume, an async run, an extraction) joins the
-- same trace.
--
--   platform.metrics_snapshot()   jobs waiting per task (and how long the oldest due one has
--                                 waited); runs not yet ended, by kind and status
--   ai.capture_traceparent()      trigger: a new run, execution or source keeps the W3C
--                                 traceparent of the request that made it (request.headers,
--                                 set by the server's one funnel to SQL while tracing is on)
--   traceparent columns           ai.agent_runs, ai.orchestration_runs, ai.workflow_executions, ai.sources

-- plpgsql: graphile_worker's schema is installed after the migrations, on first boot.
create or replace function platform.metrics_snapshot() returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  jobs jsonb;
  runs jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('task', t.task, 'queued', t.queued, 'oldest_due_s', t.oldest_due_s) order by t.task), '[]')
    into jobs
    from (select j.task_identifier as task, count(*) as queued,
                 extract(epoch from now() - min(j.run_at) filter (where j.run_at <= now()))::float8 as oldest_due_s
            from graphile_worker.jobs j
           where j.locked_at is null and j.attempts < j.max_attempts
           group by j.task_identifier) t;
  -- Only runs that have not ended: each status here has a partial index or is rare.
  select coalesce(jsonb_agg(jsonb_build_object('kind', r.kind, 'status', r.status, 'n', r.n)), '[]')
    into runs
    from (select 'agent' as kind, status, count(*) as n from ai.agent_runs where status in ('running', 'waiting_approval') group by status
          union all
          select 'orchestration', status, count(*) from ai.orchestration_runs where status = 'running' group by status
          union all
          select 'workflow', status, count(*) from ai.workflow_executions where status in ('queued', 'running') group by status) r;
  return jsonb_build_object('jobs', jobs, 'runs', runs);
end
$$;
revoke execute on function platform.metrics_snapshot() from public;

alter table ai.agent_runs add column traceparent text;
alter table ai.orchestration_runs add column traceparent text;
alter table ai.workflow_executions add column traceparent text;
alter table ai.sources add column traceparent text;

-- The request's traceparent, when it is a well-formed W3C one; a caller cannot set the column itself.
create or replace function ai.capture_traceparent() returns trigger
language plpgsql
set search_path = ''
as $$
declare
  given text := nullif(current_setting('request.headers', true), '')::json ->> 'traceparent';
begin
  new.traceparent := case when given ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' then given end;
  return new;
end
$$;

create trigger capture_traceparent before insert on ai.agent_runs for each row execute function ai.capture_traceparent();
create trigger capture_traceparent before insert on ai.orchestration_runs for each row execute function ai.capture_traceparent();
create trigger capture_traceparent before insert on ai.workflow_executions for each row execute function ai.capture_traceparent();
create trigger capture_traceparent before insert on ai.sources for each row execute function ai.capture_traceparent();
