-- AI surface: a run's timeline without a tracing backend (issue 31). GET of
-- an agent run, an orchestration run and a workflow execution includes
-- `timeline`: the run's span tree, built from what the run stored, so a user
-- without Jaeger or Langfuse still sees where the time and the money went.
--
--   ai.timeline_model_calls(run, prefix)   the model calls of a run (the usage ledger) whose step is
--                                          `step-N` (prefix null) or `<prefix>/step-N`, as nodes
--   ai.conversation_timeline(kind, run)    an agent or orchestration run: run > step N > model call,
--                                          tool call > approval, delegation > the member's model calls
--   ai.execution_timeline(execution)       a workflow run: run > block > the block's model calls
--
-- A node: {name, kind, start, duration_ms, children} with, where they apply, model, provider, tokens_in,
-- tokens_out, cost_usd, ok, status, error, and children. A model call's start is its ledger row's
-- time less its latency; a tool call's likewise from its stored result. Invoker: the caller's
-- policies decide what they read (a run they cannot see has no timeline).

create or replace function ai.timeline_model_calls(p_run text, p_prefix text) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'name', case when u.kind = 'chat' then 'chat ' else u.kind || ' ' end || u.model, 'kind', 'model_call',
           'start', u.created_at - make_interval(secs => u.latency_ms / 1000.0), 'duration_ms', u.latency_ms,
           'step', u.step, 'model', u.model, 'provider', u.provider, 'tokens_in', u.tokens_in, 'tokens_out', u.tokens_out,
           'cost_usd', u.cost_usd::float8, 'ok', u.ok, 'error', case when u.ok then null else 'the model call failed' end, 'children', '[]'::jsonb)
         order by u.id), '[]')
    from ai.usage u
   where u.run_id = p_run
     and case when p_prefix is null then u.step ~ '^step-[0-9]+$'
              else u.step = p_prefix or left(u.step, length(p_prefix) + 1) = p_prefix || '/' end
$$;

-- A node's totals and extent from its children (a step, a block).
create or replace function ai.timeline_node(p_name text, p_kind text, p_extra jsonb, p_children jsonb) returns jsonb
language sql immutable
set search_path = ''
as $$
  select p_extra || jsonb_build_object(
    'name', p_name, 'kind', p_kind,
    'start', coalesce(p_extra -> 'start', (select to_jsonb(min((c ->> 'start')::timestamptz)) from jsonb_array_elements(p_children) c)),
    'duration_ms', coalesce(p_extra -> 'duration_ms', (select to_jsonb(round(extract(epoch from
        max((c ->> 'start')::timestamptz + make_interval(secs => coalesce((c ->> 'duration_ms')::float8, 0) / 1000.0)) - min((c ->> 'start')::timestamptz)) * 1000)::int)
      from jsonb_array_elements(p_children) c)),
    'tokens_in', coalesce(p_extra -> 'tokens_in', (select to_jsonb(coalesce(sum((c ->> 'tokens_in')::int), 0)) from jsonb_array_elements(p_children) c)),
    'tokens_out', coalesce(p_extra -> 'tokens_out', (select to_jsonb(coalesce(sum((c ->> 'tokens_out')::int), 0)) from jsonb_array_elements(p_children) c)),
    'cost_usd', coalesce(p_extra -> 'cost_usd', (select to_jsonb(coalesce(sum((c ->> 'cost_usd')::float8), 0)) from jsonb_array_elements(p_children) c)),
    'children', (select coalesce(jsonb_agg(c order by (c ->> 'start')::timestamptz nulls last), '[]') from jsonb_array_elements(p_children) c))
$$;

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
                          'status', d.status, 'error', d.error, 'agent_id', d.agent_id, 'delegation_id', d.id), ai.timeline_model_calls(p_run::text, d.id::text))
                   from ai.orchestration_delegations d where p_kind = 'orchestration' and d.run_id = p_run and d.tool_call_id = m.tool_call_id
                 union all
                 -- A sub-agent's model calls (an agent run's delegation keeps no row of its own).
                 select now(), jsonb_array_elements(ai.timeline_model_calls(p_run::text, m.tool_call_id))
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

create or replace function ai.execution_timeline(p_execution uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  select ai.timeline_node('workflow run', 'run', jsonb_build_object(
           'start', coalesce(e.started_at, e.created_at),
           'duration_ms', case when e.started_at is not null then round(extract(epoch from coalesce(e.finished_at, now()) - e.started_at) * 1000)::int end,
           'status', e.status, 'error', e.error),
         coalesce((select jsonb_agg(ai.timeline_node('block ' || l.block_id, 'block', jsonb_build_object(
                      'block_id', l.block_id, 'block_type', l.block_type, 'path', l.path, 'status', l.status, 'error', l.error, 'attempts', l.attempts,
                      'start', l.started_at, 'duration_ms', round(extract(epoch from l.finished_at - l.started_at) * 1000)::int),
                    -- A block's model calls are tagged with its id alone: a split's iterations cannot tell theirs apart, so only top-level blocks show them.
                    case when l.path = '' then ai.timeline_model_calls(e.id::text, l.block_id) else '[]' end) order by l.id)
                     from ai.workflow_block_logs l where l.execution_id = e.id), '[]'))
    from ai.workflow_executions e where e.id = p_execution
$$;

grant execute on function ai.timeline_model_calls(text, text), ai.timeline_node(text, text, jsonb, jsonb),
  ai.conversation_timeline(text, uuid), ai.execution_timeline(uuid) to authenticated, service_role;
