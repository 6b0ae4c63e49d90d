-- Usage over time and by what spent it, for the Studio's usage page (issue 48):
--   1. ai.usage_report   as 0022, plus `by_day` (each day and model: calls,
--                        tokens and cost), `by_agent` and `by_workflow` (the
--                        model calls of each agent's and workflow's runs, by
--                        the run they were made in) and `credits_usd`. The
--                        keys 0022 answered are unchanged.
-- Days are UTC days. A call made in a run of neither kind (the copilot, an
-- embedding while indexing) counts in the totals and by day and model only.

-- 1 ---------------------------------------------------------------------------
create or replace function ai.usage_report(p_from timestamptz, p_to timestamptz, p_feature text, p_model text, p_user uuid, p_limit int)
returns jsonb
language sql stable
set search_path = ''
as $$
  with calls as (
    select u.* from ai.usage u
     where u.created_at >= coalesce(p_from, '-infinity') and u.created_at < coalesce(p_to, 'infinity')
       and (p_feature is null or u.feature = p_feature) and (p_model is null or u.model = p_model) and (p_user is null or u.user_id = p_user)
  )
  select jsonb_build_object(
    'totals', (select jsonb_build_object('calls', count(*), 'tokens_in', coalesce(sum(tokens_in), 0), 'tokens_out', coalesce(sum(tokens_out), 0),
                                         'cost_usd', coalesce(sum(cost_usd), 0)) from calls),
    'by_model', coalesce((select jsonb_agg(m order by m.cost_usd desc) from (
        select model, provider, count(*) as calls, sum(tokens_in) as tokens_in, sum(tokens_out) as tokens_out, sum(cost_usd) as cost_usd
          from calls group by model, provider) m), '[]'),
    'by_feature', coalesce((select jsonb_agg(f order by f.cost_usd desc) from (
        select feature, count(*) as calls, sum(tokens_in) as tokens_in, sum(tokens_out) as tokens_out, sum(cost_usd) as cost_usd
          from calls group by feature) f), '[]'),
    'by_day', coalesce((select jsonb_agg(d order by d.day, d.model) from (
        select to_char(date_trunc('day', created_at at time zone 'UTC'), 'YYYY-MM-DD') as day, model, provider, count(*) as calls,
               sum(tokens_in) as tokens_in, sum(tokens_out) as tokens_out, sum(cost_usd) as cost_usd
          from calls group by 1, model, provider) d), '[]'),
    'by_agent', coalesce((select jsonb_agg(a order by a.cost_usd desc) from (
        select r.agent_id, g.name, count(*) as calls, sum(c.tokens_in) as tokens_in, sum(c.tokens_out) as tokens_out, sum(c.cost_usd) as cost_usd
          from calls c join ai.agent_runs r on r.id::text = c.run_id left join ai.agents g on g.id = r.agent_id
         group by r.agent_id, g.name) a), '[]'),
    'by_workflow', coalesce((select jsonb_agg(w order by w.cost_usd desc) from (
        select e.workflow_id, f.name, count(*) as calls, sum(c.tokens_in) as tokens_in, sum(c.tokens_out) as tokens_out, sum(c.cost_usd) as cost_usd
          from calls c join ai.workflow_executions e on e.id::text = c.run_id left join ai.workflows f on f.id = e.workflow_id
         group by e.workflow_id, f.name) w), '[]'),
    'credits_usd', (select k.balance_usd from ai.credits k),
    'items', coalesce((select jsonb_agg(c order by c.created_at desc) from (
        select id, user_id, feature, run_id, step, model, provider, kind, tokens_in, tokens_out, latency_ms, cost_usd, ok, created_at
          from calls order by created_at desc limit coalesce(p_limit, 100)) c), '[]'))
$$;
