-- AI surface: runs carried by the workers (issue 29, item 1). With
-- AI_RUN_PLACEMENT=worker, the process that takes a run's request only
-- begins it (its session, its record, the user's message, its first event)
-- and hands it to the ai_run_resume job; whichever process runs the worker
-- carries it from its first step, and the request follows its stored
-- events, as it does for a run parked on an approval.
--
--   ai.hand_run_to_worker(kind, run, runner)
--     the process that began the run lets go of it (only that process, only
--     a run still running that can resume) and queues its job, marked as the
--     run's beginning (no `resumed` event, its OnRunStart hooks fire there).
--     False when it cannot (cancelled meanwhile).

create or replace function ai.hand_run_to_worker(p_kind text, p_run uuid, p_runner uuid) returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_kind = 'agent' then
    update ai.agent_runs r set runner = null where r.id = p_run and r.runner = p_runner and r.status = 'running' and r.caller is not null;
  elsif p_kind = 'orchestration' then
    update ai.orchestration_runs r set runner = null where r.id = p_run and r.runner = p_runner and r.status = 'running' and r.caller is not null;
  else
    raise exception 'unknown run kind %', p_kind using errcode = '22023';
  end if;
  if not found then return false; end if;
  perform graphile_worker.add_job('ai_run_resume', json_build_object('kind', p_kind, 'run_id', p_run, 'begin', true),
    job_key := 'ai-run-resume:' || p_run, job_key_mode := 'replace', max_attempts := 5);
  return true;
end
$$;
revoke execute on function ai.hand_run_to_worker(text, uuid, uuid) from public;
grant execute on function ai.hand_run_to_worker(text, uuid, uuid) to service_role;
