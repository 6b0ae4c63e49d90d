-- The sweep's two halves no longer depend on their order (issue 29). The
-- sweep hands the runs of dead processes that can resume to their resume
-- jobs, then fails the rest; both read realtime.nodes, each in its own
-- snapshot. A dead process's node row reaped between the two (its
-- heartbeat's deadline passing at that moment) made the second half fail a
-- run the first had not yet seen as abandoned: a run that should have
-- resumed ended failed, with no last event. The failing halves now fail only
-- what cannot resume, whenever they run: a run that died three times, or an
-- agent or orchestration run without a caller (begun before runs kept one).
--
-- Contents
--   1. ai.fail_abandoned_runs         restated: workflow runs that died three times only
--   2. ai.fail_abandoned_agent_runs   restated: agent and orchestration runs that cannot resume only

-- 1 ---------------------------------------------------------------------------
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
   where e.status = 'running' and e.runner is not null and e.resumes >= 3
     and not exists (select 1 from realtime.nodes n where n.id = e.runner);
  get diagnostics n = row_count;
  return n;
end
$$;
revoke execute on function ai.fail_abandoned_runs() from public;
grant execute on function ai.fail_abandoned_runs() to service_role;

-- 2 ---------------------------------------------------------------------------
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
       and (r.caller is null or r.resumes >= 3)
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
       and (r.caller is null or r.resumes >= 3)
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
revoke execute on function ai.fail_abandoned_agent_runs() from public;
grant execute on function ai.fail_abandoned_agent_runs() to service_role;
