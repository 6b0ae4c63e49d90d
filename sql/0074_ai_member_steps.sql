-- A delegation's own checkpoints (issue 29, item 2): the member an
-- orchestration hands a task to, or the sub-agent an agent calls, stores
-- each of its steps as it completes (a model call's answer, a tool call's
-- result), as the run itself stores its own in ai.session_messages. When the
-- run resumes with a delegation in flight, the member goes on from its last
-- stored step: its completed model calls are not sent (nor charged) again,
-- its finished tool calls not run again, and its model reads the same
-- conversation. The messages stay with the run (deleted with it), so a user
-- sees what a member did.
--
-- Contents
--   1. ai.member_messages          a delegation's steps, readable as their run is
--   2. ai.record_member_message    stores one, only while the process storing it carries the run

-- 1 ---------------------------------------------------------------------------
-- `delegation` names the delegation within its run: an orchestration's
-- delegation id, or a sub-agent call's idempotency key (its place in the run,
-- the same when a resumed run makes the call again).
create table ai.member_messages (
  id bigint generated always as identity primary key,
  agent_run_id uuid references ai.agent_runs on delete cascade,
  orchestration_run_id uuid references ai.orchestration_runs on delete cascade,
  run_id uuid not null generated always as (coalesce(agent_run_id, orchestration_run_id)) stored,
  delegation text not null check (length(delegation) between 1 and 200),
  role text not null check (role in ('assistant', 'tool')),
  content text,
  tool_calls jsonb check (tool_calls is null or jsonb_typeof(tool_calls) = 'array'),
  tool_call_id text,
  name text,
  is_error boolean not null default false,
  latency_ms int,
  created_at timestamptz not null default now(),
  check (num_nonnulls(agent_run_id, orchestration_run_id) = 1)
);
create index member_messages_delegation on ai.member_messages (run_id, delegation, id);
create index member_messages_agent_run on ai.member_messages (agent_run_id) where agent_run_id is not null;
create index member_messages_orchestration_run on ai.member_messages (orchestration_run_id) where orchestration_run_id is not null;
alter table ai.member_messages enable row level security;
-- A user reads the member steps of the runs they can read (the run tables' policies decide).
create policy member_messages_read on ai.member_messages for select to authenticated using (
  (agent_run_id is not null and exists (select 1 from ai.agent_runs r where r.id = agent_run_id))
  or (orchestration_run_id is not null and exists (select 1 from ai.orchestration_runs r where r.id = orchestration_run_id)));
grant select on ai.member_messages to authenticated, service_role;
grant insert on ai.member_messages to service_role;

-- 2 ---------------------------------------------------------------------------
-- One step of a member, as the loop hands it over (role, content, tool_calls,
-- tool_call_id, name, is_error, latency_ms). Stored only while p_runner
-- carries the run: a process taken for dead, whose run another resumed,
-- stores nothing more (false: it stops), as its run's own messages.
create or replace function ai.record_member_message(p_kind text, p_run uuid, p_runner uuid, p_delegation text, p_message jsonb) returns boolean
language plpgsql
set search_path = ''
as $$
begin
  insert into ai.member_messages (agent_run_id, orchestration_run_id, delegation, role, content, tool_calls, tool_call_id, name, is_error, latency_ms)
  select case when p_kind = 'agent' then p_run end, case when p_kind = 'orchestration' then p_run end, p_delegation,
         p_message ->> 'role', p_message ->> 'content', nullif(p_message -> 'tool_calls', 'null'::jsonb), p_message ->> 'tool_call_id',
         p_message ->> 'name', coalesce((p_message ->> 'is_error')::boolean, false), (p_message ->> 'latency_ms')::int
   where (p_kind = 'agent' and exists (select 1 from ai.agent_runs r where r.id = p_run and r.runner = p_runner))
      or (p_kind = 'orchestration' and exists (select 1 from ai.orchestration_runs r where r.id = p_run and r.runner = p_runner));
  return found;
end
$$;
revoke execute on function ai.record_member_message(text, uuid, uuid, text, jsonb) from public;
grant execute on function ai.record_member_message(text, uuid, uuid, text, jsonb) to service_role;
