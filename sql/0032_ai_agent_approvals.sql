-- AI surface: human approvals of an agent run (spec 2.3b, approval hooks).
--
--   1. ai.agent_runs.status    gains waiting_approval: the run is paused on a human
--   2. ai.agent_run_approvals  one pending question: the hook, the tool call, the message, its deadline
--   3. ai.request_approval     the server opens one and pauses the run (service role)
--   4. ai.decide_approval      the run's owner answers approve | deny, once, before the deadline
--   5. ai.expire_approval      the deadline passed: denied as timed_out, once
--   6. ai.session_messages.latency_ms  how long a model turn or a tool call took (the run record)
--
-- Each change is one guarded statement on status = 'pending', so an answer
-- and a timeout racing each other cannot both win. The paused run watches its
-- row (any replica may take the answer).

alter table ai.agent_runs drop constraint agent_runs_status_check;
alter table ai.agent_runs add constraint agent_runs_status_check check (status in ('running', 'waiting_approval', 'completed', 'failed'));

-- A paused run may still end (its server stops it): finish accepts both live states.
create or replace function ai.finish_agent_run(p_run uuid, p_status text, p_output text, p_error text, p_stop text, p_steps int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update ai.agent_runs r
     set status = p_status, output = p_output, error = p_error, stop_reason = p_stop, steps = p_steps, finished_at = now(),
         tokens_in = coalesce(u.tokens_in, 0), tokens_out = coalesce(u.tokens_out, 0), cost_usd = coalesce(u.cost, 0)
    from (select sum(tokens_in)::int as tokens_in, sum(tokens_out)::int as tokens_out, sum(cost_usd) as cost
            from ai.usage where run_id = p_run::text) u
   where r.id = p_run and r.status in ('running', 'waiting_approval');
  return found;
end
$$;

create table ai.agent_run_approvals (
  id uuid primary key default gen_random_uuid(),
  run_id uuid not null references ai.agent_runs on delete cascade,
  hook_id uuid references ai.agent_hooks on delete set null,
  event text not null,
  -- The tool call waiting on the answer (null on events without one).
  tool_call_id text,
  tool_name text,
  arguments jsonb,
  message text,
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied', 'timed_out')),
  -- An approver may change the call's arguments (an object) when approving.
  decided_arguments jsonb check (decided_arguments is null or jsonb_typeof(decided_arguments) = 'object'),
  decided_by uuid,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  decided_at timestamptz
);
create index agent_run_approvals_run on ai.agent_run_approvals (run_id, created_at);
alter table ai.agent_run_approvals enable row level security;
-- Read as the run is (through its session); changed only through the functions below.
create policy agent_run_approvals_read on ai.agent_run_approvals for select to authenticated
  using (exists (select 1 from ai.agent_runs r where r.id = run_id));
grant select on ai.agent_run_approvals to authenticated;
grant select, insert, update, delete on ai.agent_run_approvals to service_role;

-- Opens an approval and marks its run waiting. p_timeout is seconds (the
-- hook's config.timeout, default 300), bounded to a day.
create or replace function ai.request_approval(p_run uuid, p_hook uuid, p_event text, p_tool_call_id text, p_tool_name text, p_arguments jsonb, p_message text, p_timeout int)
returns ai.agent_run_approvals
language plpgsql volatile
set search_path = ''
as $$
declare
  a ai.agent_run_approvals;
begin
  insert into ai.agent_run_approvals (run_id, hook_id, event, tool_call_id, tool_name, arguments, message, expires_at)
  values (p_run, p_hook, p_event, p_tool_call_id, p_tool_name, p_arguments, p_message,
          now() + make_interval(secs => least(greatest(coalesce(p_timeout, 300), 1), 86400)))
  returning * into a;
  update ai.agent_runs set status = 'waiting_approval' where id = p_run and status = 'running';
  return a;
end
$$;
revoke execute on function ai.request_approval(uuid, uuid, text, text, text, jsonb, text, int) from public;
grant execute on function ai.request_approval(uuid, uuid, text, text, text, jsonb, text, int) to service_role;

-- The run goes back to running once nothing of it waits any more.
create or replace function ai.resume_if_answered(p_run uuid) returns void
language sql volatile
set search_path = ''
as $$
  update ai.agent_runs r set status = 'running'
   where r.id = p_run and r.status = 'waiting_approval'
     and not exists (select 1 from ai.agent_run_approvals a where a.run_id = p_run and a.status = 'pending');
$$;
revoke execute on function ai.resume_if_answered(uuid) from public;
grant execute on function ai.resume_if_answered(uuid) to service_role;

-- The answer to an approval, by the owner of the run's session (or the
-- service role). 404 when the caller cannot see it under this agent and run,
-- 400 for a bad decision or arguments, 409 when it was answered or expired.
create or replace function ai.decide_approval(p_agent uuid, p_run uuid, p_approval uuid, p_decision text, p_arguments jsonb)
returns ai.agent_run_approvals
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  a ai.agent_run_approvals;
begin
  select ap.* into a
    from ai.agent_run_approvals ap
    join ai.agent_runs r on r.id = ap.run_id
    join ai.sessions s on s.id = r.session_id
   where ap.id = p_approval and ap.run_id = p_run and r.agent_id = p_agent
     and (auth.role() = 'service_role' or ai.owns(s.owner_id));
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'Approval not found'); end if;
  if p_decision is null or p_decision not in ('approve', 'deny') then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'decision must be "approve" or "deny"');
  end if;
  if p_arguments is not null and jsonb_typeof(p_arguments) <> 'object' then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'arguments must be an object');
  end if;
  if a.status <> 'pending' then
    perform auth.raise_error(409, 'APPROVAL_ALREADY_DECIDED', format('This approval was already answered: %s', a.status));
  end if;
  if a.expires_at <= now() then
    perform auth.raise_error(409, 'APPROVAL_EXPIRED', 'This approval timed out and the call was denied');
  end if;
  update ai.agent_run_approvals ap
     set status = case p_decision when 'approve' then 'approved' else 'denied' end,
         decided_arguments = case when p_decision = 'approve' then p_arguments end,
         decided_by = auth.uid(), decided_at = now()
   where ap.id = p_approval and ap.status = 'pending'
  returning * into a;
  if not found then perform auth.raise_error(409, 'APPROVAL_ALREADY_DECIDED', 'This approval was already answered'); end if;
  perform ai.resume_if_answered(p_run);
  return a;
end
$$;
revoke execute on function ai.decide_approval(uuid, uuid, uuid, text, jsonb) from public;
grant execute on function ai.decide_approval(uuid, uuid, uuid, text, jsonb) to authenticated, service_role;

-- The deadline passed with no answer: denied as timed_out. False when it was
-- answered first (or is not yet due).
create or replace function ai.expire_approval(p_approval uuid) returns boolean
language plpgsql volatile
set search_path = ''
as $$
declare
  v_run uuid;
begin
  update ai.agent_run_approvals set status = 'timed_out', decided_at = now()
   where id = p_approval and status = 'pending' and expires_at <= now()
  returning run_id into v_run;
  if v_run is null then return false; end if;
  perform ai.resume_if_answered(v_run);
  return true;
end
$$;
revoke execute on function ai.expire_approval(uuid) from public;
grant execute on function ai.expire_approval(uuid) to service_role;

alter table ai.session_messages add column latency_ms int check (latency_ms >= 0);
