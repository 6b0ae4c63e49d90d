-- AI surface: a cancelled workflow run starts no more blocks, whatever its
-- process has heard (as agent and orchestration runs take no more steps,
-- sql/0090, 0091). Cancel (ai.cancel_execution) marks the record and sends a
-- notice that aborts the run where it runs; when that notice is lost, the
-- run went on to its end, calling every block's API, and told its followers
-- `run_completed` while its record said `cancelled`. A block's log is the
-- run's step statement: it now says when the run was cancelled, and the
-- process stops there as a heard cancel stops it.
--
--   ai.record_block_log(execution, runner, log)
--     stores a block's log (the block did run, or was cut off by the cancel:
--     either is what happened) while `runner` carries the run, as the
--     statement it replaces did (`stored` false: another process carries the
--     run, this one stops); `cancelled`: the run was cancelled, start no
--     more. The run's row is share-locked while the log goes in
--     (ai.run_status_for_step, sql/0091). `log` holds the columns of
--     ai.workflow_block_logs by name.

create function ai.record_block_log(p_execution uuid, p_runner uuid, p_log jsonb)
returns table (stored boolean, cancelled boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_status text;
begin
  v_status := ai.run_status_for_step('workflow', p_execution, p_runner);
  stored := v_status is not null;
  cancelled := coalesce(v_status = 'cancelled', false);
  if stored then
    insert into ai.workflow_block_logs (execution_id, block_id, block_type, status, input, output, error, attempts, logs, started_at, finished_at, taken, path)
    values (p_execution, p_log ->> 'block_id', p_log ->> 'block_type', p_log ->> 'status', coalesce(p_log -> 'input', 'null'), coalesce(p_log -> 'output', 'null'),
            p_log ->> 'error', (p_log ->> 'attempts')::int, coalesce(p_log -> 'logs', '[]'), (p_log ->> 'started_at')::timestamptz, (p_log ->> 'finished_at')::timestamptz,
            nullif(p_log -> 'taken', 'null'), coalesce(p_log ->> 'path', ''));
  end if;
  return next;
end
$$;
revoke execute on function ai.record_block_log(uuid, uuid, jsonb) from public;
grant execute on function ai.record_block_log(uuid, uuid, jsonb) to service_role;
