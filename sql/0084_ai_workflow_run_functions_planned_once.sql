-- AI surface: the two SQL functions of every workflow run that were
-- planned again on each call, in plpgsql (why: sql/0083, sql/CONVENTIONS.md
-- "Security"). A webhook run calls both: ai.record_webhook_execution (its
-- execution row, with the graph of the deployed version) and
-- ai.start_execution (queued -> running); as `language sql` with a SET
-- clause they cost about 0.3 and 0.2 ms of PostgreSQL's time a run under
-- load (`pg_stat_user_functions`, bench:workflows). Same arguments, same
-- answers.

-- A webhook's execution row, of the version the webhook serves; no row when the workflow is gone.
create or replace function ai.record_webhook_execution(p_workflow_id uuid, p_variables jsonb, p_version int)
returns table (id uuid, version int, graph jsonb, user_id uuid, acts_as text)
language plpgsql
set search_path = ''
as $$
begin
  insert into ai.workflow_executions as e (workflow_id, user_id, acts_as, trigger, variables, version, graph)
  select w.id, w.owner_id, case when w.owner_id is null then 'project' else 'user' end, 'webhook', p_variables, p_version,
         coalesce((select v.graph from ai.workflow_versions v where v.workflow_id = w.id and v.version = p_version), ai.graph_json(w.id))
    from ai.workflows w
   where w.id = p_workflow_id
  returning e.id, e.version, e.graph, e.user_id, e.acts_as into id, version, graph, user_id, acts_as;
  if found then
    return next;
  end if;
end
$$;
revoke execute on function ai.record_webhook_execution(uuid, jsonb, int) from public;
grant execute on function ai.record_webhook_execution(uuid, jsonb, int) to service_role;

-- queued -> running, by this runner; false when the execution was not queued.
create or replace function ai.start_execution(p_id uuid, p_runner uuid) returns boolean
language plpgsql
set search_path = ''
as $$
begin
  update ai.workflow_executions e set status = 'running', runner = p_runner, started_at = now()
   where e.id = p_id and e.status = 'queued';
  return found;
end
$$;
revoke execute on function ai.start_execution(uuid, uuid) from public;
grant execute on function ai.start_execution(uuid, uuid) to service_role;
