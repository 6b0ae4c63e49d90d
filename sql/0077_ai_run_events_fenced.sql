-- AI surface: a run's events are written only by the process that carries
-- the run (issue 29). A process taken for dead (its heartbeat stalled past
-- the reap) may still be alive: its run's steps are already refused once
-- another process has the run (ai.record_member_message, the session and
-- block writers check `runner`), and now its events are too, so a follower
-- never reads a stale process's events beside the live one's.
--
--   ai.append_run_events(kind, run, runner, events)
--     appends as ai.append_run_events(kind, run, events) does, unless another
--     process holds the run: then nothing, and null. A run no process holds
--     (parked on an approval, queued, between the sweep and the claim) takes
--     the events of the one that held it last: what it stored before the
--     next claim is what the claimer reads back (the row lock orders the two).

create or replace function ai.append_run_events(p_kind text, p_run uuid, p_runner uuid, p_events jsonb) returns int
language plpgsql
set search_path = ''
as $$
declare
  v_runner uuid;
begin
  if p_kind = 'agent' then
    select r.runner into v_runner from ai.agent_runs r where r.id = p_run for share;
  elsif p_kind = 'orchestration' then
    select r.runner into v_runner from ai.orchestration_runs r where r.id = p_run for share;
  elsif p_kind = 'workflow' then
    select e.runner into v_runner from ai.workflow_executions e where e.id = p_run for share;
  else
    raise exception 'unknown run kind %', p_kind using errcode = '22023';
  end if;
  if not found or v_runner <> p_runner then
    return null;
  end if;
  return ai.append_run_events(p_kind, p_run, p_events);
end
$$;
revoke execute on function ai.append_run_events(text, uuid, uuid, jsonb) from public;
grant execute on function ai.append_run_events(text, uuid, uuid, jsonb) to service_role;
