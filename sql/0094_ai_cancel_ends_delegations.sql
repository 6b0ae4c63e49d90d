-- AI surface: cancelling an orchestration run ends its delegations in
-- flight. The member of a delegation stops with its run (a heard cancel, or
-- its next step refused: sql/0091) without finishing its record, which
-- stayed `running` under a cancelled run: GET of the run showed a
-- delegation still at work that never would be. The cancel now ends them
-- `failed` ("The run was cancelled", their usage so far), as the sweep ends
-- those of a run it fails (sql/0075); a member that finishes after it finds
-- its record ended (ai.finish_delegation changes only a running one).
--
--   ai.cancel_orchestration_run(run) restated from 0070.

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
  update ai.orchestration_delegations x
     set status = 'failed', error = 'The run was cancelled', finished_at = now(), tokens_in = u.tokens_in, tokens_out = u.tokens_out, cost_usd = u.cost_usd
    from ai.orchestration_delegations d cross join lateral ai.usage_totals(d.run_id, d.id::text || '/') u
   where d.id = x.id and x.run_id = p_run and x.status = 'running';
  if r.runner is null then
    perform ai.append_run_events('orchestration', p_run, jsonb_build_array(jsonb_build_object(
      'type', 'error', 'error', 'The run was cancelled', 'error_code', 'RUN_CANCELLED', 'session_id', r.session_id, 'run_id', r.id)));
  end if;
  perform pg_notify('ai_runs', 'cancel:' || p_run::text);
  return true;
end
$$;
