-- AI surface: a run inside a run is part of its parent (issue 46, item 2).
--
-- An agent or orchestration block of a workflow runs a child run: an agent
-- run (or an orchestration run) of its own, with its session, steps and
-- events, linked to the workflow execution and the block that started it.
-- Before this, a child in flight when its process died was resumed twice:
-- by the sweep (it has a caller) and again, as a new run with new
-- idempotency keys, by the workflow's resume. Now the parent owns it: the
-- sweep leaves a child of a running execution alone, the execution's resume
-- takes the child back (ai.claim_child_run) and carries it on from its last
-- stored step, and anything that would resume the child (an approval's
-- answer, its deadline) resumes its parent instead. An inline agent block
-- (a model and a prompt, no agent row) stores its steps in
-- ai.workflow_block_steps, so its resume goes on from them too.
--
-- Contents
--   1. parent_execution_id, parent_block on ai.agent_runs and ai.orchestration_runs
--   2. ai.begin_run                  restated: may name its parent (named arguments)
--   3. ai.queue_execution_resume     the parent's resume job, due at a time
--      ai.queue_run_resume           restated: a child's resume is its parent's
--   4. ai.claim_child_run            the parent's process takes its block's child back
--   5. ai.resume_abandoned_agent_runs, ai.fail_abandoned_agent_runs
--                                    restated: a child of a running execution is its parent's
--   6. ai.workflow_block_steps, ai.record_block_step
--                                    an inline agent block's steps

-- 1 ---------------------------------------------------------------------------
-- parent_block: the block's place in the run (its id, or '<split>[i]/<id>'
-- inside a split's item), so each item's block has a child of its own.
alter table ai.agent_runs add column parent_execution_id uuid references ai.workflow_executions on delete set null,
  add column parent_block text check (length(parent_block) between 1 and 600);
alter table ai.orchestration_runs add column parent_execution_id uuid references ai.workflow_executions on delete set null,
  add column parent_block text check (length(parent_block) between 1 and 600);
create index agent_runs_parent on ai.agent_runs (parent_execution_id, parent_block, started_at desc) where parent_execution_id is not null;
create index orchestration_runs_parent on ai.orchestration_runs (parent_execution_id, parent_block, started_at desc) where parent_execution_id is not null;

-- 2 ---------------------------------------------------------------------------
-- As before (sql/0067), and a block's child names its parent: only a
-- running execution acting as the same caller (its user, or the project for
-- the service role), checked as the definer so a user cannot adopt a run
-- into someone else's execution (and hide it from the sweep).
create or replace function ai.link_child_run(p_kind text, p_run uuid, p_execution uuid, p_block text) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if not exists (select 1 from ai.workflow_executions e where e.id = p_execution and e.status = 'running'
                   and e.user_id is not distinct from auth.uid()) then
    raise exception 'the parent execution is not running as this caller' using errcode = '42501';
  end if;
  if p_kind = 'agent' then
    update ai.agent_runs set parent_execution_id = p_execution, parent_block = p_block where id = p_run;
  else
    update ai.orchestration_runs set parent_execution_id = p_execution, parent_block = p_block where id = p_run;
  end if;
end
$$;
revoke execute on function ai.link_child_run(text, uuid, uuid, text) from public;
grant execute on function ai.link_child_run(text, uuid, uuid, text) to authenticated, service_role;

drop function ai.begin_run(text, uuid, uuid, uuid, text, text, uuid, json);
create function ai.begin_run(p_kind text, p_run uuid, p_owner uuid, p_session uuid, p_title text, p_input text, p_runner uuid, p_context json,
                             p_parent_execution uuid default null, p_parent_block text default null)
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  v_session uuid := p_session;
begin
  if p_kind = 'agent' then
    if v_session is null then
      insert into ai.sessions (agent_id, title) values (p_owner, p_title) returning id into v_session;
    end if;
    insert into ai.agent_runs (id, session_id, agent_id, input, runner, context) values (p_run, v_session, p_owner, p_input, p_runner, p_context);
    insert into ai.session_messages (session_id, run_id, role, content) values (v_session, p_run, 'user', p_input);
  else
    if v_session is null then
      insert into ai.sessions (orchestration_id, title) values (p_owner, p_title) returning id into v_session;
    end if;
    insert into ai.orchestration_runs (id, orchestration_id, session_id, input, runner, context) values (p_run, p_owner, v_session, p_input, p_runner, p_context);
    insert into ai.session_messages (session_id, orchestration_run_id, role, content) values (v_session, p_run, 'user', p_input);
  end if;
  if p_parent_execution is not null then
    perform ai.link_child_run(p_kind, p_run, p_parent_execution, p_parent_block);
  end if;
  return v_session;
