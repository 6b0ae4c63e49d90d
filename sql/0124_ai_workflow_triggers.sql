-- Workflows that start by themselves (issue 50, item 5): besides its
-- webhook and API calls, a workflow's trigger can be
--   schedule    cron syntax, a job in cron.job (sql/0121) calling
--               ai.start_triggered_run at each tick
--   row_change  a row trigger on a table (INSERT, UPDATE, DELETE), with an
--               optional condition: a JSON object the change must contain;
--               the run's input is the change in the Database Webhook
--               shape {type, table, schema, record, old_record}
--   queue       a pgmq queue (sql/0119): each message one run, archived when
--               the run succeeds, visible again when it fails, sent to a
--               dead-letter queue after max_attempts
-- Each run is recorded and queued for a worker in the same transaction as
-- what started it (a rolled-back insert starts nothing), acts as the
-- workflow's owner, runs its active deployed version (deploying moves the
-- trigger to the new one; undeployed, nothing starts), and is durable like
-- every queued run. A DBA declares triggers in SQL
-- (ai.add_workflow_trigger in a migration) as the API does.
--
--   ai.workflow_triggers          one row per trigger
--   ai.add_workflow_trigger       validates and installs one
--   ai.remove_workflow_trigger    uninstalls one
--   ai.start_triggered_run        records and queues a run (null when undeployed)
--   ai.workflow_row_changed       the row trigger
--   ai.take_queue_runs            the queue consumer the workers call
--   ai.settle_queue_message       a queue run's end: archive, retry or dead-letter

create table ai.workflow_triggers (
  id uuid primary key default gen_random_uuid(),
  workflow_id uuid not null references ai.workflows on delete cascade,
  type text not null check (type in ('schedule', 'row_change', 'queue')),
  config jsonb not null,
  cron_jobid bigint,
  created_at timestamptz not null default now()
);
create index workflow_triggers_workflow on ai.workflow_triggers (workflow_id);
alter table ai.workflow_triggers enable row level security;
create policy workflow_triggers_read on ai.workflow_triggers for select to authenticated
  using (exists (select 1 from ai.workflows w where w.id = workflow_id));
grant select on ai.workflow_triggers to authenticated, service_role;

alter table ai.workflow_executions drop constraint workflow_executions_trigger_check,
  add constraint workflow_executions_trigger_check check (trigger in ('manual', 'stream', 'async', 'webhook', 'schedule', 'row_change', 'queue'));
alter table ai.workflow_executions add column trigger_id uuid references ai.workflow_triggers on delete set null,
  add column trigger_message bigint;
create index workflow_executions_trigger on ai.workflow_executions (trigger_id) where trigger_id is not null;
comment on column ai.workflow_executions.trigger_message is 'For a queue trigger''s run: the pgmq message it carries';

-- Records the run of a trigger and queues it for a worker; null when the workflow is not deployed.
create or replace function ai.start_triggered_run(p_trigger uuid, p_input jsonb, p_message bigint default null) returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  t ai.workflow_triggers;
  wf ai.workflows;
  run_id uuid;
begin
  select * into t from ai.workflow_triggers where id = p_trigger;
  if not found then return null; end if;
  select * into wf from ai.workflows where id = t.workflow_id;
  if not wf.deployed or wf.active_version is null then return null; end if;
  insert into ai.workflow_executions (workflow_id, user_id, acts_as, trigger, variables, version, graph, trigger_id, trigger_message)
  select wf.id, wf.owner_id, case when wf.owner_id is null then 'project' else 'user' end, t.type, coalesce(p_input, '{}'),
         wf.active_version, v.graph, t.id, p_message
    from ai.workflow_versions v where v.workflow_id = wf.id and v.version = wf.active_version
  returning id into run_id;
  perform ai.enqueue_execution(run_id);
  return run_id;
end
$$;

-- The row trigger: the change in the Database Webhook shape, started when it contains the condition.
create or replace function ai.workflow_row_changed() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  t ai.workflow_triggers;
  payload jsonb;
