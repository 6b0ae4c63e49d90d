-- The indexed-source state machine (spec 3.2) as guarded statements keyed by
-- the index run: a source still being extracted waits and starts when its
-- extraction ends, a stale job changes nothing, cancel works from pending
-- and indexing only (409 otherwise), reindex follows its rules, users move
-- no state by hand, and an indexing_config change marks a reindex as due.
begin;
select plan(21);
create temp table entry (id uuid, index_status text, index_run int);
grant all on entry to public;

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.sources (id, name, origin, extension, content_type, size_bytes, object_path)
  values ('00000000-0000-0000-0000-00000000500a', 'notes', 'upload', 'txt', 'text/plain', 5, 'x/original.txt');
insert into ai.knowledge_bases (id, name, strategy, indexing_config, retrieval_config)
  values ('00000000-0000-0000-0000-0000000000cb', 'kb', 'chunk_embed', '{}', '{}');

insert into entry
  select id, index_status, index_run from ai.add_kb_source('00000000-0000-0000-0000-0000000000cb', '00000000-0000-0000-0000-00000000500a');
select is((select index_status || ' ' || index_run from entry), 'pending 1', 'a source is added pending, run 1');
select tests.clear_authentication();
select is((select count(*)::int from graphile_worker.jobs where key like 'kb-source:%'), 0, 'its job waits for the extraction');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select throws_ok($$ select ai.add_kb_source('00000000-0000-0000-0000-0000000000cb', '00000000-0000-0000-0000-00000000500a') $$,
  'PT409', 'This source is already in the knowledge base: reindex it instead', 'a source is in a knowledge base once');
select throws_ok($$ update ai.kb_sources set index_status = 'indexed' $$, '42501', null, 'a user cannot move the state by hand');

select tests.authenticate_as_service_role();
select ok(ai.begin_extraction('00000000-0000-0000-0000-00000000500a', 1) and ai.finish_extraction('00000000-0000-0000-0000-00000000500a', 1, 'extracted', null, 'text', 1), 'the source is extracted');
select tests.clear_authentication();
select is((select count(*)::int from graphile_worker.jobs where key = 'kb-source:' || (select id from entry)), 1, 'and its indexing job is queued then');
select tests.authenticate_as_service_role();
select ok(not ai.begin_indexing((select id from entry), 0) and ai.begin_indexing((select id from entry), 1), 'only the job of the current run takes it');
select ok(ai.indexing_progress((select id from entry), 1, 1, 4), 'progress is recorded while indexing');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select ai.cancel_kb_source('00000000-0000-0000-0000-0000000000cb', (select id from entry)) $$, 'PT404', 'Knowledge base not found', 'another user cannot cancel it');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select is((select index_status from ai.cancel_kb_source('00000000-0000-0000-0000-0000000000cb', (select id from entry))), 'cancelled', 'the owner cancels an indexing source');
select tests.authenticate_as_service_role();
select ok(not ai.indexing_progress((select id from entry), 1, 2, 4) and not ai.finish_indexing((select id from entry), 1, 'indexed', null, '{}'),
  'the job is told to stop and cannot finish');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select throws_ok($$ select ai.cancel_kb_source('00000000-0000-0000-0000-0000000000cb', (select id from entry)) $$,
  'PT409', 'Only a pending or indexing source can be cancelled; this one is cancelled', 'a cancelled source answers 409');
select is(ai.reindex_kb_sources('00000000-0000-0000-0000-0000000000cb', null, true), 0, 'failed_only finds nothing failed');
select is(ai.reindex_kb_sources('00000000-0000-0000-0000-0000000000cb', array[(select id from entry)], true), 1, 'explicit ids win over failed_only');
select is((select index_status || ' ' || index_run from ai.kb_sources), 'pending 2', 'it is pending again, run 2, its source ready so its job queued');

select tests.authenticate_as_service_role();
select ok(ai.begin_indexing((select id from entry), 2) and ai.finish_indexing((select id from entry), 2, 'indexed', null, '{"items": 0}'), 'run 2 indexes');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
update ai.knowledge_bases set indexing_config = '{"chunk_size": 128}';
select is((select needs_reindex from ai.knowledge_bases), true, 'an indexing_config change after indexing marks a reindex as due');

select is(ai.reindex_kb_sources('00000000-0000-0000-0000-0000000000cb', null, false), 1, 'an empty reindex takes every source');
select tests.clear_authentication();
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select ok(ai.remove_kb_source('00000000-0000-0000-0000-0000000000cb', (select id from entry)), 'DELETE removes the entry');
select is((select count(*)::int from ai.kb_sources) || ' ' || (select count(*)::int from ai.sources), '0 1', 'and keeps the source');
select tests.clear_authentication();
select is((select count(*)::int from graphile_worker.jobs where key like 'kb-source:%'), 0, 'and revokes its waiting job');

select * from finish();
rollback;
