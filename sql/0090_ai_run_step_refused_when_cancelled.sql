-- AI surface: a cancelled run takes no more steps, whatever its process has
-- heard. Cancel (ai.cancel_agent_run, ai.cancel_orchestration_run) ends the
-- record and sends a notice that aborts the run where it runs
-- (server/ai/runs/watch.ts); a notice can be lost (the listening connection
-- was away, or it came before the process watched the run). The run's next
-- step is then the backstop: ai.record_run_message stores a message only
-- for a run still running (or waiting on an approval) and says when it
-- refused one because the run was cancelled, so the run ends there as
-- cancelled, at its next step boundary, as the cancel promised.
--
--   ai.record_run_message(kind, run, session, runner, message..., charges)
--     as in 0080 (the run's row now share-locked while the message goes in:
--     a process claiming the run meanwhile waits, then reads it) (the charges are recorded whatever becomes of the message:
--     the vendor billed the call), and `cancelled`: the message was not
--     stored because the run was cancelled (`stored` false and not
--     cancelled: another process carries the run).

drop function ai.record_run_message(text, uuid, uuid, uuid, text, text, jsonb, text, text, boolean, int, jsonb, jsonb);
create function ai.record_run_message(
  p_kind text, p_run uuid, p_session uuid, p_runner uuid,
  p_role text, p_content text, p_tool_calls jsonb, p_tool_call_id text, p_name text, p_is_error boolean, p_latency_ms int, p_retrieved jsonb,
  p_charges jsonb)
returns table (stored boolean, cancelled boolean, costs float8[])
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_status text;
begin
  if p_kind = 'agent' then
    select r.status into v_status from ai.agent_runs r where r.id = p_run and r.session_id = p_session and r.runner = p_runner for share;
  elsif p_kind = 'orchestration' then
    select r.status into v_status from ai.orchestration_runs r where r.id = p_run and r.session_id = p_session and r.runner = p_runner for share;
  else
    raise exception 'unknown run kind %', p_kind using errcode = '22023';
  end if;
  stored := coalesce(v_status in ('running', 'waiting_approval'), false);
  cancelled := coalesce(v_status = 'cancelled', false);
  if stored then
    insert into ai.session_messages (session_id, run_id, orchestration_run_id, role, content, tool_calls, tool_call_id, name, is_error, latency_ms, retrieved_context)
    values (p_session, case when p_kind = 'agent' then p_run end, case when p_kind = 'orchestration' then p_run end,
            p_role, p_content, p_tool_calls, p_tool_call_id, p_name, coalesce(p_is_error, false), p_latency_ms, coalesce(p_retrieved, '[]'));
  end if;
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
