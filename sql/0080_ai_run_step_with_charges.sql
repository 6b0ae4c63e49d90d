-- AI surface: a run's step stored with the ledger rows of the model call it
-- answers, in one statement (issue 29: a run's platform cost is its round
-- trips; a model call's ledger row and the message that holds its answer
-- were two).
--
--   ai.record_run_message(kind, run, session, runner, message..., charges)
--     charges: the model call's ledger entries (one per attempt that reached
--     a model), recorded with ai.record_usage whatever becomes of the
--     message: the vendor billed the call. The message is stored only while
--     `runner` still carries the run and the run is in that session (as the
--     message recorder's guarded insert did); `stored` says whether it was,
--     `costs` each entry's price in order.
--
-- Called by the platform as the service role; security definer, as the
-- ledger writes its rows as the platform (ai.usage and ai.credits take no
-- writes from any API role). The run's record binds the session, the run and
-- the process that carries it, so the session's owner needs no policy check
-- here (ai.begin_run made the run as the caller).

create or replace function ai.record_run_message(
  p_kind text, p_run uuid, p_session uuid, p_runner uuid,
  p_role text, p_content text, p_tool_calls jsonb, p_tool_call_id text, p_name text, p_is_error boolean, p_latency_ms int, p_retrieved jsonb,
  p_charges jsonb)
returns table (stored boolean, costs float8[])
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_kind not in ('agent', 'orchestration') then
    raise exception 'unknown run kind %', p_kind using errcode = '22023';
  end if;
  if p_kind = 'agent' then
    insert into ai.session_messages (session_id, run_id, role, content, tool_calls, tool_call_id, name, is_error, latency_ms, retrieved_context)
    select p_session, p_run, p_role, p_content, p_tool_calls, p_tool_call_id, p_name, coalesce(p_is_error, false), p_latency_ms, coalesce(p_retrieved, '[]')
     where exists (select 1 from ai.agent_runs r where r.id = p_run and r.session_id = p_session and r.runner = p_runner);
  else
    insert into ai.session_messages (session_id, orchestration_run_id, role, content, tool_calls, tool_call_id, name, is_error, latency_ms, retrieved_context)
    select p_session, p_run, p_role, p_content, p_tool_calls, p_tool_call_id, p_name, coalesce(p_is_error, false), p_latency_ms, coalesce(p_retrieved, '[]')
     where exists (select 1 from ai.orchestration_runs r where r.id = p_run and r.session_id = p_session and r.runner = p_runner);
  end if;
  stored := found;
  -- Last: ai.record_usage updates the one credits row, locked until commit.
  select coalesce(array_agg(ai.record_usage(nullif(c ->> 'user_id', '')::uuid, c ->> 'feature', c ->> 'run_id', c ->> 'step', c ->> 'model',
           c ->> 'provider', c ->> 'kind', (c ->> 'tokens_in')::int, (c ->> 'tokens_out')::int, (c ->> 'latency_ms')::int, (c ->> 'ok')::boolean)::float8 order by n), '{}')
    into costs
    from jsonb_array_elements(coalesce(p_charges, '[]')) with ordinality as x(c, n);
  return next;
end
$$;
revoke execute on function ai.record_run_message(text, uuid, uuid, uuid, text, text, jsonb, text, text, boolean, int, jsonb, jsonb) from public;
grant execute on function ai.record_run_message(text, uuid, uuid, uuid, text, text, jsonb, text, text, boolean, int, jsonb, jsonb) to service_role;