begin
  select * into t from ai.workflow_triggers where id = tg_argv[0]::uuid;
  if not found then return null; end if;
  payload := supabase_functions.webhook_payload(tg_op, tg_table_name, tg_table_schema,
    case when tg_op <> 'DELETE' then to_jsonb(new) end, case when tg_op <> 'INSERT' then to_jsonb(old) end);
  if payload @> coalesce(t.config -> 'condition', '{}') then
    perform ai.start_triggered_run(t.id, payload);
  end if;
  return null;
end
$$;

-- Adds a trigger to a workflow. Its owner may add a schedule; row_change and
-- queue triggers read data beyond any user's row policies, so they take the
-- service role (or a DBA's own session, which carries no claims).
create or replace function ai.add_workflow_trigger(p_workflow uuid, p_type text, p_config jsonb) returns ai.workflow_triggers
language plpgsql
security definer
set search_path = ''
as $$
declare
  wf ai.workflows;
  privileged boolean := auth.role() is null or auth.role() = 'service_role';
  t ai.workflow_triggers;
  cfg jsonb := coalesce(p_config, '{}');
  rel regclass;
  events text[];
  queue text;
begin
  select * into wf from ai.workflows w where w.id = p_workflow;
  if not found or (not privileged and wf.owner_id is not null and not ai.owns(wf.owner_id)) then
    perform auth.raise_error(404, 'WORKFLOW_NOT_FOUND', 'Workflow not found');
  end if;
  if not privileged and not ai.owns(wf.owner_id) then
    perform auth.raise_error(403, 'FORBIDDEN', 'You can only change your own workflows');
  end if;
  if p_type in ('row_change', 'queue') and not privileged then
    perform auth.raise_error(403, 'FORBIDDEN', format('Only the service-role key may add %s triggers: they see rows beyond any user''s policies', p_type));
  end if;
  if jsonb_typeof(cfg) <> 'object' then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'config must be a JSON object');
  end if;

  if p_type = 'schedule' then
    begin
      perform cron.parse_schedule(cfg ->> 'schedule');
    exception when invalid_parameter_value then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('schedule: invalid schedule: %s (five cron fields in UTC, or ''N seconds'')', coalesce(cfg ->> 'schedule', 'missing')));
    end;
    cfg := jsonb_build_object('schedule', cfg ->> 'schedule');
  elsif p_type = 'row_change' then
    rel := to_regclass(format('%I.%I', coalesce(cfg ->> 'schema', 'public'), cfg ->> 'table'));
    if rel is null or (select relkind from pg_catalog.pg_class where oid = rel) not in ('r', 'p') then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('table: no table %s.%s', coalesce(cfg ->> 'schema', 'public'), coalesce(cfg ->> 'table', 'missing')));
    end if;
    if coalesce(cfg ->> 'schema', 'public') in ('ai', 'graphile_worker', 'cron', 'net', 'pgmq', 'platform') then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('table: the platform''s own schema %s cannot start workflows', cfg ->> 'schema'));
    end if;
    events := coalesce((select array_agg(distinct upper(e)) from jsonb_array_elements_text(coalesce(cfg -> 'events', '["INSERT"]')) e), '{}');
    if cardinality(events) = 0 or not events <@ array['INSERT', 'UPDATE', 'DELETE'] then
      perform auth.raise_error(400, 'VALIDATION_ERROR', 'events: one or more of INSERT, UPDATE, DELETE');
    end if;
    if cfg ? 'condition' and jsonb_typeof(cfg -> 'condition') not in ('object', 'null') then
      perform auth.raise_error(400, 'VALIDATION_ERROR', 'condition: a JSON object the change must contain, such as {"record": {"status": "paid"}}');
    end if;
    cfg := jsonb_build_object('schema', coalesce(cfg ->> 'schema', 'public'), 'table', cfg ->> 'table', 'events', to_jsonb(events),
      'condition', case when jsonb_typeof(cfg -> 'condition') = 'object' then cfg -> 'condition' end);
  elsif p_type = 'queue' then
    queue := lower(cfg ->> 'queue');
    if queue is null or not exists (select from pgmq.meta m where m.queue_name = queue) then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('queue: no queue %s (make it with pgmq.create)', coalesce(queue, 'given')));
    end if;
    if cfg ? 'max_attempts' and (jsonb_typeof(cfg -> 'max_attempts') <> 'number' or (cfg ->> 'max_attempts')::numeric not between 1 and 100) then
      perform auth.raise_error(400, 'VALIDATION_ERROR', 'max_attempts: a whole number from 1 to 100');
    end if;
    if cfg ? 'visibility_timeout' and (jsonb_typeof(cfg -> 'visibility_timeout') <> 'number' or (cfg ->> 'visibility_timeout')::numeric not between 10 and 86400) then
      perform auth.raise_error(400, 'VALIDATION_ERROR', 'visibility_timeout: seconds from 10 to 86400');
    end if;
    if cfg ->> 'dead_letter_queue' is not null then
      perform pgmq._create(cfg ->> 'dead_letter_queue', false);
    end if;
    cfg := jsonb_build_object('queue', queue, 'max_attempts', coalesce((cfg ->> 'max_attempts')::int, 3),
      'visibility_timeout', coalesce((cfg ->> 'visibility_timeout')::int, 600), 'dead_letter_queue', lower(cfg ->> 'dead_letter_queue'));
  else
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'type: schedule, row_change or queue');
  end if;

  insert into ai.workflow_triggers (workflow_id, type, config) values (wf.id, p_type, cfg) returning * into t;
  if p_type = 'schedule' then
    insert into cron.job (jobname, schedule, command)
    values ('workflow-trigger-' || t.id, cfg ->> 'schedule', format('select ai.start_triggered_run(%L, jsonb_build_object(''scheduled_at'', now()))', t.id))
    returning jobid into t.cron_jobid;
    update ai.workflow_triggers set cron_jobid = t.cron_jobid where id = t.id;
  elsif p_type = 'row_change' then
    execute format('create trigger %I after %s on %s for each row execute function ai.workflow_row_changed(%L)',
      'workflow_trigger_' || replace(t.id::text, '-', ''), array_to_string(events, ' or '), rel, t.id);
  end if;
  return t;
