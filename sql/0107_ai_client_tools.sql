-- AI surface: a run that waits for its client (issue 47, items 11 and 12).
-- An OpenAI client (/api/v1) may bring its own tools: the agent's model is
-- offered them beside the agent's, and when it calls one the run stops and
-- hands the call to the client, which runs it and sends the result in its
-- next request; the same run then goes on from there. A run waiting so is
-- held by no process (like a parked approval) and is never swept: only its
-- client's answer, or a cancel, moves it.
--
--   1  agent_runs.client: what the client brought (its tools, tool_choice,
--      response_format), kept so a run resumed anywhere offers the same
--   2  status 'waiting_client'
--   3  ai.set_run_client(run, client)            kept once, as the run begins
--   4  ai.await_client(run, runner)              running -> waiting_client, let go of
--   5  ai.answer_client(run, runner, results)    the results stored, the run taken
--                                                 by the answering process, or false
--   6  ai.cancel_agent_run restated: a waiting run is cancellable

-- 1, 2 ------------------------------------------------------------------------
alter table ai.agent_runs add column client jsonb check (client is null or jsonb_typeof(client) = 'object');
comment on column ai.agent_runs.client is
  'What the OpenAI-compatible client brought to the run: {tools, tool_choice, response_format}; null for other runs.';
alter table ai.agent_runs drop constraint agent_runs_status_check;
alter table ai.agent_runs add constraint agent_runs_status_check
  check (status in ('running', 'waiting_approval', 'waiting_client', 'completed', 'failed', 'cancelled'));

-- 3 ---------------------------------------------------------------------------
create or replace function ai.set_run_client(p_run uuid, p_client jsonb) returns void
language sql
set search_path = ''
as $$
  update ai.agent_runs set client = p_client
   where id = p_run and status = 'running' and client is null
$$;
revoke execute on function ai.set_run_client(uuid, jsonb) from public;
grant execute on function ai.set_run_client(uuid, jsonb) to service_role;

-- 4 ---------------------------------------------------------------------------
-- The run's own process lets go of it once the model's call to a client tool
-- is stored (with the results of the agent's own calls of that step); its
-- totals so far are answered for the response that hands the calls over.
create or replace function ai.await_client(p_run uuid, p_runner uuid)
returns table (tokens_in int, tokens_out int, cost_usd float8)
language plpgsql
set search_path = ''
as $$
begin
  update ai.agent_runs r set status = 'waiting_client', runner = null
   where r.id = p_run and r.runner = p_runner and r.status = 'running';
  if not found then
    raise exception 'the run is not running here' using errcode = '55000';
  end if;
  return query select u.tokens_in::int, u.tokens_out::int, u.cost_usd::float8 from ai.usage_totals(p_run) u;
end
$$;
revoke execute on function ai.await_client(uuid, uuid) from public;
grant execute on function ai.await_client(uuid, uuid) to service_role;

-- 5 ---------------------------------------------------------------------------
-- The client's results, one per call the run waits on ({tool_call_id,
-- content}): every call of the run's last assistant message still without
-- a result must be answered, and nothing else. The results are stored as
-- the run's tool messages and the run goes back to running, held by the
-- answering process (which carries it on at once). False when the run does
-- not wait (answered already, by a concurrent request, or cancelled).
create or replace function ai.answer_client(p_run uuid, p_runner uuid, p_results jsonb) returns boolean
language plpgsql
set search_path = ''
as $$
declare
  r ai.agent_runs;
  v_waiting text[];
  v_given text[];
begin
  update ai.agent_runs x set status = 'running', runner = p_runner, resumes = x.resumes + 1
   where x.id = p_run and x.status = 'waiting_client' and x.runner is null
  returning x.* into r;
  if not found then return false; end if;
  select coalesce(array_agg(c ->> 'id' order by c ->> 'id'), '{}') into v_waiting
    from (select m.tool_calls, m.id from ai.session_messages m
           where m.run_id = p_run and m.role = 'assistant' order by m.id desc limit 1) last
    cross join lateral jsonb_array_elements(last.tool_calls) c
   where not exists (select 1 from ai.session_messages t
                      where t.run_id = p_run and t.role = 'tool' and t.tool_call_id = c ->> 'id' and t.id > last.id);
  select coalesce(array_agg(e ->> 'tool_call_id' order by e ->> 'tool_call_id'), '{}') into v_given from jsonb_array_elements(p_results) e;
  if v_given is distinct from v_waiting then
    raise exception 'the tool messages must answer exactly the calls the run waits on: %', array_to_string(v_waiting, ', ')
      using errcode = '22023';
  end if;
  insert into ai.session_messages (session_id, run_id, role, content, tool_call_id, name, is_error)
  select r.session_id, p_run, 'tool', e ->> 'content', e ->> 'tool_call_id',
         (select c ->> 'name' from ai.session_messages m cross join lateral jsonb_array_elements(m.tool_calls) c
           where m.run_id = p_run and m.role = 'assistant' and c ->> 'id' = e ->> 'tool_call_id' order by m.id desc limit 1),
         false
    from jsonb_array_elements(p_results) with ordinality as g(e, n)
   order by g.n;
  return true;
end
$$;
revoke execute on function ai.answer_client(uuid, uuid, jsonb) from public;
grant execute on function ai.answer_client(uuid, uuid, jsonb) to service_role;

-- 6 ---------------------------------------------------------------------------
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
   where x.id = p_run and x.status in ('running', 'waiting_approval', 'waiting_client')
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
