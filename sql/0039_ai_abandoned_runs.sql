-- AI surface: agent and orchestration runs a dead process left behind.
--
-- A run records the process running it (its realtime.nodes id), as workflow
-- runs do. When that process is gone (crashed, or stopped without finishing
-- the run), ai.fail_abandoned_agent_runs fails the run, times out the
-- approvals it was waiting on and fails its running delegations. The server's
-- sweep calls it beside ai.fail_abandoned_runs.

alter table ai.agent_runs add column runner uuid;
alter table ai.orchestration_runs add column runner uuid;
create index agent_runs_live on ai.agent_runs (runner) where status in ('running', 'waiting_approval');
create index orchestration_runs_live on ai.orchestration_runs (runner) where status = 'running';

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
