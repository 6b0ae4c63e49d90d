-- AI surface: sessions, their messages and agent runs (spec 2.9, 4.9, 4.14).
--
--   1. ai.sessions          a conversation, owned by the user it is for; spans runs
--   2. ai.session_messages  user, assistant, tool-call and tool-result messages in order
--   3. ai.agent_runs        one run of an agent in a session; running → completed | failed
--   4. ai.finish_agent_run  the run's end as one guarded statement, with its usage totals
--
-- Conversations are private: unlike project resources, a session made with the
-- service-role key (no user) is seen by the service role only.

create table ai.sessions (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  agent_id uuid references ai.agents on delete set null,
  title text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index sessions_owner on ai.sessions (owner_id, updated_at desc);
alter table ai.sessions enable row level security;
create policy sessions_own on ai.sessions for all to authenticated using (ai.owns(owner_id)) with check (ai.owns(owner_id));
grant select, insert, update, delete on ai.sessions to authenticated, service_role;
create trigger sessions_touch before update on ai.sessions for each row execute function ai.touch();

create table ai.agent_runs (
  id uuid primary key default gen_random_uuid(),
  session_id uuid not null references ai.sessions on delete cascade,
  agent_id uuid references ai.agents on delete set null,
  status text not null default 'running' check (status in ('running', 'completed', 'failed')),
  input text not null,
  output text,
  error text,
  -- Why a completed run stopped: the model answered, or the step cap was reached.
  stop_reason text check (stop_reason in ('answered', 'max_steps')),
  steps int not null default 0,
  tokens_in int not null default 0,
  tokens_out int not null default 0,
  cost_usd numeric(14, 6) not null default 0,
  started_at timestamptz not null default now(),
  finished_at timestamptz
);
create index agent_runs_session on ai.agent_runs (session_id, started_at);
alter table ai.agent_runs enable row level security;
create policy agent_runs_own on ai.agent_runs for all to authenticated
  using (exists (select 1 from ai.sessions s where s.id = session_id))
  with check (exists (select 1 from ai.sessions s where s.id = session_id));
grant select, insert on ai.agent_runs to authenticated, service_role;
grant update, delete on ai.agent_runs to service_role;

create table ai.session_messages (
  id bigint generated always as identity primary key,
  session_id uuid not null references ai.sessions on delete cascade,
  run_id uuid references ai.agent_runs on delete cascade,
  role text not null check (role in ('user', 'assistant', 'tool')),
  content text,
  -- An assistant message's tool calls: [{id, name, arguments}].
  tool_calls jsonb check (tool_calls is null or jsonb_typeof(tool_calls) = 'array'),
  -- A tool message answers this call.
  tool_call_id text,
  name text,
  is_error boolean not null default false,
  retrieved_context jsonb not null default '[]' check (jsonb_typeof(retrieved_context) = 'array'),
  created_at timestamptz not null default now()
);
create index session_messages_order on ai.session_messages (session_id, id);
alter table ai.session_messages enable row level security;
create policy session_messages_own on ai.session_messages for all to authenticated
  using (exists (select 1 from ai.sessions s where s.id = session_id))
  with check (exists (select 1 from ai.sessions s where s.id = session_id));
grant select, insert on ai.session_messages to authenticated, service_role;
grant delete on ai.session_messages to service_role;

-- Ends a running run: completed with its output, or failed with its error.
-- Tokens and cost are the run's rows in the usage ledger. A run already ended
-- is left as it is (false).
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
   where r.id = p_run and r.status = 'running';
  return found;
end
$$;
revoke execute on function ai.finish_agent_run(uuid, text, text, text, text, int) from public;
grant execute on function ai.finish_agent_run(uuid, text, text, text, text, int) to service_role;
