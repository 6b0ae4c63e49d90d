-- Runs that a client can come back to (issue 29, items 3 and 5): every
-- event an agent, orchestration or workflow run streams is stored, numbered
-- within its run, before any client sees it; a client that lost its stream
-- reads what it missed from any replica and follows the rest (NOTIFY
-- ai_runs 'event:<run id>' after commit). Leaving no longer stops a run: an
-- explicit cancel does, on any replica (NOTIFY ai_runs 'cancel:<run id>'
-- reaches the process running it, which aborts at once, its in-flight model
-- call included).
--
-- Contents
--   1. ai.run_events             the numbered events, readable as their run is
--   2. ai.append_run_events      appends a batch in order (the server, as the service role)
--   3. cancelled runs            agent and orchestration runs may end `cancelled`
--   4. ai.cancel_agent_run, ai.cancel_orchestration_run, ai.cancel_execution (restated: it tells the runner now)

-- 1 ---------------------------------------------------------------------------
-- One run column per kind, so deleting a run (or its session) deletes its events.
create table ai.run_events (
  agent_run_id uuid references ai.agent_runs on delete cascade,
  orchestration_run_id uuid references ai.orchestration_runs on delete cascade,
  execution_id uuid references ai.workflow_executions on delete cascade,
  run_id uuid not null generated always as (coalesce(agent_run_id, orchestration_run_id, execution_id)) stored,
  seq int not null check (seq > 0),
  event jsonb not null,
  created_at timestamptz not null default now(),
  primary key (run_id, seq),
  check (num_nonnulls(agent_run_id, orchestration_run_id, execution_id) = 1)
);
create index run_events_orchestration on ai.run_events (orchestration_run_id) where orchestration_run_id is not null;
create index run_events_execution on ai.run_events (execution_id) where execution_id is not null;
create index run_events_agent on ai.run_events (agent_run_id) where agent_run_id is not null;
alter table ai.run_events enable row level security;
-- A user reads the events of the runs they can read (the run tables' policies decide).
create policy run_events_read on ai.run_events for select to authenticated using (
  (agent_run_id is not null and exists (select 1 from ai.agent_runs r where r.id = agent_run_id))
  or (orchestration_run_id is not null and exists (select 1 from ai.orchestration_runs r where r.id = orchestration_run_id))
  or (execution_id is not null and exists (select 1 from ai.workflow_executions e where e.id = execution_id)));
grant select on ai.run_events to authenticated, service_role;
grant insert on ai.run_events to service_role;

-- 2 ---------------------------------------------------------------------------
-- Events appended in order, numbered on from the run's last, in one
-- statement and one notice however many (the runner sends what piled up
-- while its previous batch was being stored). One writer per run; the
-- primary key refuses a second writer's duplicate rather than interleaving
-- silently. Answers the first new number.
create or replace function ai.append_run_events(p_kind text, p_run uuid, p_events jsonb) returns int
language plpgsql
set search_path = ''
as $$
declare
  v_base int;
begin
  select coalesce(max(e.seq), 0) into v_base from ai.run_events e where e.run_id = p_run;
  insert into ai.run_events (agent_run_id, orchestration_run_id, execution_id, seq, event)
  select case when p_kind = 'agent' then p_run end, case when p_kind = 'orchestration' then p_run end,
         case when p_kind = 'workflow' then p_run end, v_base + n, event
    from jsonb_array_elements(p_events) with ordinality as x(event, n);
  perform pg_notify('ai_runs', 'event:' || p_run::text);
  return v_base + 1;
end
$$;
revoke execute on function ai.append_run_events(text, uuid, jsonb) from public;
grant execute on function ai.append_run_events(text, uuid, jsonb) to service_role;

-- 3 ---------------------------------------------------------------------------
alter table ai.agent_runs drop constraint agent_runs_status_check;
alter table ai.agent_runs add constraint agent_runs_status_check check (status in ('running', 'waiting_approval', 'completed', 'failed', 'cancelled'));
alter table ai.orchestration_runs drop constraint orchestration_runs_status_check;
alter table ai.orchestration_runs add constraint orchestration_runs_status_check check (status in ('running', 'completed', 'failed', 'cancelled'));

-- 4 ---------------------------------------------------------------------------
-- A run still going ends `cancelled` with its usage so far; the process
-- running it hears of it after commit. False when it had already ended.
-- Called as the service role once the route has checked the caller sees the run.
create or replace function ai.cancel_agent_run(p_run uuid) returns boolean
language plpgsql
set search_path = ''
as $$
begin
  update ai.agent_runs r
     set status = 'cancelled', error = 'The run was cancelled', finished_at = now(), tokens_in = u.tokens_in, tokens_out = u.tokens_out, cost_usd = u.cost_usd
    from ai.usage_totals(p_run) u
   where r.id = p_run and r.status in ('running', 'waiting_approval');
  if found then
    perform pg_notify('ai_runs', 'cancel:' || p_run::text);
  end if;
  return found;
end
$$;
revoke execute on function ai.cancel_agent_run(uuid) from public;
grant execute on function ai.cancel_agent_run(uuid) to service_role;

create or replace function ai.cancel_orchestration_run(p_run uuid) returns boolean
language plpgsql
set search_path = ''
as $$
begin
  update ai.orchestration_runs r
     set status = 'cancelled', error = 'The run was cancelled', finished_at = now(), tokens_in = u.tokens_in, tokens_out = u.tokens_out, cost_usd = u.cost_usd
    from ai.usage_totals(p_run) u
   where r.id = p_run and r.status = 'running';
  if found then
    perform pg_notify('ai_runs', 'cancel:' || p_run::text);
  end if;
  return found;
end
$$;
revoke execute on function ai.cancel_orchestration_run(uuid) from public;
grant execute on function ai.cancel_orchestration_run(uuid) to service_role;

create or replace function ai.cancel_execution(p_id uuid) returns boolean
language plpgsql
set search_path = ''
as $$
begin
  update ai.workflow_executions e set status = 'cancelled', error = 'Cancelled', error_code = 'CANCELLED', finished_at = now()
   where e.id = p_id and e.status in ('queued', 'running');
  if found then
    perform pg_notify('ai_runs', 'cancel:' || p_id::text);
  end if;
  return found;
end
$$;
