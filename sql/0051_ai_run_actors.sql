-- Every workflow run says whom it acts as (issue: containment, item 1).
--
-- A run used to carry only user_id, and a null user_id meant "the project":
-- a webhook run (which has no user) acted as the service role, past RLS, for
-- any signed-in user who could deploy their own webhook. Now:
--   1. ai.workflow_executions.acts_as   'user' (with user_id) or 'project';
--      no default that guesses: a request's insert takes ai.caller_actor(),
--      which is 'project' only for the service role and refuses a caller
--      that is neither a user nor the service role.
--   2. ai.record_webhook_execution      a webhook or arm run acts as the
--      workflow's owner (recorded as the run's user, so the owner sees it);
--      as the project only when the workflow has no owner (a project workflow).
--   3. ai.workflow_executions_for       the runs of a workflow the caller can
--      see: unknown or hidden workflow is 404, not an empty list.

-- 1 ---------------------------------------------------------------------------
-- The actor of the statement's caller: the service role acts as the project,
-- a signed-in user as themselves; anything else may not start a run.
create or replace function ai.caller_actor() returns text
language plpgsql
stable
set search_path = ''
as $$
begin
  if auth.role() = 'service_role' then return 'project'; end if;
  if auth.uid() is not null then return 'user'; end if;
  perform auth.raise_error(403, 'FORBIDDEN', 'A run needs a signed-in user or the service-role key');
end
$$;

alter table ai.workflow_executions add column acts_as text check (acts_as in ('user', 'project'));
update ai.workflow_executions set acts_as = case when user_id is null then 'project' else 'user' end;
alter table ai.workflow_executions alter column acts_as set not null;
alter table ai.workflow_executions alter column acts_as set default ai.caller_actor();
-- A user run names its user; a project run names none.
alter table ai.workflow_executions add constraint workflow_executions_actor check ((acts_as = 'user') = (user_id is not null));

-- 2 ---------------------------------------------------------------------------
-- A webhook call (or an arm window's one call) records its run: the active
-- version's graph (p_version) or the draft's, acting as the workflow's owner.
-- Called by the server as the service role after the secret and the
-- deployed-or-armed gate (server/ai/workflows/runs.ts).
create or replace function ai.record_webhook_execution(p_workflow_id uuid, p_variables jsonb, p_version int)
returns table (id uuid, version int, graph jsonb, user_id uuid, acts_as text)
language sql
set search_path = ''
as $$
  insert into ai.workflow_executions as e (workflow_id, user_id, acts_as, trigger, variables, version, graph)
  select w.id, w.owner_id, case when w.owner_id is null then 'project' else 'user' end, 'webhook', p_variables, p_version,
         coalesce((select v.graph from ai.workflow_versions v where v.workflow_id = w.id and v.version = p_version), ai.graph_json(w.id))
    from ai.workflows w
   where w.id = p_workflow_id
  returning e.id, e.version, e.graph, e.user_id, e.acts_as
$$;
revoke execute on function ai.record_webhook_execution(uuid, jsonb, int) from public;
grant execute on function ai.record_webhook_execution(uuid, jsonb, int) to service_role;

-- 3 ---------------------------------------------------------------------------
-- The caller's runs of a workflow, newest first; 404 when the caller cannot
-- see the workflow (a stranger's workflow is indistinguishable from none).
create or replace function ai.workflow_executions_for(p_workflow_id uuid, p_limit int)
returns setof ai.workflow_executions
language plpgsql
stable
set search_path = ''
as $$
begin
  if not exists (select 1 from ai.workflows w where w.id = p_workflow_id) then
    perform auth.raise_error(404, 'WORKFLOW_NOT_FOUND', 'Workflow not found');
  end if;
  return query select e.* from ai.workflow_executions e where e.workflow_id = p_workflow_id order by e.created_at desc, e.id limit p_limit;
end
$$;
grant execute on function ai.workflow_executions_for(uuid, int) to authenticated, service_role;
