-- AI surface: a run that answered ends its record and stores its last events
-- in one statement (issue 29: a run's platform cost is its round trips; its
-- end and its last events were two).
--
--   ai.complete_run_with_events(kind, run, session, output, stop, steps, runner, pending, complete)
--     ends the run completed with its totals from the ledger
--     (ai.finish_agent_run / ai.finish_orchestration_run: guarded, a run
--     cancelled meanwhile stays cancelled), touches its session, and appends
--     `pending` (the events not stored yet), its `usage` event (the totals)
--     and `complete` (given) as ai.append_run_events(kind, run, runner,
--     events) does: refused (first null) once another process holds the run.
--     With pending null (this process's events are refused already) it
--     appends nothing. Returns the totals and the first event's number.
--
-- A run whose OnRunComplete hooks fire between its end and its `complete`
-- (their `hook` events come first) keeps the two statements.

create or replace function ai.complete_run_with_events(
  p_kind text, p_run uuid, p_session uuid, p_output text, p_stop text, p_steps int, p_runner uuid, p_pending jsonb, p_complete jsonb)
returns table (tokens_in int, tokens_out int, cost_usd float8, first int)
language plpgsql
set search_path = ''
as $$
begin
  if p_kind = 'agent' then
    perform ai.finish_agent_run(p_run, 'completed', p_output, null, p_stop, p_steps);
  elsif p_kind = 'orchestration' then
    perform ai.finish_orchestration_run(p_run, 'completed', p_output, null, p_stop, p_steps);
  else
    raise exception 'unknown run kind %', p_kind using errcode = '22023';
  end if;
  update ai.sessions s set updated_at = now() where s.id = p_session;
  select t.tokens_in, t.tokens_out, t.cost_usd::float8 into tokens_in, tokens_out, cost_usd from ai.usage_totals(p_run) t;
  if p_pending is not null then
    first := ai.append_run_events(p_kind, p_run, p_runner, p_pending || jsonb_build_array(
      jsonb_build_object('type', 'usage', 'tokens_in', tokens_in, 'tokens_out', tokens_out, 'cost_usd', cost_usd), p_complete));
  end if;
  return next;
end
$$;
revoke execute on function ai.complete_run_with_events(text, uuid, uuid, text, text, int, uuid, jsonb, jsonb) from public;
grant execute on function ai.complete_run_with_events(text, uuid, uuid, text, text, int, uuid, jsonb, jsonb) to service_role;
