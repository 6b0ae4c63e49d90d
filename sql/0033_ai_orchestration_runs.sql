-- AI surface: orchestration runs and their delegations (spec 2.4b, 4.10).
--
--   1. ai.sessions / ai.session_messages  also hold orchestration conversations
--   2. ai.orchestration_runs        one run: the coordinator's input, output, totals
--   3. ai.orchestration_delegations each hand-off to a member agent: task, output, totals
--   4. ai.finish_orchestration_run  the run's end, with the ledger's totals, once
--   5. ai.finish_delegation         a delegation's end, with its share of the ledger, once
--
-- Every model call of a run (coordinator and members) is in the ledger under
-- the run's id; a member's calls carry the step `<delegation id>/step-<n>`,
-- so a delegation's totals are its rows. Runs are private to the user who
-- starts them, as sessions are.

-- Runs add up their ledger rows when they end.
create index usage_run on ai.usage (run_id) where run_id is not null;

alter table ai.sessions add column orchestration_id uuid references ai.orchestrations on delete set null;

create table ai.orchestration_runs (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  orchestration_id uuid references ai.orchestrations on delete set null,
  session_id uuid references ai.sessions on delete set null,
  status text not null default 'running' check (status in ('running', 'completed', 'failed')),
  input text not null,
  output text,
  error text,
  stop_reason text check (stop_reason in ('answered', 'max_steps')),
  steps int not null default 0,
  tokens_in int not null default 0,
  tokens_out int not null default 0,
  cost_usd numeric(14, 6) not null default 0,
  started_at timestamptz not null default now(),
  finished_at timestamptz
);
create index orchestration_runs_owner on ai.orchestration_runs (owner_id, started_at desc);
alter table ai.orchestration_runs enable row level security;
create policy orchestration_runs_own on ai.orchestration_runs for all to authenticated using (ai.owns(owner_id)) with check (ai.owns(owner_id));
grant select, insert on ai.orchestration_runs to authenticated, service_role;
grant update, delete on ai.orchestration_runs to service_role;

-- A coordinator's messages belong to its run (agent runs' to theirs).
alter table ai.session_messages add column orchestration_run_id uuid references ai.orchestration_runs on delete cascade;

create table ai.orchestration_delegations (
  id uuid primary key default gen_random_uuid(),
  run_id uuid not null references ai.orchestration_runs on delete cascade,
  entity_id uuid references ai.orchestration_entities on delete set null,
  agent_id uuid references ai.agents on delete set null,
  agent_name text not null,
  -- The coordinator's tool call that asked for it.
  tool_call_id text,
  task text not null,
  status text not null default 'running' check (status in ('running', 'completed', 'failed')),
  output text,
  error text,
  stop_reason text check (stop_reason in ('answered', 'max_steps')),
  steps int not null default 0,
  tool_calls jsonb not null default '[]' check (jsonb_typeof(tool_calls) = 'array'),
  tokens_in int not null default 0,
  tokens_out int not null default 0,
  cost_usd numeric(14, 6) not null default 0,
  started_at timestamptz not null default now(),
  finished_at timestamptz
);
create index orchestration_delegations_run on ai.orchestration_delegations (run_id, started_at);
alter table ai.orchestration_delegations enable row level security;
create policy orchestration_delegations_read on ai.orchestration_delegations for select to authenticated
  using (exists (select 1 from ai.orchestration_runs r where r.id = run_id));
grant select on ai.orchestration_delegations to authenticated;
grant select, insert, update, delete on ai.orchestration_delegations to service_role;

create or replace function ai.finish_orchestration_run(p_run uuid, p_status text, p_output text, p_error text, p_stop text, p_steps int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update ai.orchestration_runs r
     set status = p_status, output = p_output, error = p_error, stop_reason = p_stop, steps = p_steps, finished_at = now(),
         tokens_in = coalesce(u.tokens_in, 0), tokens_out = coalesce(u.tokens_out, 0), cost_usd = coalesce(u.cost, 0)
    from (select sum(tokens_in)::int as tokens_in, sum(tokens_out)::int as tokens_out, sum(cost_usd) as cost
            from ai.usage where run_id = p_run::text) u
   where r.id = p_run and r.status = 'running';
  return found;
end
$$;
revoke execute on function ai.finish_orchestration_run(uuid, text, text, text, text, int) from public;
grant execute on function ai.finish_orchestration_run(uuid, text, text, text, text, int) to service_role;

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
         tokens_in = coalesce(u.tokens_in, 0), tokens_out = coalesce(u.tokens_out, 0), cost_usd = coalesce(u.cost, 0)
    from (select sum(tokens_in)::int as tokens_in, sum(tokens_out)::int as tokens_out, sum(cost_usd) as cost
            from ai.usage
           where run_id = (select run_id::text from ai.orchestration_delegations where id = p_delegation)
             and step like p_delegation::text || '/%') u
   where x.id = p_delegation and x.status = 'running'
  returning x.* into d;
  return d;
end
$$;
revoke execute on function ai.finish_delegation(uuid, text, text, text, text, int, jsonb) from public;
grant execute on function ai.finish_delegation(uuid, text, text, text, text, int, jsonb) to service_role;
