-- AI surface: the two cost functions every run calls, planned once per
-- connection instead of on every call. A `language sql` function with a
-- SET clause (here `set search_path = ''`) is never inlined, and before
-- PostgreSQL 18 its body is parsed and planned again each time the calling
-- statement runs: ai.usage_totals (twice a run: finishing it, then its
-- `usage` event) and ai.call_cost (once a model call) cost 0.1-0.15 ms each
-- that way under load, about a fifth of PostgreSQL's time in a one-call run
-- (`pg_stat_user_functions`, bench/RESULTS.md "Durable runs"). As plpgsql,
-- whose statements keep their plans for the session, they cost a few
-- microseconds. Same arguments, same answers.

-- The run's token and cost totals from the ledger (of the steps under a prefix, when given).
create or replace function ai.usage_totals(p_run uuid, p_step_prefix text default null)
returns table (tokens_in int, tokens_out int, cost_usd numeric)
language plpgsql stable
set search_path = ''
as $$
begin
  return query
  select coalesce(sum(u.tokens_in), 0)::int, coalesce(sum(u.tokens_out), 0)::int, coalesce(sum(u.cost_usd), 0)
    from ai.usage u
   where u.run_id = p_run::text and (p_step_prefix is null or starts_with(u.step, p_step_prefix));
end
$$;
revoke execute on function ai.usage_totals(uuid, text) from public;
grant execute on function ai.usage_totals(uuid, text) to service_role;

-- A call's price from the longest matching model prefix of its provider; 0 when none is priced.
create or replace function ai.call_cost(p_provider text, p_model text, p_in int, p_out int) returns numeric
language plpgsql stable
set search_path = ''
as $$
begin
  return coalesce((select (p_in * p.input_per_million + p_out * p.output_per_million) / 1000000
                     from ai.model_prices p
                    where p.provider = p_provider and starts_with(regexp_replace(p_model, '^(gemini/|openrouter/)', ''), p.model_prefix)
                    order by length(p.model_prefix) desc limit 1), 0);
end
$$;
revoke execute on function ai.call_cost(text, text, int, int) from public;
grant execute on function ai.call_cost(text, text, int, int) to authenticated, service_role;
