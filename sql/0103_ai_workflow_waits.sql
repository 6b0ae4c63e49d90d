-- AI surface: a workflow run that waits holds no process (issue 46, items
-- 3 and 5).
--
-- A `wait` block waits for a duration, until a time, or for an event (a call
-- naming the run: POST …/executions/{id}/events, or the workflow's webhook
-- with the execution's id); an agent block's child run may wait on an
-- approval. Either way the execution parks: its process lets go of it
-- (runner null, status still running), and it is a row here and one
-- resume job (ai_workflow_resume, keyed by the execution) due when the
-- earliest thing it waits on ends. The event, the answer or the time brings
-- the job (any worker, any replica); the resumed run goes on from its
-- settled blocks and the wait block reads how its wait ended. A run waiting
-- a week is these rows and nothing else.
--
-- Contents
--   1. ai.workflow_waits          one wait per block place: what, until when, how it ended
--   2. ai.wait_state              a wait block's one statement: begun once, ended when due
--   3. ai.park_execution          the execution's process lets go; its resume job is due at the earliest end
--   4. ai.deliver_workflow_event  an event ends the waits for it; a parked run is resumed now
--   5. ai.cancel_execution        restated: its waits and child runs end cancelled, its resume job goes
--   6. the wait block type
--   7. ai.execution_timeline       restated: waits, and blocks' child runs, in a run's timeline

-- 1 ---------------------------------------------------------------------------
-- kind: duration and until end at due_at ('elapsed'); event ends when the
-- event comes ('received', with its data) or at due_at, its timeout
-- ('timed_out', then on_timeout says whether the block goes on or fails).
create table ai.workflow_waits (
  id uuid primary key default gen_random_uuid(),
  execution_id uuid not null references ai.workflow_executions on delete cascade,
  block_path text not null check (length(block_path) between 1 and 600),
  kind text not null check (kind in ('duration', 'until', 'event')),
  event text check (length(event) between 1 and 200),
  due_at timestamptz,
  on_timeout text not null default 'continue' check (on_timeout in ('continue', 'fail')),
  status text not null default 'waiting' check (status in ('waiting', 'elapsed', 'received', 'timed_out', 'cancelled')),
  data jsonb,
  created_at timestamptz not null default now(),
  settled_at timestamptz,
  unique (execution_id, block_path),
  check ((kind = 'event') = (event is not null)),
  check (kind = 'event' or due_at is not null)
);
create index workflow_waits_due on ai.workflow_waits (due_at) where status = 'waiting';
create index workflow_waits_event on ai.workflow_waits (execution_id, event) where status = 'waiting';
alter table ai.workflow_waits enable row level security;
create policy workflow_waits_read on ai.workflow_waits for select to authenticated
  using (exists (select 1 from ai.workflow_executions e where e.id = execution_id));
grant select on ai.workflow_waits to authenticated;
grant select, insert, update on ai.workflow_waits to service_role;

-- 2 ---------------------------------------------------------------------------
-- The wait at p_block, begun now unless it was begun before (a resumed run
-- reads the one it had), then ended if its time has come. Only while
-- p_runner carries the execution (none is answered otherwise).
create or replace function ai.wait_state(p_execution uuid, p_runner uuid, p_block text, p_kind text, p_event text, p_due timestamptz, p_on_timeout text)
returns ai.workflow_waits
language plpgsql
set search_path = ''
as $$
declare
  w ai.workflow_waits;
begin
  if ai.run_status_for_step('workflow', p_execution, p_runner) is distinct from 'running' then
    return null;
  end if;
  insert into ai.workflow_waits (execution_id, block_path, kind, event, due_at, on_timeout)
  values (p_execution, p_block, p_kind, p_event, p_due, p_on_timeout)
  on conflict (execution_id, block_path) do nothing;
  update ai.workflow_waits x set status = case when x.kind = 'event' then 'timed_out' else 'elapsed' end, settled_at = now()
   where x.execution_id = p_execution and x.block_path = p_block and x.status = 'waiting' and x.due_at <= now();
  select * into w from ai.workflow_waits x where x.execution_id = p_execution and x.block_path = p_block;
  return w;
end
$$;
revoke execute on function ai.wait_state(uuid, uuid, text, text, text, timestamptz, text) from public;
grant execute on function ai.wait_state(uuid, uuid, text, text, text, timestamptz, text) to service_role;

-- 3 ---------------------------------------------------------------------------
-- The process carrying p_execution lets go of it: only that process, only a
-- running execution. Its resume job is due now when something it waited on
-- has ended meanwhile (an event came, a child's approval was answered),
-- else at the earliest of its waits' ends and its children's approval
-- deadlines (none: only an event brings it back). False: not parked (it
-- was cancelled, or another process has it).
create or replace function ai.park_execution(p_execution uuid, p_runner uuid) returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_due timestamptz;
begin
  update ai.workflow_executions e set runner = null where e.id = p_execution and e.runner = p_runner and e.status = 'running';
  if not found then return false; end if;
  if exists (select 1 from ai.workflow_waits w where w.execution_id = p_execution and w.status in ('received', 'elapsed', 'timed_out'))
     or exists (select 1 from ai.agent_runs r where r.parent_execution_id = p_execution and r.status = 'running') then
    v_due := now();
  else
    select min(t) into v_due from (
      select w.due_at as t from ai.workflow_waits w where w.execution_id = p_execution and w.status = 'waiting'
      union all
      select a.expires_at from ai.agent_run_approvals a join ai.agent_runs r on r.id = a.run_id
       where r.parent_execution_id = p_execution and r.status = 'waiting_approval' and a.status = 'pending') due;
  end if;
  if v_due is not null then
    perform ai.queue_execution_resume(p_execution, v_due);
  end if;
  return true;
end
$$;
revoke execute on function ai.park_execution(uuid, uuid) from public;
grant execute on function ai.park_execution(uuid, uuid) to service_role;

-- 4 ---------------------------------------------------------------------------
-- An event for a running execution: every wait for it ends received with
-- its data; a parked execution is resumed now. The execution's row is
-- locked first, so a park and a delivery at the same moment see each other
-- (one of them queues the resume). Answers how many waits it ended.
create or replace function ai.deliver_workflow_event(p_execution uuid, p_event text, p_data jsonb) returns int
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_runner uuid;
  v_ended int;
begin
  select e.runner into v_runner from ai.workflow_executions e where e.id = p_execution and e.status = 'running' for update;
  if not found then return 0; end if;
  update ai.workflow_waits w set status = 'received', data = coalesce(p_data, 'null'::jsonb), settled_at = now()
   where w.execution_id = p_execution and w.kind = 'event' and w.event = p_event and w.status = 'waiting';
  get diagnostics v_ended = row_count;
  if v_ended > 0 and v_runner is null then
    perform ai.queue_execution_resume(p_execution, now());
  end if;
  return v_ended;
end
$$;
revoke execute on function ai.deliver_workflow_event(uuid, text, jsonb) from public;
grant execute on function ai.deliver_workflow_event(uuid, text, jsonb) to service_role;

-- 5 ---------------------------------------------------------------------------
-- As before (sql/0070), and a parked run's waits end cancelled, its blocks'
-- child runs are cancelled with it, and its resume job is removed: a
-- cancelled week-long wait leaves nothing behind.
create or replace function ai.cancel_execution(p_id uuid) returns boolean
language plpgsql
set search_path = ''
as $$
declare
  v_runner uuid;
begin
  update ai.workflow_executions e set status = 'cancelled', error = 'Cancelled', error_code = 'CANCELLED', finished_at = now()
   where e.id = p_id and e.status in ('queued', 'running')
  returning e.runner into v_runner;
  if not found then return false; end if;
  update ai.workflow_waits w set status = 'cancelled', settled_at = now() where w.execution_id = p_id and w.status = 'waiting';
  -- Its blocks' child runs end with it (sql/0102).
  perform ai.cancel_agent_run(r.id) from ai.agent_runs r where r.parent_execution_id = p_id and r.status in ('running', 'waiting_approval');
  perform ai.cancel_orchestration_run(r.id) from ai.orchestration_runs r where r.parent_execution_id = p_id and r.status = 'running';
  perform ai.drop_execution_resume(p_id);
  if v_runner is null then
    perform ai.append_run_events('workflow', p_id, jsonb_build_array(jsonb_build_object('type', 'error', 'error', 'The run was cancelled', 'execution_id', p_id)));
  end if;
  perform pg_notify('ai_runs', 'cancel:' || p_id::text);
  return true;
end
$$;

-- The resume job of an execution that will not resume (a job already taken
-- by a worker is left to find the run ended).
create or replace function ai.drop_execution_resume(p_id uuid) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform graphile_worker.remove_job('ai-workflow-resume:' || p_id);
end
$$;
revoke execute on function ai.drop_execution_resume(uuid) from public;
grant execute on function ai.drop_execution_resume(uuid) to service_role;

-- The block type, as the graph editor and the validator read it.
insert into ai.block_types (name, label, description, is_trigger, position, config_schema, examples) values
  ('wait', 'Wait', 'Holds the run for a duration, until a time, or until an event naming the run; no process is held meanwhile', false, 11,
   '{"type": "object", "properties": {"seconds": {"type": "number", "minimum": 0}, "until": {"type": "string", "format": "date-time"}, "event": {"type": "string"}, "timeout_seconds": {"type": "number", "minimum": 0}, "on_timeout": {"enum": ["continue", "fail"]}}}',
   '[{"seconds": 86400}, {"until": "2026-12-01T09:00:00Z"}, {"event": "approved", "timeout_seconds": 604800, "on_timeout": "fail"}]');

-- 7 ---------------------------------------------------------------------------
-- A workflow run's timeline (sql/0072) shows its waits and its blocks' child
-- runs: a wait block's node starts when its wait began (the block ran again
-- when the run was taken up) and says what it waited for and how that
-- ended; a wait still waiting is a node of its own; an agent or
-- orchestration block's node holds its child run's timeline (its steps and
-- model calls); a split's item checkpoints are not nodes.
create or replace function ai.execution_timeline(p_execution uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  select ai.timeline_node('workflow run', 'run', jsonb_build_object(
           'start', coalesce(e.started_at, e.created_at),
           'duration_ms', case when e.started_at is not null then round(extract(epoch from coalesce(e.finished_at, now()) - e.started_at) * 1000)::int end,
           'status', e.status, 'error', e.error),
         coalesce((select jsonb_agg(x.node) from (
             select ai.timeline_node('block ' || l.block_id, 'block', jsonb_build_object(
                      'block_id', l.block_id, 'block_type', l.block_type, 'path', l.path, 'status', l.status, 'error', l.error, 'attempts', l.attempts,
                      'start', coalesce(w.created_at, l.started_at),
                      'duration_ms', round(extract(epoch from l.finished_at - coalesce(w.created_at, l.started_at)) * 1000)::int)
                      || case when w.id is null then '{}'::jsonb else jsonb_build_object('waited', jsonb_build_object('kind', w.kind, 'event', w.event, 'until', w.due_at, 'ended', w.status)) end,
                    -- A block's model calls are tagged with its id alone: a split's iterations cannot tell theirs apart, so only top-level blocks show them.
                    case when c.id is not null then jsonb_build_array(ai.conversation_timeline(c.kind, c.id))
                         when l.path = '' then ai.timeline_model_calls(e.id::text, l.block_id) else '[]' end) as node
               from ai.workflow_block_logs l
               left join ai.workflow_waits w on l.block_type = 'wait' and w.execution_id = l.execution_id and w.block_path = l.path || l.block_id
               left join lateral (
                 select k.kind, k.id from (
                   select 'agent'::text as kind, a.id, a.started_at from ai.agent_runs a where a.parent_execution_id = l.execution_id and a.parent_block = l.path || l.block_id
                   union all
                   select 'orchestration', o.id, o.started_at from ai.orchestration_runs o where o.parent_execution_id = l.execution_id and o.parent_block = l.path || l.block_id
                 ) k order by k.started_at desc limit 1
               ) c on l.block_type in ('agent', 'orchestration')
              where l.execution_id = e.id and l.block_type <> 'split_item'
             union all
             select ai.timeline_node('wait ' || w.block_path, 'wait', jsonb_build_object(
                      'path', w.block_path, 'status', 'waiting', 'start', w.created_at,
                      'duration_ms', round(extract(epoch from now() - w.created_at) * 1000)::int,
                      'waited', jsonb_build_object('kind', w.kind, 'event', w.event, 'until', w.due_at, 'ended', null)), '[]')
               from ai.workflow_waits w where w.execution_id = e.id and w.status = 'waiting'
           ) x), '[]'))
    from ai.workflow_executions e where e.id = p_execution
$$;
