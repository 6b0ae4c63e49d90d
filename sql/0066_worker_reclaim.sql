-- Jobs a dead process was running are taken up again within a minute
-- (issue 29), not after graphile-worker's four hours: each process records
-- which of graphile-worker's worker ids are its own (platform.worker_nodes,
-- beside its realtime.nodes heartbeat), and every live worker process
-- releases, every WORKER_RECLAIM_INTERVAL_MS, the locks held by workers of
-- processes whose heartbeat was reaped (REALTIME_NODE_REAP_MS). A released
-- job runs again on whichever worker takes it next; its attempt count says
-- it is a repeat (tasks decide what a repeat means: see sql/0054).
--
-- Contents
--   1. platform.worker_nodes         worker id -> process (realtime.nodes id)
--   2. platform.reclaim_dead_workers unlocks the jobs of dead processes' workers

-- 1 ---------------------------------------------------------------------------
create table platform.worker_nodes (
  worker_id text primary key,
  node_id uuid not null,
  created_at timestamptz not null default now()
);
create index worker_nodes_node on platform.worker_nodes (node_id);
alter table platform.worker_nodes enable row level security;
revoke all on platform.worker_nodes from public;

-- 2 ---------------------------------------------------------------------------
-- The workers of processes no longer in realtime.nodes: their locks released
-- (graphile-worker's own force_unlock_workers) and their rows dropped, in one
-- statement. Answers how many workers were found dead.
create or replace function platform.reclaim_dead_workers() returns int
language plpgsql
set search_path = ''
as $$
declare
  v_dead text[];
begin
  select coalesce(array_agg(w.worker_id), '{}') into v_dead
    from platform.worker_nodes w
   where not exists (select 1 from realtime.nodes n where n.id = w.node_id);
  if cardinality(v_dead) = 0 then
    return 0;
  end if;
  perform graphile_worker.force_unlock_workers(v_dead);
  delete from platform.worker_nodes w where w.worker_id = any(v_dead);
  return cardinality(v_dead);
end
$$;
revoke execute on function platform.reclaim_dead_workers() from public;
