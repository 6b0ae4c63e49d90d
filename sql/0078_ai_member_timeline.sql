-- AI surface: a delegation's own tool calls in its run's timeline (issues
-- 29 and 31). A member stores each of its steps beside its run
-- (ai.member_messages, sql/0074); GET of an agent or orchestration run now
-- shows the member's tool calls under its delegation, beside its model
-- calls, while the delegation is in flight too: a user sees how far a
-- member got when its run stopped.
--
--   ai.member_messages.call_id       the run's tool call that delegated (a sub-agent's is named by
--                                    its idempotency key, which SQL cannot read back to the call)
--   ai.record_member_message         restated: stores call_id from the message
--   ai.timeline_member_tools         a delegation's tool calls as timeline nodes
--   ai.conversation_timeline         restated: delegations show them

alter table ai.member_messages add column call_id text check (length(call_id) <= 200);

create or replace function ai.record_member_message(p_kind text, p_run uuid, p_runner uuid, p_delegation text, p_message jsonb) returns boolean
language plpgsql
set search_path = ''
as $$
begin
  insert into ai.member_messages (agent_run_id, orchestration_run_id, delegation, call_id, role, content, tool_calls, tool_call_id, name, is_error, latency_ms)
  select case when p_kind = 'agent' then p_run end, case when p_kind = 'orchestration' then p_run end, p_delegation, p_message ->> 'call_id',
         p_message ->> 'role', p_message ->> 'content', nullif(p_message -> 'tool_calls', 'null'::jsonb), p_message ->> 'tool_call_id',
         p_message ->> 'name', coalesce((p_message ->> 'is_error')::boolean, false), (p_message ->> 'latency_ms')::int
   where (p_kind = 'agent' and exists (select 1 from ai.agent_runs r where r.id = p_run and r.runner = p_runner))
      or (p_kind = 'orchestration' and exists (select 1 from ai.orchestration_runs r where r.id = p_run and r.runner = p_runner));
  return found;
end
$$;

-- A delegation's finished tool calls, named by the delegation (an orchestration's) or by the
-- call that delegated (a sub-agent's), as timeline nodes (their start: stored time less latency).
create or replace function ai.timeline_member_tools(p_run uuid, p_delegation text, p_call text) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'name', 'execute_tool ' || coalesce(m.name, ''), 'kind', 'tool_call', 'tool_call_id', m.tool_call_id,
           'start', m.created_at - make_interval(secs => coalesce(m.latency_ms, 0) / 1000.0), 'duration_ms', coalesce(m.latency_ms, 0),
           'ok', not m.is_error, 'error', case when m.is_error then regexp_replace(m.content, '^Error: ', '') end, 'children', '[]'::jsonb)
         order by m.id), '[]')
    from ai.member_messages m
   where m.run_id = p_run and m.role = 'tool'
     and (m.delegation = p_delegation or m.call_id = p_call)
$$;
grant execute on function ai.timeline_member_tools(uuid, text, text) to authenticated, service_role;

create or replace function ai.conversation_timeline(p_kind text, p_run uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  with run as (
    select a.id, a.session_id, a.status, a.error, a.started_at, a.finished_at, a.tokens_in, a.tokens_out, a.cost_usd
      from ai.agent_runs a where p_kind = 'agent' and a.id = p_run
    union all
    select o.id, o.session_id, o.status, o.error, o.started_at, o.finished_at, o.tokens_in, o.tokens_out, o.cost_usd
      from ai.orchestration_runs o where p_kind = 'orchestration' and o.id = p_run
  ),
  messages as (
    select m.id, m.role, m.name, m.tool_call_id, m.is_error, m.content, m.latency_ms, m.created_at,
           count(*) filter (where m.role = 'assistant') over (order by m.id) as step
      from ai.session_messages m join run on m.session_id = run.session_id
     where case when p_kind = 'agent' then m.run_id = p_run else m.orchestration_run_id = p_run end
  ),
  tool_calls as (
    select m.step, jsonb_build_object(
             'name', 'execute_tool ' || coalesce(m.name, ''), 'kind', 'tool_call', 'tool_call_id', m.tool_call_id,
             'start', m.created_at - make_interval(secs => coalesce(m.latency_ms, 0) / 1000.0), 'duration_ms', coalesce(m.latency_ms, 0),
             'ok', not coalesce(m.is_error, false), 'error', case when m.is_error then regexp_replace(m.content, '^Error: ', '') end,
             'children', (select coalesce(jsonb_agg(x.node order by x.at), '[]') from (
                 select a.created_at as at, jsonb_build_object('name', 'approval', 'kind', 'approval', 'start', a.created_at, 'status', a.status,
                          'duration_ms', round(extract(epoch from coalesce(a.decided_at, now()) - a.created_at) * 1000)::int, 'children', '[]'::jsonb) as node
                   from ai.agent_run_approvals a where p_kind = 'agent' and a.run_id = p_run and a.tool_call_id = m.tool_call_id
                 union all
                 select d.started_at, ai.timeline_node('delegation ' || d.agent_name, 'delegation', jsonb_build_object(
                          'start', d.started_at, 'duration_ms', round(extract(epoch from coalesce(d.finished_at, now()) - d.started_at) * 1000)::int,
                          'status', d.status, 'error', d.error, 'agent_id', d.agent_id, 'delegation_id', d.id),
                          ai.timeline_model_calls(p_run::text, d.id::text) || ai.timeline_member_tools(p_run, d.id::text, null))
                   from ai.orchestration_delegations d where p_kind = 'orchestration' and d.run_id = p_run and d.tool_call_id = m.tool_call_id
                 union all
                 -- A sub-agent's model calls and tool calls (an agent run's delegation keeps no row of its own).
                 select (c ->> 'start')::timestamptz, c
                   from jsonb_array_elements(ai.timeline_model_calls(p_run::text, m.tool_call_id) || ai.timeline_member_tools(p_run, null, m.tool_call_id)) c
                  where p_kind = 'agent') x)) as node
      from messages m where m.role = 'tool'
  ),
  model_calls as (
    select substring(c ->> 'step' from '^step-([0-9]+)$')::bigint as step, c as node
      from jsonb_array_elements(ai.timeline_model_calls(p_run::text, null)) c
  ),
  steps as (
    select s.step, ai.timeline_node('step ' || s.step, 'step', jsonb_build_object('step', s.step),
             coalesce((select jsonb_agg(x.node) from (select node from model_calls where step = s.step union all select node from tool_calls where step = s.step) x), '[]')) as node
      from (select step from model_calls union select step from tool_calls) s
  )
  select ai.timeline_node(p_kind || ' run', 'run', jsonb_build_object(
           'start', run.started_at, 'duration_ms', round(extract(epoch from coalesce(run.finished_at, now()) - run.started_at) * 1000)::int,
           'status', run.status, 'error', run.error, 'tokens_in', run.tokens_in, 'tokens_out', run.tokens_out, 'cost_usd', run.cost_usd::float8),
         coalesce((select jsonb_agg(node order by step) from steps), '[]'))
    from run
$$;
