-- AI surface: a run waiting on a person costs nothing (issue 29). An agent
-- run whose approval is not answered within AI_APPROVAL_PARK_AFTER_MS lets
-- go of its process (ai.park_agent_run): it is then a row (waiting_approval,
-- no runner) and a job (ai_run_resume) scheduled for the approval's
-- deadline. The answer, taken by any replica (ai.decide_approval), brings
-- that job forward to now; the deadline runs it as it is. Either way a
-- worker resumes the run from its checkpoints (sql/0067) and the resumed run
-- reads the answer (or the timeout) from the approval row.
--
--   1. ai.request_approval    restated: a deadline may be up to 30 days away (was a day)
--   2. ai.park_agent_run      the run's process lets go of it while it waits
--   3. ai.resume_if_answered  restated: an answered parked run is resumed now

create or replace function ai.request_approval(p_run uuid, p_hook uuid, p_event text, p_tool_call_id text, p_tool_name text, p_arguments jsonb, p_message text, p_timeout int)
returns ai.agent_run_approvals
language plpgsql volatile
set search_path = ''
as $$
declare
  a ai.agent_run_approvals;
begin
  insert into ai.agent_run_approvals (run_id, hook_id, event, tool_call_id, tool_name, arguments, message, expires_at)
  values (p_run, p_hook, p_event, p_tool_call_id, p_tool_name, p_arguments, p_message,
          now() + make_interval(secs => least(greatest(coalesce(p_timeout, 300), 1), 2592000)))
  returning * into a;
  update ai.agent_runs set status = 'waiting_approval' where id = p_run and status = 'running';
  return a;
end
$$;

-- The process running p_run lets go of it: only while it waits on an
-- approval, only the process that runs it, only a run that can resume. The
-- resume job runs at the earliest deadline of what it waits on (or sooner,
-- when answered). False when it cannot park (answered meanwhile: go on).
create or replace function ai.park_agent_run(p_run uuid, p_runner uuid) returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_due timestamptz;
begin
  update ai.agent_runs r set runner = null
   where r.id = p_run and r.runner = p_runner and r.status = 'waiting_approval' and r.caller is not null
  returning (select min(a.expires_at) from ai.agent_run_approvals a where a.run_id = r.id and a.status = 'pending') into v_due;
  if not found then return false; end if;
  perform ai.queue_run_resume('agent', p_run, coalesce(v_due, now()));
  return true;
end
$$;
revoke execute on function ai.park_agent_run(uuid, uuid) from public;
grant execute on function ai.park_agent_run(uuid, uuid) to service_role;

-- The run goes back to running once nothing of it waits any more; a parked
-- run (no process) is resumed now.
create or replace function ai.resume_if_answered(p_run uuid) returns void
language plpgsql volatile
security definer
set search_path = ''
as $$
declare
  v_parked boolean;
begin
  update ai.agent_runs r set status = 'running'
   where r.id = p_run and r.status = 'waiting_approval'
     and not exists (select 1 from ai.agent_run_approvals a where a.run_id = p_run and a.status = 'pending')
  returning r.runner is null and r.caller is not null into v_parked;
  if v_parked then
    perform ai.queue_run_resume('agent', p_run, now());
  end if;
end
$$;
revoke execute on function ai.resume_if_answered(uuid) from public;
grant execute on function ai.resume_if_answered(uuid) to service_role;
