-- AI surface: the workflow copilot (spec 2.14, 4.16, 6.2).
--
--   1. ai.copilot_sessions        one per user and workflow; private to that user
--   2. ai.copilot_messages        the chat: user, assistant (tool calls, workflow_diff,
--                                 the proposed graph, snapshots, pending actions), tool
--   3. ai.copilot_models          the function-calling models the copilot may use
--   4. ai.set_copilot_model       PUT /api/copilot/settings/model: checked, then stored
--                                 as the copilot_model setting
--   5. ai.save_copilot_snapshot   the graph before and the proposal after, for undo
--   6. ai.settle_copilot_action   a pending manage_project_asset action, done or dropped once

create table ai.copilot_sessions (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  workflow_id uuid not null references ai.workflows on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- One session per user (or the project, for the service role) and workflow.
create unique index copilot_sessions_one on ai.copilot_sessions (coalesce(owner_id, '00000000-0000-0000-0000-000000000000'), workflow_id);
alter table ai.copilot_sessions enable row level security;
-- Private to their user; a session is only for a workflow the user can see.
create policy copilot_sessions_own on ai.copilot_sessions for all to authenticated
  using (ai.owns(owner_id))
  with check (ai.owns(owner_id) and exists (select 1 from ai.workflows w where w.id = workflow_id));
grant select, insert, delete on ai.copilot_sessions to authenticated;
grant select, insert, update, delete on ai.copilot_sessions to service_role;
grant update (updated_at) on ai.copilot_sessions to authenticated;
create trigger copilot_sessions_touch before update on ai.copilot_sessions for each row execute function ai.touch();

create table ai.copilot_messages (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity,
  session_id uuid not null references ai.copilot_sessions on delete cascade,
  role text not null check (role in ('user', 'assistant', 'tool')),
  content text,
  tool_calls jsonb check (tool_calls is null or jsonb_typeof(tool_calls) = 'array'),
  tool_call_id text,
  name text,
  is_error boolean not null default false,
  -- A completed assistant message: what it proposes against the state it was given.
  workflow_diff jsonb check (workflow_diff is null or jsonb_typeof(workflow_diff) = 'object'),
  proposed_state jsonb check (proposed_state is null or jsonb_typeof(proposed_state) = 'object'),
  -- manage_project_asset: {id, action, type, asset_id, fields, status: pending | done | dropped, result}.
  pending_action jsonb check (pending_action is null or jsonb_typeof(pending_action) = 'object'),
  -- The editor's graph before applying the proposal, and the proposal (for undo).
  pre_snapshot jsonb,
  post_snapshot jsonb,
  snapshot_at timestamptz,
  latency_ms int,
  created_at timestamptz not null default now()
);
create index copilot_messages_order on ai.copilot_messages (session_id, seq);
alter table ai.copilot_messages enable row level security;
create policy copilot_messages_own on ai.copilot_messages for all to authenticated
  using (exists (select 1 from ai.copilot_sessions s where s.id = session_id))
  with check (exists (select 1 from ai.copilot_sessions s where s.id = session_id));
-- Messages are written as the chat goes; snapshots and actions change only through the functions below.
grant select, insert on ai.copilot_messages to authenticated;
grant select, insert, update, delete on ai.copilot_messages to service_role;

create table ai.copilot_models (
  model text primary key,
  provider text not null check (provider in ('openai', 'anthropic', 'gemini', 'openrouter')),
  label text not null,
  position int not null
);
alter table ai.copilot_models enable row level security;
create policy copilot_models_read on ai.copilot_models for select to authenticated using (true);
grant select on ai.copilot_models to authenticated, service_role;
grant insert, update, delete on ai.copilot_models to service_role;
-- Models that call functions reliably enough to edit a graph (a DBA adds more here).
insert into ai.copilot_models (model, provider, label, position) values
  ('gpt-4.1', 'openai', 'GPT-4.1', 1),
  ('gpt-4.1-mini', 'openai', 'GPT-4.1 mini', 2),
  ('gpt-4o', 'openai', 'GPT-4o', 3),
  ('gpt-4o-mini', 'openai', 'GPT-4o mini', 4),
  ('o4-mini', 'openai', 'o4-mini', 5),
  ('claude-sonnet-4-5', 'anthropic', 'Claude Sonnet 4.5', 6),
  ('claude-opus-4-1', 'anthropic', 'Claude Opus 4.1', 7),
  ('claude-3-7-sonnet-latest', 'anthropic', 'Claude 3.7 Sonnet', 8),
  ('gemini/gemini-2.5-pro', 'gemini', 'Gemini 2.5 Pro', 9),
  ('gemini/gemini-2.5-flash', 'gemini', 'Gemini 2.5 Flash', 10),
  ('openrouter/openai/gpt-4.1', 'openrouter', 'GPT-4.1 through OpenRouter', 11),
  ('openrouter/anthropic/claude-sonnet-4.5', 'openrouter', 'Claude Sonnet 4.5 through OpenRouter', 12);

-- The copilot's model: one of ai.copilot_models (400 otherwise), kept as the
-- copilot_model setting. Project configuration: the service role only.
create or replace function ai.set_copilot_model(p_model text) returns text
language plpgsql volatile
set search_path = ''
as $$
begin
  if auth.role() is distinct from 'service_role' then
    perform auth.raise_error(403, 'FORBIDDEN', 'Only the service role changes the copilot model');
  end if;
  if p_model is null or p_model = '' then perform auth.raise_error(400, 'VALIDATION_ERROR', 'model is required'); end if;
  if not exists (select 1 from ai.copilot_models m where m.model = p_model) then
    perform auth.raise_error(400, 'VALIDATION_ERROR', format('model %s is not an allowed copilot model (see GET /api/copilot/settings/model)', p_model));
  end if;
  insert into ai.setting_overrides (key, value, updated_by) values ('copilot_model', p_model, auth.uid())
  on conflict (key) do update set value = excluded.value, secret = null, masked = null, updated_at = now(), updated_by = excluded.updated_by;
  return p_model;
end
$$;
revoke execute on function ai.set_copilot_model(text) from public;
grant execute on function ai.set_copilot_model(text) to authenticated, service_role;

-- Saves the editor's graph before applying a message's proposal, and the
-- proposal itself. 404 unless it is the caller's assistant message.
create or replace function ai.save_copilot_snapshot(p_session uuid, p_message uuid, p_pre jsonb) returns ai.copilot_messages
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  m ai.copilot_messages;
begin
  if p_pre is null then perform auth.raise_error(400, 'VALIDATION_ERROR', 'pre_snapshot is required'); end if;
  update ai.copilot_messages x set pre_snapshot = p_pre, post_snapshot = x.proposed_state, snapshot_at = now()
    from ai.copilot_sessions s
   where x.id = p_message and x.session_id = p_session and x.role = 'assistant' and s.id = x.session_id
     and (auth.role() = 'service_role' or ai.owns(s.owner_id))
  returning x.* into m;
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'Message not found'); end if;
  return m;
end
$$;
revoke execute on function ai.save_copilot_snapshot(uuid, uuid, jsonb) from public;
grant execute on function ai.save_copilot_snapshot(uuid, uuid, jsonb) to authenticated, service_role;

-- Marks a pending action done (with its result) or dropped, once: false when
-- it is not pending (already settled, or not the caller's).
create or replace function ai.settle_copilot_action(p_message uuid, p_status text, p_result jsonb) returns boolean
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  if p_status not in ('done', 'dropped', 'failed') then perform auth.raise_error(400, 'VALIDATION_ERROR', 'status must be done, dropped or failed'); end if;
  update ai.copilot_messages x
     set pending_action = x.pending_action || jsonb_build_object('status', p_status, 'result', p_result, 'settled_at', now())
    from ai.copilot_sessions s
   where x.id = p_message and s.id = x.session_id and x.pending_action ->> 'status' = 'pending'
     and (auth.role() = 'service_role' or ai.owns(s.owner_id));
  return found;
end
$$;
revoke execute on function ai.settle_copilot_action(uuid, text, jsonb) from public;
grant execute on function ai.settle_copilot_action(uuid, text, jsonb) to authenticated, service_role;