end
$$;
revoke execute on function ai.begin_run(text, uuid, uuid, uuid, text, text, uuid, json, uuid, text) from public;
grant execute on function ai.begin_run(text, uuid, uuid, uuid, text, text, uuid, json, uuid, text) to authenticated, service_role;

-- 3 ---------------------------------------------------------------------------
-- Whether a run's parent execution (if it has one) is still running: then the parent owns it.
create or replace function ai.parent_is_running(p_execution uuid) returns boolean
language sql stable
security definer
set search_path = ''
as $$ select p_execution is not null and exists (select 1 from ai.workflow_executions e where e.id = p_execution and e.status = 'running') $$;
revoke execute on function ai.parent_is_running(uuid) from public;

-- One resume job per execution (its key); a later call moves it, never later
-- than a time already asked for while it waits unlocked.
create or replace function ai.queue_execution_resume(p_execution uuid, p_at timestamptz) returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_at timestamptz := p_at;
begin
  select least(j.run_at, p_at) into v_at from graphile_worker.jobs j
   where j.key = 'ai-workflow-resume:' || p_execution and j.locked_at is null;
  perform graphile_worker.add_job('ai_workflow_resume', json_build_object('execution_id', p_execution), run_at := coalesce(v_at, p_at),
    job_key := 'ai-workflow-resume:' || p_execution, job_key_mode := 'replace', max_attempts := 5);
end
$$;
revoke execute on function ai.queue_execution_resume(uuid, timestamptz) from public;
grant execute on function ai.queue_execution_resume(uuid, timestamptz) to service_role;

-- A child's resume (its approval answered, its deadline come) is its
-- parent's: the parent's process carries the child on inside its block.
create or replace function ai.queue_run_resume(p_kind text, p_run uuid, p_at timestamptz, p_begin boolean default false) returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_parent uuid;
begin
  if p_kind = 'agent' then
    select r.parent_execution_id into v_parent from ai.agent_runs r where r.id = p_run;
  else
    select r.parent_execution_id into v_parent from ai.orchestration_runs r where r.id = p_run;
  end if;
  if ai.parent_is_running(v_parent) then
    perform ai.queue_execution_resume(v_parent, p_at);
    return;
  end if;
  perform graphile_worker.add_job('ai_run_resume', json_build_object('kind', p_kind, 'run_id', p_run, 'begin', p_begin), run_at := p_at,
    job_key := 'ai-run-resume:' || p_run, job_key_mode := 'replace', max_attempts := 5);
end
$$;

-- 4 ---------------------------------------------------------------------------
-- The process carrying an execution takes its block's latest child back:
-- answers the child's id and status (none: the block starts one). A child
-- still running (or waiting on an approval) is then carried by p_runner; it
-- counts a resume only when it changes hands. Only the execution's own
-- runner may take its children.
create or replace function ai.claim_child_run(p_kind text, p_execution uuid, p_block text, p_runner uuid)
returns table (run_id uuid, status text)
language plpgsql
security definer
set search_path = ''
as $$
begin
  if not exists (select 1 from ai.workflow_executions e where e.id = p_execution and e.runner = p_runner and e.status = 'running') then
    return;
  end if;
  if p_kind = 'agent' then
    select r.id, r.status into run_id, status from ai.agent_runs r
     where r.parent_execution_id = p_execution and r.parent_block = p_block order by r.started_at desc limit 1;
    if found and status in ('running', 'waiting_approval') then
      update ai.agent_runs r set runner = p_runner, resumes = r.resumes + (r.runner is distinct from p_runner)::int where r.id = run_id;
    end if;
  else
    select r.id, r.status into run_id, status from ai.orchestration_runs r
     where r.parent_execution_id = p_execution and r.parent_block = p_block order by r.started_at desc limit 1;
    if found and status = 'running' then
      update ai.orchestration_runs r set runner = p_runner, resumes = r.resumes + (r.runner is distinct from p_runner)::int where r.id = run_id;
    end if;
  end if;
  if run_id is not null then return next; end if;
end
$$;
revoke execute on function ai.claim_child_run(text, uuid, text, uuid) from public;
grant execute on function ai.claim_child_run(text, uuid, text, uuid) to service_role;

-- 5 ---------------------------------------------------------------------------
-- As before (sql/0067, 0075: only what cannot resume is failed), except for
-- a block's child: only its parent execution resumes it, and it is failed
-- here once its parent is no longer running (ai.parent_is_running).

create or replace function ai.resume_abandoned_agent_runs() returns int
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_agents int;
  v_teams int;
