-- AI surface: workflow versions and webhook activation (spec 3.4).
--
--   1. ai.workflow_versions       immutable numbered snapshots of the draft graph
--   2. ai.deploy_workflow         snapshot + activate + webhook on; ai.undeploy_workflow
--   3. ai.activate_version        roll back (or forward) to a version
--   4. ai.arm_workflow            open the 10-minute single-use window
--   5. ai.consume_arm             the one call that uses it: one guarded statement
--
-- Each changes one workflow the caller owns (the service role: any); another
-- user's workflow is 404, a project workflow a user only reads is 403.

create table ai.workflow_versions (
  workflow_id uuid not null references ai.workflows on delete cascade,
  version int not null check (version > 0),
  graph jsonb not null,
  created_at timestamptz not null default now(),
  created_by uuid default auth.uid(),
  primary key (workflow_id, version)
);
alter table ai.workflow_versions enable row level security;
create policy versions_read on ai.workflow_versions for select to authenticated using (exists (select 1 from ai.workflows w where w.id = workflow_id));
create policy versions_insert on ai.workflow_versions for insert to authenticated
  with check (exists (select 1 from ai.workflows w where w.id = workflow_id and ai.owns(w.owner_id)));
-- Versions never change: no update or delete policy, and no grant for them.
grant select, insert on ai.workflow_versions to authenticated, service_role;

-- The workflow a change is for, locked, after the access check.
create or replace function ai.workflow_for_change(p_workflow uuid) returns ai.workflows
language plpgsql
set search_path = ''
as $$
declare
  wf ai.workflows;
begin
  select * into wf from ai.workflows w where w.id = p_workflow;
  if not found then perform auth.raise_error(404, 'WORKFLOW_NOT_FOUND', 'Workflow not found'); end if;
  if auth.role() is distinct from 'service_role' and not ai.owns(wf.owner_id) then
    perform auth.raise_error(403, 'FORBIDDEN', 'You can only change your own workflows');
  end if;
  -- Locked only now: FOR UPDATE sees just the rows the caller may change.
  perform 1 from ai.workflows w where w.id = p_workflow for update;
  return wf;
end
$$;

-- Deploy: the draft becomes version n+1, active, and the webhook accepts calls.
create or replace function ai.deploy_workflow(p_workflow uuid) returns table (version int, deployed boolean)
language plpgsql
set search_path = ''
as $$
declare
  next_version int;
begin
  perform ai.workflow_for_change(p_workflow);
  select coalesce(max(v.version), 0) + 1 into next_version from ai.workflow_versions v where v.workflow_id = p_workflow;
  insert into ai.workflow_versions (workflow_id, version, graph) values (p_workflow, next_version, ai.graph_json(p_workflow));
  update ai.workflows w set deployed = true, active_version = next_version where w.id = p_workflow;
  return query select next_version, true;
end
$$;

create or replace function ai.undeploy_workflow(p_workflow uuid) returns boolean
language plpgsql
set search_path = ''
as $$
begin
  perform ai.workflow_for_change(p_workflow);
  update ai.workflows w set deployed = false where w.id = p_workflow;
  return false;
end
$$;

-- Which version deployed calls run; 404 for a version that does not exist.
create or replace function ai.activate_version(p_workflow uuid, p_version int) returns int
language plpgsql
set search_path = ''
as $$
begin
  perform ai.workflow_for_change(p_workflow);
  if not exists (select 1 from ai.workflow_versions v where v.workflow_id = p_workflow and v.version = p_version) then
    perform auth.raise_error(404, 'VERSION_NOT_FOUND', format('Version %s not found', p_version));
  end if;
  update ai.workflows w set active_version = p_version where w.id = p_workflow;
  return p_version;
end
$$;

-- Arm: a window of 10 minutes in which exactly one webhook call runs the draft.
create or replace function ai.arm_workflow(p_workflow uuid) returns timestamptz
language plpgsql
set search_path = ''
as $$
declare
  until timestamptz := now() + interval '10 minutes';
begin
  perform ai.workflow_for_change(p_workflow);
  update ai.workflows w set armed_until = until where w.id = p_workflow;
  return until;
end
$$;

-- Uses the arm window: true for the one call that finds it open (it closes
-- with that call); false for every other, however many come at once.
create or replace function ai.consume_arm(p_workflow uuid) returns boolean
language sql
set search_path = ''
as $$
  with used as (
    update ai.workflows w set armed_until = null
     where w.id = p_workflow and w.armed_until > now()
    returning 1
  )
  select exists (select 1 from used)
$$;

revoke execute on function ai.workflow_for_change(uuid), ai.deploy_workflow(uuid), ai.undeploy_workflow(uuid), ai.activate_version(uuid, int),
  ai.arm_workflow(uuid), ai.consume_arm(uuid) from public;
grant execute on function ai.workflow_for_change(uuid), ai.deploy_workflow(uuid), ai.undeploy_workflow(uuid), ai.activate_version(uuid, int),
  ai.arm_workflow(uuid) to authenticated, service_role;
grant execute on function ai.consume_arm(uuid) to service_role;
