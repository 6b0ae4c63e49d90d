-- AI surface: a workflow run resumes from its blocks when the process
-- running it dies (issue 29), instead of being failed.
--
-- A workflow run's checkpoints are its block logs (one row per settled block,
-- written before the blocks after it start) beside the graph and variables
-- its execution row keeps. What a resume also needs is kept per log row:
--   taken   the targets a branching block took (null: all of them)
--   path    where in the run it ran: '' at the top, '<split>[i]/' inside a
--           split's item (a resume restores the top level; a split in
--           flight runs again whole)
--
-- The sweep calls ai.resume_abandoned_executions before
-- ai.fail_abandoned_runs: a running execution of a dead process with fewer
-- than 3 resumes is handed to the ai_workflow_resume job (any worker), which
-- takes it with ai.claim_execution and runs the blocks that had not
-- settled; ai.fail_abandoned_runs (restated) fails only what is left.
--
--   1. columns    workflow_executions.resumes, workflow_block_logs.taken and path
--   2. ai.resume_abandoned_executions, ai.claim_execution
--   3. ai.fail_abandoned_runs  restated: a run waiting for its resume is not failed

alter table ai.workflow_executions add column resumes int not null default 0;
alter table ai.workflow_block_logs add column taken jsonb check (taken is null or jsonb_typeof(taken) = 'array');
alter table ai.workflow_block_logs add column path text not null default '';

create or replace function ai.resume_abandoned_executions() returns int
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count int;
begin
  with orphaned as (
    update ai.workflow_executions e set runner = null, resumes = e.resumes + 1
     where e.status = 'running' and e.runner is not null and e.resumes < 3
       and not exists (select 1 from realtime.nodes n where n.id = e.runner)
    returning e.id
  ), queued as (
    select graphile_worker.add_job('ai_workflow_resume', json_build_object('execution_id', o.id),
             job_key := 'ai-workflow-resume:' || o.id, job_key_mode := 'replace', max_attempts := 5)
      from orphaned o
  )
  select count(*) into v_count from queued;
  return v_count;
end
$$;
revoke execute on function ai.resume_abandoned_executions() from public;
grant execute on function ai.resume_abandoned_executions() to service_role;

-- The resuming process takes the run: true once, for one process.
create or replace function ai.claim_execution(p_id uuid, p_runner uuid) returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  update ai.workflow_executions e set runner = p_runner where e.id = p_id and e.status = 'running' and e.runner is null;
  return found;
end
$$;
revoke execute on function ai.claim_execution(uuid, uuid) from public;
grant execute on function ai.claim_execution(uuid, uuid) to service_role;

-- Runs a process left running when it died and that will not resume (three
-- resumes already): failed, so nobody waits on them. A run handed to its
-- resume job has no runner and is left to it.
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
   where e.status = 'running' and e.runner is not null and not exists (select 1 from realtime.nodes n where n.id = e.runner);
  get diagnostics n = row_count;
  return n;
end
$$;
