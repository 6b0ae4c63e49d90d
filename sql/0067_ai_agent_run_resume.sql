-- AI surface: an agent run resumes from its checkpoints when the process
-- running it dies (issue 29), instead of being failed.
--
-- A run's checkpoints are what it already stores: its messages, one per step
-- and per tool result (ai.session_messages), its model calls in the usage
-- ledger, its events (ai.run_events). What a resume needs beside them is kept
-- on the run here:
--   caller   the role and verified claims the run acts as, taken from the
--            request's own settings by ai.checkpoint_agent_run_start (never
--            from an argument: a run cannot be made to act as someone else)
--   context  the history the model was sent before the run's message (a
--            session summary and the messages after it), as it was: a later
--            compaction cannot change what the resumed run's model reads
--   resumes  how many times it was taken up again
--
-- The sweep (every AI_RUN_SWEEP_INTERVAL_MS) calls
-- ai.resume_abandoned_agent_runs first: a running run of a dead process that
-- has its checkpoint and fewer than 3 resumes is handed to a job
-- (ai_agent_run_resume, any worker); a pending approval stays pending (the
-- resumed run waits on the same one). ai.fail_abandoned_agent_runs then fails what is
-- left: runs started before this migration, and runs that died 3 times.
-- The job takes the run with ai.claim_agent_run (one guarded statement: a run
-- is carried on by one process at a time).

alter table ai.agent_runs add column caller jsonb;
-- json, not jsonb: the text is kept as it was sent, key order included.
alter table ai.agent_runs add column context json;
alter table ai.agent_runs add column resumes int not null default 0;

-- A user starts runs but never writes what a resume acts on: insert is per column.
revoke insert on ai.agent_runs from authenticated;
grant insert (id, session_id, agent_id, input, runner) on ai.agent_runs to authenticated;

-- Once per run, as its caller: who it acts as (from the request's verified
-- settings) and the history its model reads. A service-role run, or the
-- session owner's own.
create or replace function ai.checkpoint_agent_run_start(p_run uuid, p_context json) returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_role text := current_setting('role');
begin
  update ai.agent_runs r
     set caller = jsonb_build_object('role', v_role, 'claims', coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb),
         context = p_context
   where r.id = p_run and r.status = 'running' and r.caller is null
     and (v_role = 'service_role' or exists (select 1 from ai.sessions s where s.id = r.session_id and ai.owns(s.owner_id)));
  return found;
end
$$;
revoke execute on function ai.checkpoint_agent_run_start(uuid, json) from public;
grant execute on function ai.checkpoint_agent_run_start(uuid, json) to authenticated, service_role;

-- Runs of dead processes that can resume: handed to a job, once (the job key).
create or replace function ai.resume_abandoned_agent_runs() returns int
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count int;
begin
  with orphaned as (
    update ai.agent_runs r set runner = null, resumes = r.resumes + 1
     where r.status in ('running', 'waiting_approval') and r.runner is not null
       and r.caller is not null and r.resumes < 3
       and not exists (select 1 from realtime.nodes n where n.id = r.runner)
    returning r.id
  ), queued as (
    select graphile_worker.add_job('ai_agent_run_resume', json_build_object('run_id', o.id),
             job_key := 'ai-agent-run-resume:' || o.id, max_attempts := 5)
      from orphaned o
  )
  select count(*) into v_count from queued;
  return v_count;
end
$$;
revoke execute on function ai.resume_abandoned_agent_runs() from public;
grant execute on function ai.resume_abandoned_agent_runs() to service_role;

-- The resuming process takes the run: true once, for one process. A run
-- waiting on an approval stays waiting (the resumed run reads the answer).
create or replace function ai.claim_agent_run(p_run uuid, p_runner uuid) returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  update ai.agent_runs r set runner = p_runner
   where r.id = p_run and r.status in ('running', 'waiting_approval') and r.runner is null and r.caller is not null;
  return found;
end
$$;
revoke execute on function ai.claim_agent_run(uuid, uuid) from public;
grant execute on function ai.claim_agent_run(uuid, uuid) to service_role;
