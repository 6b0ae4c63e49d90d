-- AI surface: an agent or orchestration run resumes from its checkpoints
-- when the process running it dies (issue 29), instead of being failed.
--
-- A run's checkpoints are what it already stores: its messages, one per step
-- and per tool result (ai.session_messages), its model calls in the usage
-- ledger, its events (ai.run_events). What a resume needs beside them is kept
-- on the run here:
--   caller   the role and verified claims the run acts as, taken from the
--            request's own settings by a trigger (never from an argument or
--            a column a user writes: a run cannot be made to act as someone else)
--   context  the history the model was sent before the run's message (a
--            session summary and the messages after it), as it was: a later
--            compaction cannot change what the resumed run's model reads
--   resumes  how many times it was taken up again
--
-- The sweep (every AI_RUN_SWEEP_INTERVAL_MS) calls
-- ai.resume_abandoned_agent_runs first: a running agent or orchestration run
-- of a dead process that has its caller and fewer than 3 resumes is handed to
-- a job (ai_run_resume, any worker); a pending approval stays pending (the
-- resumed run waits on the same one), a running delegation stays running (the
-- resumed coordinator runs it again under the same id).
-- ai.fail_abandoned_agent_runs then fails what is left: runs started before
-- this migration, and runs that died 3 times. A run begins in one statement
-- (ai.begin_run: session, run, user message). The job takes the run with
-- ai.claim_run (one guarded statement: one process at a time carries it).

alter table ai.agent_runs add column caller jsonb;
-- json, not jsonb: the text is kept as it was sent, key order included.
alter table ai.agent_runs add column context json;
alter table ai.agent_runs add column resumes int not null default 0;
alter table ai.orchestration_runs add column caller jsonb;
alter table ai.orchestration_runs add column context json;
alter table ai.orchestration_runs add column resumes int not null default 0;

-- Who a run acts as is the request that starts it, whatever the insert says:
-- a user cannot even name the column (insert is granted per column), and
-- this trigger fills it from the request's verified settings. A run started
-- outside an API role (a migration, a test as the owner) cannot resume.
create or replace function ai.run_caller() returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_role text := current_setting('role', true);
begin
  new.caller := case when v_role in ('anon', 'authenticated', 'service_role')
    then jsonb_build_object('role', v_role, 'claims', coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb) end;
  return new;
end
$$;
create trigger agent_runs_caller before insert on ai.agent_runs for each row execute function ai.run_caller();
create trigger orchestration_runs_caller before insert on ai.orchestration_runs for each row execute function ai.run_caller();

revoke insert on ai.agent_runs from authenticated;
grant insert (id, session_id, agent_id, input, runner, context) on ai.agent_runs to authenticated;
revoke insert on ai.orchestration_runs from authenticated;
grant insert (id, orchestration_id, session_id, input, runner, context) on ai.orchestration_runs to authenticated;

-- A run begins in one statement, as its caller (invoker: grants and row
-- security decide): its session when it has none yet, the run with the
-- history its model reads, the user's message. p_kind: agent | orchestration
-- (p_owner is the agent or the orchestration).
create or replace function ai.begin_run(p_kind text, p_run uuid, p_owner uuid, p_session uuid, p_title text, p_input text, p_runner uuid, p_context json)
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
  return v_session;
end
$$;
revoke execute on function ai.begin_run(text, uuid, uuid, uuid, text, text, uuid, json) from public;
grant execute on function ai.begin_run(text, uuid, uuid, uuid, text, text, uuid, json) to authenticated, service_role;

-- Runs of dead processes that can resume: handed to a job, once (the job key).
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
       and r.caller is not null and r.resumes < 3
       and not exists (select 1 from realtime.nodes n where n.id = r.runner)
    returning r.id
  ), queued as (
    select ai.queue_run_resume('agent', o.id, now()) from orphaned o
  )
  select count(*) into v_agents from queued;
  with orphaned as (
    update ai.orchestration_runs r set runner = null, resumes = r.resumes + 1
     where r.status = 'running' and r.runner is not null
       and r.caller is not null and r.resumes < 3
       and not exists (select 1 from realtime.nodes n where n.id = r.runner)
    returning r.id
  ), queued as (
    select ai.queue_run_resume('orchestration', o.id, now()) from orphaned o
  )
  select count(*) into v_teams from queued;
  return v_agents + v_teams;
end
$$;
revoke execute on function ai.resume_abandoned_agent_runs() from public;
grant execute on function ai.resume_abandoned_agent_runs() to service_role;

-- The resume job of a run, due at p_at; one per run (a later call moves it).
create or replace function ai.queue_run_resume(p_kind text, p_run uuid, p_at timestamptz) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform graphile_worker.add_job('ai_run_resume', json_build_object('kind', p_kind, 'run_id', p_run), run_at := p_at,
    job_key := 'ai-run-resume:' || p_run, job_key_mode := 'replace', max_attempts := 5);
end
$$;
revoke execute on function ai.queue_run_resume(text, uuid, timestamptz) from public;

-- A delegation a coordinator's tool call starts: a new row, or (a resumed
-- run repeating the call that was in flight) the one still running under
-- that call, which runs again under its id. Its id.
create or replace function ai.start_delegation(p_run uuid, p_entity uuid, p_agent uuid, p_agent_name text, p_tool_call_id text, p_task text) returns uuid
language plpgsql
set search_path = ''
as $$
declare
  v_id uuid;
begin
  select d.id into v_id from ai.orchestration_delegations d
   where d.run_id = p_run and d.tool_call_id = p_tool_call_id and d.status = 'running'
   order by d.started_at desc limit 1;
  if v_id is null then
    insert into ai.orchestration_delegations (run_id, entity_id, agent_id, agent_name, tool_call_id, task)
    values (p_run, p_entity, p_agent, p_agent_name, p_tool_call_id, p_task) returning id into v_id;
  end if;
  return v_id;
end
$$;
revoke execute on function ai.start_delegation(uuid, uuid, uuid, text, text, text) from public;
grant execute on function ai.start_delegation(uuid, uuid, uuid, text, text, text) to service_role;

-- The resuming process takes the run: true once, for one process. A run
-- waiting on an approval stays waiting (the resumed run reads the answer).
create or replace function ai.claim_run(p_kind text, p_run uuid, p_runner uuid) returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_kind = 'agent' then
    update ai.agent_runs r set runner = p_runner
     where r.id = p_run and r.status in ('running', 'waiting_approval') and r.runner is null and r.caller is not null;
  else
    update ai.orchestration_runs r set runner = p_runner
     where r.id = p_run and r.status = 'running' and r.runner is null and r.caller is not null;
  end if;
  return found;
end
$$;
revoke execute on function ai.claim_run(text, uuid, uuid) from public;
grant execute on function ai.claim_run(text, uuid, uuid) to service_role;
