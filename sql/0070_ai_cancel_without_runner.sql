-- AI surface: a cancel of a run that no process carries (parked on an
-- approval, waiting for its resume job, or an execution still queued) ends
-- its events too. The process running a run writes the run's last event when
-- it hears of the cancel; a run without one would otherwise end with no last
-- event, and its followers would only stop once the record had settled.
--
--   ai.cancel_agent_run, ai.cancel_orchestration_run, ai.cancel_execution
--   restated: with no runner, the last event ({type: error, RUN_CANCELLED})
--   is stored in the same statement.

create or replace function ai.cancel_agent_run(p_run uuid) returns boolean
language plpgsql
set search_path = ''
as $$
declare
  r ai.agent_runs;
begin
  update ai.agent_runs x
     set status = 'cancelled', error = 'The run was cancelled', finished_at = now(), tokens_in = u.tokens_in, tokens_out = u.tokens_out, cost_usd = u.cost_usd
    from ai.usage_totals(p_run) u
   where x.id = p_run and x.status in ('running', 'waiting_approval')
  returning x.* into r;
  if not found then return false; end if;
  if r.runner is null then
    perform ai.append_run_events('agent', p_run, jsonb_build_array(jsonb_build_object(
      'type', 'error', 'error', 'The run was cancelled', 'error_code', 'RUN_CANCELLED', 'session_id', r.session_id, 'run_id', r.id)));
  end if;
  perform pg_notify('ai_runs', 'cancel:' || p_run::text);
  return true;
end
$$;

create or replace function ai.cancel_orchestration_run(p_run uuid) returns boolean
language plpgsql
set search_path = ''
as $$
declare
  r ai.orchestration_runs;
begin
  update ai.orchestration_runs x
     set status = 'cancelled', error = 'The run was cancelled', finished_at = now(), tokens_in = u.tokens_in, tokens_out = u.tokens_out, cost_usd = u.cost_usd
    from ai.usage_totals(p_run) u
   where x.id = p_run and x.status = 'running'
  returning x.* into r;
  if not found then return false; end if;
  if r.runner is null then
    perform ai.append_run_events('orchestration', p_run, jsonb_build_array(jsonb_build_object(
      'type', 'error', 'error', 'The run was cancelled', 'error_code', 'RUN_CANCELLED', 'session_id', r.session_id, 'run_id', r.id)));
  end if;
  perform pg_notify('ai_runs', 'cancel:' || p_run::text);
  return true;
end
$$;

create or replace function ai.cancel_execution(p_id uuid) returns boolean
language plpgsql
set search_path = ''
as $$
declare
  v_runner uuid;
begin
  update ai.workflow_executions e set status = 'cancelled', error = 'Cancelled', error_code = 'CANCELLED', finished_at = now()
   where e.id = p_id and e.status in ('queued', 'running')
  returning e.runner into v_runner;
  if not found then return false; end if;
  if v_runner is null then
    perform ai.append_run_events('workflow', p_id, jsonb_build_array(jsonb_build_object('type', 'error', 'error', 'The run was cancelled', 'execution_id', p_id)));
  end if;
  perform pg_notify('ai_runs', 'cancel:' || p_id::text);
  return true;
end
$$;
