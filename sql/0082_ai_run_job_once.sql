-- AI surface: one statement of a run's job (ai_run_resume). A run handed to
-- a worker from its beginning (ai.hand_run_to_worker, sql/0079) queued its
-- job with a copy of ai.queue_run_resume's; now both go through
-- ai.queue_run_resume, which takes whether the job carries the run from its
-- beginning (no `resumed` event, its OnRunStart hooks fire there).

drop function ai.queue_run_resume(text, uuid, timestamptz);
-- The resume job of a run, due at p_at; one per run (a later call moves it).
create function ai.queue_run_resume(p_kind text, p_run uuid, p_at timestamptz, p_begin boolean default false) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform graphile_worker.add_job('ai_run_resume', json_build_object('kind', p_kind, 'run_id', p_run, 'begin', p_begin), run_at := p_at,
    job_key := 'ai-run-resume:' || p_run, job_key_mode := 'replace', max_attempts := 5);
end
$$;
revoke execute on function ai.queue_run_resume(text, uuid, timestamptz, boolean) from public;

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
  perform ai.queue_run_resume(p_kind, p_run, now(), true);
  return true;
end
$$;