end
$$;

create or replace function ai.remove_workflow_trigger(p_workflow uuid, p_trigger uuid) returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  t ai.workflow_triggers;
  wf ai.workflows;
begin
  select * into t from ai.workflow_triggers where id = p_trigger and workflow_id = p_workflow;
  select * into wf from ai.workflows where id = p_workflow;
  if t.id is null or (auth.role() is not null and auth.role() <> 'service_role' and not ai.owns(wf.owner_id)) then
    perform auth.raise_error(404, 'NOT_FOUND', 'Trigger not found');
  end if;
  -- Its schedule or row trigger goes with it (ai.uninstall_workflow_trigger).
  delete from ai.workflow_triggers where id = t.id;
  return true;
end
$$;

-- A workflow deleted takes its schedules and row triggers with it.
create or replace function ai.uninstall_workflow_trigger() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if old.type = 'schedule' then
    delete from cron.job where jobid = old.cron_jobid;
  elsif old.type = 'row_change' then
    execute format('drop trigger if exists %I on %I.%I', 'workflow_trigger_' || replace(old.id::text, '-', ''), old.config ->> 'schema', old.config ->> 'table');
  end if;
  return null;
end
$$;
create trigger uninstall after delete on ai.workflow_triggers for each row execute function ai.uninstall_workflow_trigger();

