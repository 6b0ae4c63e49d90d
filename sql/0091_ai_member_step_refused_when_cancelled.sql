-- AI surface: a delegation's member takes no more steps once its run is
-- cancelled, whatever its process has heard (as the run's own steps,
-- sql/0090). Without this, a member whose process missed the cancel's notice
-- went on to its end (its model calls made and charged, its tools run) and
-- only the run's next own step stopped it.
--
--   ai.run_status_for_step(kind, run, runner)
--     the status of a run as the process storing its next step sees it:
--     null when another process carries it; the run's row share-locked
--     until the step's transaction ends (a process claiming the run
--     meanwhile waits, then reads the step). For agent and orchestration
--     runs and workflow executions (sql/0092).
--   ai.record_member_message(kind, run, runner, delegation, message)
--     as in 0078, answering (stored, cancelled): `stored` only while the
--     run is running (or waiting on an approval) and this process carries
--     it; `cancelled`: refused because the run was cancelled (`stored`
--     false and not cancelled: another process carries the run).

create function ai.run_status_for_step(p_kind text, p_run uuid, p_runner uuid) returns text
language plpgsql
set search_path = ''
as $$
declare
  v_status text;
begin
  if p_kind = 'agent' then
    select r.status into v_status from ai.agent_runs r where r.id = p_run and r.runner = p_runner for share;
  elsif p_kind = 'orchestration' then
    select r.status into v_status from ai.orchestration_runs r where r.id = p_run and r.runner = p_runner for share;
  elsif p_kind = 'workflow' then
    select e.status into v_status from ai.workflow_executions e where e.id = p_run and e.runner = p_runner for share;
  else
    raise exception 'unknown run kind %', p_kind using errcode = '22023';
  end if;
  return v_status;
end
$$;
revoke execute on function ai.run_status_for_step(text, uuid, uuid) from public;
grant execute on function ai.run_status_for_step(text, uuid, uuid) to service_role;

drop function ai.record_member_message(text, uuid, uuid, text, jsonb);
create function ai.record_member_message(p_kind text, p_run uuid, p_runner uuid, p_delegation text, p_message jsonb)
returns table (stored boolean, cancelled boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_status text;
begin
  if p_kind not in ('agent', 'orchestration') then
    raise exception 'unknown run kind %', p_kind using errcode = '22023';
  end if;
  v_status := ai.run_status_for_step(p_kind, p_run, p_runner);
  stored := coalesce(v_status in ('running', 'waiting_approval'), false);
  cancelled := coalesce(v_status = 'cancelled', false);
  if stored then
    insert into ai.member_messages (agent_run_id, orchestration_run_id, delegation, call_id, role, content, tool_calls, tool_call_id, name, is_error, latency_ms)
    values (case when p_kind = 'agent' then p_run end, case when p_kind = 'orchestration' then p_run end, p_delegation, p_message ->> 'call_id',
            p_message ->> 'role', p_message ->> 'content', nullif(p_message -> 'tool_calls', 'null'::jsonb), p_message ->> 'tool_call_id',
            p_message ->> 'name', coalesce((p_message ->> 'is_error')::boolean, false), (p_message ->> 'latency_ms')::int);
  end if;
  return next;
end
$$;
revoke execute on function ai.record_member_message(text, uuid, uuid, text, jsonb) from public;
grant execute on function ai.record_member_message(text, uuid, uuid, text, jsonb) to service_role;
