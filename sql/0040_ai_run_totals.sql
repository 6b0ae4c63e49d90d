-- AI surface: one reading of the ledger for every run record, and one check
-- of an extraction model (review of issues 14 and 16).
--
--   1. ai.usage_totals            tokens and cost of a run's ledger rows (optionally one step prefix)
--   2. ai.finish_agent_run, ai.finish_orchestration_run, ai.finish_delegation  read it
--   3. ai.check_extraction_model  400 naming the engines; queue_extraction and uploads use it

create or replace function ai.usage_totals(p_run uuid, p_step_prefix text default null)
returns table (tokens_in int, tokens_out int, cost_usd numeric)
language sql stable
set search_path = ''
as $$
  select coalesce(sum(u.tokens_in), 0)::int, coalesce(sum(u.tokens_out), 0)::int, coalesce(sum(u.cost_usd), 0)
    from ai.usage u
   where u.run_id = p_run::text and (p_step_prefix is null or starts_with(u.step, p_step_prefix))
$$;
revoke execute on function ai.usage_totals(uuid, text) from public;
grant execute on function ai.usage_totals(uuid, text) to service_role;

create or replace function ai.finish_agent_run(p_run uuid, p_status text, p_output text, p_error text, p_stop text, p_steps int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update ai.agent_runs r
     set status = p_status, output = p_output, error = p_error, stop_reason = p_stop, steps = p_steps, finished_at = now(),
         tokens_in = u.tokens_in, tokens_out = u.tokens_out, cost_usd = u.cost_usd
    from ai.usage_totals(p_run) u
   where r.id = p_run and r.status in ('running', 'waiting_approval');
  return found;
end
$$;

create or replace function ai.finish_orchestration_run(p_run uuid, p_status text, p_output text, p_error text, p_stop text, p_steps int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update ai.orchestration_runs r
     set status = p_status, output = p_output, error = p_error, stop_reason = p_stop, steps = p_steps, finished_at = now(),
         tokens_in = u.tokens_in, tokens_out = u.tokens_out, cost_usd = u.cost_usd
    from ai.usage_totals(p_run) u
   where r.id = p_run and r.status = 'running';
  return found;
end
$$;

-- A delegation's share: the run's rows whose step is `<delegation id>/...`.
create or replace function ai.finish_delegation(p_delegation uuid, p_status text, p_output text, p_error text, p_stop text, p_steps int, p_tool_calls jsonb)
returns ai.orchestration_delegations
language plpgsql volatile
set search_path = ''
as $$
declare
  d ai.orchestration_delegations;
begin
  update ai.orchestration_delegations x
     set status = p_status, output = p_output, error = p_error, stop_reason = p_stop, steps = p_steps,
         tool_calls = coalesce(p_tool_calls, '[]'), finished_at = now(),
         tokens_in = u.tokens_in, tokens_out = u.tokens_out, cost_usd = u.cost_usd
    from ai.usage_totals((select run_id from ai.orchestration_delegations where id = p_delegation), p_delegation::text || '/') u
   where x.id = p_delegation and x.status = 'running'
  returning x.* into d;
  return d;
end
$$;

create or replace function ai.check_extraction_model(p_model text) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if p_model is not null and not exists (select 1 from ai.extraction_methods m where m.name = p_model) then
    perform auth.raise_error(400, 'VALIDATION_ERROR', format('Invalid extraction_model "%s": use one of %s', p_model,
      (select string_agg(m.name, ', ' order by m.position) from ai.extraction_methods m)));
  end if;
end
$$;
revoke execute on function ai.check_extraction_model(text) from public;
grant execute on function ai.check_extraction_model(text) to authenticated, service_role;

create or replace function ai.queue_extraction(p_source uuid, p_model text) returns int
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_run int;
begin
  if not ai.may_change_source(p_source) then perform auth.raise_error(404, 'NOT_FOUND', 'Source not found'); end if;
  perform ai.check_extraction_model(p_model);
  update ai.sources s
     set extraction_status = 'pending', extraction_run = s.extraction_run + case when s.extraction_status = 'pending' and s.extraction_started_at is null then 0 else 1 end,
         extraction_model = coalesce(p_model, s.extraction_model), extraction_message = null, extraction_engine = null,
         pages_total = null, pages_done = 0, extraction_started_at = null, extracted_at = null
   where s.id = p_source
  returning s.extraction_run into v_run;
  perform graphile_worker.add_job('ai_source_extract', json_build_object('source_id', p_source, 'run', v_run),
    job_key := 'source:' || p_source::text, job_key_mode := 'replace', max_attempts := 3);
  return v_run;
end
$$;