-- The queue consumer (every worker process calls it about once a second):
-- for each queue trigger of a deployed workflow, reads what is visible
-- (hidden for the trigger's visibility timeout, SKIP LOCKED: each message
-- to one process) and starts one run per message. A message read more
-- often than max_attempts (its runs' processes died) is dead-lettered.
create or replace function ai.take_queue_runs(max_per_queue integer default 50) returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  t ai.workflow_triggers;
  m pgmq.message_record;
  started integer := 0;
begin
  for t in select tr.* from ai.workflow_triggers tr join ai.workflows w on w.id = tr.workflow_id
            where tr.type = 'queue' and w.deployed and w.active_version is not null
              and exists (select from pgmq.meta q where q.queue_name = tr.config ->> 'queue') loop
    for m in select * from pgmq.read(t.config ->> 'queue', (t.config ->> 'visibility_timeout')::int, max_per_queue) loop
      if m.read_ct > (t.config ->> 'max_attempts')::int then
        perform ai.dead_letter(t, m.msg_id, m.message, m.read_ct, 'its runs did not finish');
      else
        perform ai.start_triggered_run(t.id, jsonb_build_object('queue', t.config ->> 'queue', 'msg_id', m.msg_id,
          'read_ct', m.read_ct, 'enqueued_at', m.enqueued_at, 'message', m.message, 'headers', m.headers), m.msg_id);
        started := started + 1;
      end if;
    end loop;
  end loop;
  return started;
end
$$;

-- Out of the queue for good: into the dead-letter queue (when there is one), archived.
create or replace function ai.dead_letter(t ai.workflow_triggers, p_msg bigint, p_message jsonb, p_read_ct integer, p_why text) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if t.config ->> 'dead_letter_queue' is not null then
    perform pgmq.send(t.config ->> 'dead_letter_queue', p_message,
      jsonb_build_object('source_queue', t.config ->> 'queue', 'msg_id', p_msg, 'attempts', p_read_ct, 'error', p_why, 'trigger_id', t.id), 0);
  end if;
  perform pgmq.archive(t.config ->> 'queue', p_msg);
end
$$;

-- A queue run ended: succeeded or cancelled, its message is archived;
-- failed, it shows again at once, or is dead-lettered after max_attempts.
create or replace function ai.settle_queue_message() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  t ai.workflow_triggers;
  read_ct integer;
  message jsonb;
begin
  select * into t from ai.workflow_triggers where id = new.trigger_id;
  if not found or not exists (select from pgmq.meta q where q.queue_name = t.config ->> 'queue') then return null; end if;
  if new.status in ('succeeded', 'cancelled') then
    perform pgmq.archive(t.config ->> 'queue', new.trigger_message);
    return null;
  end if;
  execute format('select read_ct, message from %s where msg_id = $1', pgmq._q(t.config ->> 'queue')) into read_ct, message using new.trigger_message;
  if read_ct is null then return null; end if;
  if read_ct >= (t.config ->> 'max_attempts')::int then
    perform ai.dead_letter(t, new.trigger_message, message, read_ct, coalesce(new.error, 'failed'));
  else
    perform pgmq.set_vt(t.config ->> 'queue', new.trigger_message, 0);
  end if;
  return null;
end
$$;
create trigger settle_queue_message after update of status on ai.workflow_executions
  for each row when (new.trigger = 'queue' and new.trigger_message is not null and old.status is distinct from new.status
                     and new.status in ('succeeded', 'failed', 'cancelled'))
  execute function ai.settle_queue_message();

-- A queued triggered run the execution limiter refused (WORKFLOW_TRIGGERED_RUNS_PER_MINUTE): failed, not run.
create or replace function ai.refuse_triggered_run(p_id uuid, p_error text) returns boolean
language sql
security definer
set search_path = ''
as $$
  with moved as (
    update ai.workflow_executions e set status = 'failed', error = p_error, error_code = 'RATE_LIMITED', finished_at = now()
     where e.id = p_id and e.status = 'queued' and e.trigger in ('schedule', 'row_change', 'queue') returning 1)
  select exists (select 1 from moved)
$$;

revoke execute on function ai.start_triggered_run(uuid, jsonb, bigint), ai.take_queue_runs(integer), ai.dead_letter(ai.workflow_triggers, bigint, jsonb, integer, text),
  ai.refuse_triggered_run(uuid, text), ai.workflow_row_changed(), ai.settle_queue_message(), ai.uninstall_workflow_trigger() from public;
grant execute on function ai.refuse_triggered_run(uuid, text) to service_role;
revoke execute on function ai.add_workflow_trigger(uuid, text, jsonb), ai.remove_workflow_trigger(uuid, uuid) from public;
grant execute on function ai.add_workflow_trigger(uuid, text, jsonb), ai.remove_workflow_trigger(uuid, uuid) to authenticated, service_role;
