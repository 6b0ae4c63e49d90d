-- A run's events are numbered in order and read as the run is: its owner
-- sees them, another user does not, and nobody but the server writes them.
-- A cancel ends a running run once, keeps it ended (a late finish changes
-- nothing), and tells the runner (NOTIFY ai_runs).
begin;
select plan(12);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e1', 'talker');
insert into ai.sessions (id, agent_id) values ('00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1');
insert into ai.agent_runs (id, session_id, agent_id, input) values ('00000000-0000-0000-0000-0000000072a1', '00000000-0000-0000-0000-000000005e51', '00000000-0000-0000-0000-00000000a9e1', 'go');
select throws_ok($$ select ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072a1', '[{"type": "start"}]') $$, '42501', null, 'a user cannot append events');
select throws_ok($$ insert into ai.run_events (agent_run_id, seq, event) values ('00000000-0000-0000-0000-0000000072a1', 1, '{}') $$, '42501', null, 'nor write them by hand');

select tests.authenticate_as_service_role();
select is(ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072a1', '[{"type": "start"}]'), 1, 'the first event is number 1');
select is(ai.append_run_events('agent', '00000000-0000-0000-0000-0000000072a1', '[{"type": "content_delta", "delta": "hi"}, {"type": "content_delta", "delta": "!"}]'), 2, 'a batch is numbered on from there, in order');
select throws_ok($$ select ai.append_run_events('orchestration', '00000000-0000-0000-0000-0000000072a1', '[{}]') $$, '23503', null, 'an event names a run of its kind');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select is((select array_agg(event ->> 'type' order by seq) from ai.run_events where run_id = '00000000-0000-0000-0000-0000000072a1'), array['start', 'content_delta', 'content_delta'], 'the owner reads them in order');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.run_events), 0, 'another user sees none');

select tests.authenticate_as_service_role();
listen ai_runs;
select ok(ai.cancel_agent_run('00000000-0000-0000-0000-0000000072a1'), 'a running run is cancelled');
select is((select status || ':' || error from ai.agent_runs), 'cancelled:The run was cancelled', 'and says so');
select ok(not ai.cancel_agent_run('00000000-0000-0000-0000-0000000072a1'), 'once');
select ok(not ai.finish_agent_run('00000000-0000-0000-0000-0000000072a1', 'failed', null, 'aborted', null, 1), 'a late finish does not overwrite it');

delete from ai.sessions;
select is((select count(*)::int from ai.run_events), 0, 'deleting the session deletes its runs'' events');

select * from finish();
rollback;
