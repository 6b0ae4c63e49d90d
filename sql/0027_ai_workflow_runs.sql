-- AI surface: workflow runs and their per-block logs (spec 4.7), with the run
-- status machine as guarded statements.
--
--   1. ai.workflow_executions   one run: who, which version (null: the draft), status, output, usage
--   2. ai.workflow_block_logs   one row per block: input, output, error, timings, attempts
--   3. ai.start_execution       queued -> running
--      ai.finish_execution      running -> succeeded | failed | cancelled
--      ai.cancel_execution      queued | running -> cancelled
--      ai.fail_abandoned_runs   running, on a process that is gone -> failed
--
-- A runner is a server process's node id in realtime.nodes (heartbeat and
-- reaping already live there): a run whose node is gone was abandoned.
--
-- A run belongs to the user who started it (the service role: the project);
-- another user's run is not found.

create table ai.workflow_executions (
  id uuid primary key default gen_random_uuid(),
  workflow_id uuid not null references ai.workflows on delete cascade,
  user_id uuid default auth.uid(),
  version int,
  trigger text not null check (trigger in ('manual', 'stream', 'async', 'webhook')),
  status text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  variables jsonb not null default '{}',
  -- The graph this run runs, as it was when the run was asked for (an async
  -- run waits in the queue while the draft may change).
  graph jsonb,
  output jsonb,
  error text,
  error_code text,
  -- The process running it (its realtime.nodes id), to find runs a crash left behind.
  runner uuid,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index workflow_executions_workflow on ai.workflow_executions (workflow_id, created_at desc);
create index workflow_executions_running on ai.workflow_executions (runner) where status = 'running';
alter table ai.workflow_executions enable row level security;
create policy executions_read on ai.workflow_executions for select to authenticated using (user_id = auth.uid());
create policy executions_insert on ai.workflow_executions for insert to authenticated
  with check (user_id = auth.uid() and exists (select 1 from ai.workflows w where w.id = workflow_id));
grant select, insert on ai.workflow_executions to authenticated, service_role;
grant update on ai.workflow_executions to service_role;

create table ai.workflow_block_logs (
  id bigint generated always as identity primary key,
  execution_id uuid not null references ai.workflow_executions on delete cascade,
  block_id text not null,
  block_type text not null,
  status text not null check (status in ('succeeded', 'failed', 'skipped')),
  input jsonb,
  output jsonb,
  error text,
  attempts int not null default 1,
  logs jsonb not null default '[]',
  started_at timestamptz not null,
  finished_at timestamptz not null
);
create index workflow_block_logs_execution on ai.workflow_block_logs (execution_id, id);
alter table ai.workflow_block_logs enable row level security;
create policy block_logs_read on ai.workflow_block_logs for select to authenticated
  using (exists (select 1 from ai.workflow_executions e where e.id = execution_id));
grant select on ai.workflow_block_logs to authenticated, service_role;
grant insert on ai.workflow_block_logs to service_role;

-- queued -> running, on this runner. False when the run is no longer queued (cancelled first).
create or replace function ai.start_execution(p_id uuid, p_runner uuid) returns boolean
language sql
set search_path = ''
as $$
  with moved as (
    update ai.workflow_executions e set status = 'running', runner = p_runner, started_at = now()
     where e.id = p_id and e.status = 'queued' returning 1)
  select exists (select 1 from moved)
$$;

-- running -> an end state, once. False when it already ended (a cancel won).
create or replace function ai.finish_execution(p_id uuid, p_status text, p_output jsonb, p_error text, p_error_code text) returns boolean
language plpgsql
set search_path = ''
as $$
begin
  if p_status not in ('succeeded', 'failed', 'cancelled') then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'a run ends succeeded, failed or cancelled');
  end if;
  update ai.workflow_executions e set status = p_status, output = p_output, error = p_error, error_code = p_error_code, finished_at = now()
   where e.id = p_id and e.status = 'running';
  return found;
end
$$;

-- queued | running -> cancelled. False when it had already ended.
create or replace function ai.cancel_execution(p_id uuid) returns boolean
language sql
set search_path = ''
as $$
  with moved as (
    update ai.workflow_executions e set status = 'cancelled', error = 'Cancelled', error_code = 'CANCELLED', finished_at = now()
     where e.id = p_id and e.status in ('queued', 'running') returning 1)
  select exists (select 1 from moved)
$$;

-- Runs a process left running when it died (its node reaped from
-- realtime.nodes): failed, so nobody waits on them. Definer: the API roles
-- cannot read realtime.nodes.
create or replace function ai.fail_abandoned_runs() returns int
language plpgsql
security definer
set search_path = ''
as $$
declare
  n int;
begin
  update ai.workflow_executions e set status = 'failed', error = 'The server running this workflow stopped before it finished',
         error_code = 'EXECUTION_FAILED', finished_at = now()
   where e.status = 'running' and not exists (select 1 from realtime.nodes n where n.id = e.runner);
  get diagnostics n = row_count;
  return n;
end
$$;

-- Queues an async run for graphile-worker (task ai_workflow_run, keyed by the
-- run, tried once: a run a crash interrupts is failed, not repeated).
-- Definer: graphile_worker is the server's own schema.
create or replace function ai.enqueue_execution(p_id uuid) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if not exists (select 1 from ai.workflow_executions e where e.id = p_id and e.status = 'queued') then
    perform auth.raise_error(409, 'CONFLICT', 'Only a queued run can be queued');
  end if;
  perform graphile_worker.add_job('ai_workflow_run', json_build_object('execution_id', p_id), job_key := p_id::text, max_attempts := 1);
end
$$;
revoke execute on function ai.enqueue_execution(uuid) from public;
grant execute on function ai.enqueue_execution(uuid) to service_role;

revoke execute on function ai.start_execution(uuid, uuid), ai.finish_execution(uuid, text, jsonb, text, text), ai.cancel_execution(uuid),
  ai.fail_abandoned_runs() from public;
grant execute on function ai.start_execution(uuid, uuid), ai.finish_execution(uuid, text, jsonb, text, text), ai.cancel_execution(uuid),
  ai.fail_abandoned_runs() to service_role;
