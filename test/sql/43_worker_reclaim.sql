-- A dead process's workers let go of their jobs: platform.reclaim_dead_workers
-- unlocks the jobs of workers whose process is not in realtime.nodes, and
-- only those, and forgets them.
begin;
select plan(5);

insert into realtime.nodes (id) values ('00000000-0000-0000-0000-00000000a11e');
insert into platform.worker_nodes (worker_id, node_id) values
  ('pool-alive', '00000000-0000-0000-0000-00000000a11e'), ('pool-dead', '00000000-0000-0000-0000-0000000000de');
select graphile_worker.add_job('test_alive', '{}', job_key := 'alive');
select graphile_worker.add_job('test_dead', '{}', job_key := 'dead');
update graphile_worker._private_jobs set locked_by = 'pool-alive', locked_at = now() where key = 'alive';
update graphile_worker._private_jobs set locked_by = 'pool-dead', locked_at = now() where key = 'dead';

select is(platform.reclaim_dead_workers(), 1, 'one worker belongs to a process that is gone');
select is((select locked_by from graphile_worker.jobs where key = 'dead'), null, 'its job is unlocked for another worker');
select is((select locked_by from graphile_worker.jobs where key = 'alive'), 'pool-alive', 'a live process keeps its job');
select is((select array_agg(worker_id) from platform.worker_nodes), array['pool-alive'], 'the dead worker is forgotten');
select is(platform.reclaim_dead_workers(), 0, 'and found once');

select * from finish();
rollback;