begin
  with orphaned as (
    update ai.agent_runs r set runner = null, resumes = r.resumes + 1
     where r.status in ('running', 'waiting_approval') and r.runner is not null
       and r.caller is not null and r.resumes < 3 and r.parent_execution_id is null
       and not exists (select 1 from realtime.nodes n where n.id = r.runner)
    returning r.id
  ), queued as (
    select ai.queue_run_resume('agent', o.id, now()) from orphaned o
  )
  select count(*) into v_agents from queued;
  with orphaned as (
    update ai.orchestration_runs r set runner = null, resumes = r.resumes + 1
     where r.status = 'running' and r.runner is not null
       and r.caller is not null and r.resumes < 3 and r.parent_execution_id is null
       and not exists (select 1 from realtime.nodes n where n.id = r.runner)
    returning r.id
  ), queued as (
    select ai.queue_run_resume('orchestration', o.id, now()) from orphaned o
  )
  select count(*) into v_teams from queued;
  return v_agents + v_teams;
end
$$;

create or replace function ai.fail_abandoned_agent_runs() returns int
language plpgsql
security definer
set search_path = ''
as $$
declare
  agents int;
  teams int;
begin
  with gone as (
    update ai.agent_runs r set status = 'failed', error = 'The server running this agent run stopped before it finished', finished_at = now()
     where r.status in ('running', 'waiting_approval') and r.runner is not null
       and case when r.parent_execution_id is null then r.caller is null or r.resumes >= 3 else not ai.parent_is_running(r.parent_execution_id) end
       and not exists (select 1 from realtime.nodes n where n.id = r.runner)
    returning r.id
  ), approvals as (
    update ai.agent_run_approvals a set status = 'timed_out', decided_at = now()
      from gone where a.run_id = gone.id and a.status = 'pending'
    returning a.id
  )
  select count(*) into agents from gone;
  with gone as (
    update ai.orchestration_runs r set status = 'failed', error = 'The server running this orchestration run stopped before it finished', finished_at = now()
     where r.status = 'running' and r.runner is not null
       and case when r.parent_execution_id is null then r.caller is null or r.resumes >= 3 else not ai.parent_is_running(r.parent_execution_id) end
       and not exists (select 1 from realtime.nodes n where n.id = r.runner)
    returning r.id
  ), delegations as (
    update ai.orchestration_delegations d set status = 'failed', error = 'The orchestration run stopped before this delegation finished', finished_at = now()
      from gone where d.run_id = gone.id and d.status = 'running'
    returning d.id
  )
  select count(*) into teams from gone;
  return agents + teams;
end
$$;

-- 6 ---------------------------------------------------------------------------
-- An inline agent block's steps (a model call's answer, a tool call's
-- result), stored as they complete while p_runner carries the execution;
-- read back when the execution resumes with the block in flight.
create table ai.workflow_block_steps (
  id bigint generated always as identity primary key,
  execution_id uuid not null references ai.workflow_executions on delete cascade,
  block_path text not null check (length(block_path) between 1 and 600),
  role text not null check (role in ('assistant', 'tool')),
  content text,
  tool_calls jsonb check (tool_calls is null or jsonb_typeof(tool_calls) = 'array'),
  tool_call_id text,
  name text,
  is_error boolean not null default false,
  latency_ms int,
  created_at timestamptz not null default now()
);
create index workflow_block_steps_block on ai.workflow_block_steps (execution_id, block_path, id);
alter table ai.workflow_block_steps enable row level security;
-- A user reads the steps of the executions they can read (that table's policy decides).
create policy workflow_block_steps_read on ai.workflow_block_steps for select to authenticated
  using (exists (select 1 from ai.workflow_executions e where e.id = execution_id));
grant select on ai.workflow_block_steps to authenticated;
grant select, insert, delete on ai.workflow_block_steps to service_role;

create or replace function ai.record_block_step(p_execution uuid, p_runner uuid, p_block text, p_message jsonb)
returns table (stored boolean, cancelled boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_status text;
begin
  v_status := ai.run_status_for_step('workflow', p_execution, p_runner);
  stored := coalesce(v_status = 'running', false);
  cancelled := coalesce(v_status = 'cancelled', false);
  if stored then
    insert into ai.workflow_block_steps (execution_id, block_path, role, content, tool_calls, tool_call_id, name, is_error, latency_ms)
    values (p_execution, p_block, p_message ->> 'role', p_message ->> 'content', nullif(p_message -> 'tool_calls', 'null'::jsonb),
            p_message ->> 'tool_call_id', p_message ->> 'name', coalesce((p_message ->> 'is_error')::boolean, false), (p_message ->> 'latency_ms')::int);
  end if;
  return next;
end
$$;
revoke execute on function ai.record_block_step(uuid, uuid, text, jsonb) from public;
grant execute on function ai.record_block_step(uuid, uuid, text, jsonb) to service_role;
