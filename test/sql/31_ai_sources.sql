-- The source extraction state machine (spec 3.1) as guarded statements keyed
-- by the extraction run: a stale job changes nothing, cancel works from
-- pending and extracting only (409 otherwise), states move only through the
-- functions, and sources follow the access model.
begin;
select plan(14);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.sources (id, name, origin, extension, content_type, size_bytes, object_path)
  values ('00000000-0000-0000-0000-00000000500a', 'notes', 'upload', 'txt', 'text/plain', 5, '00000000-0000-0000-0000-00000000500a/original.txt');
select is(ai.queue_extraction('00000000-0000-0000-0000-00000000500a', null), 1, 'a new source is queued as run 1');
select tests.clear_authentication();
select is((select count(*)::int from graphile_worker.jobs where key = 'source:00000000-0000-0000-0000-00000000500a'), 1, 'with one job keyed by the source');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select throws_ok($$ update ai.sources set extraction_status = 'extracted' $$, '42501', null, 'a user cannot move the state by hand');

select tests.authenticate_as_service_role();
select ok(not ai.begin_extraction('00000000-0000-0000-0000-00000000500a', 0) and ai.begin_extraction('00000000-0000-0000-0000-00000000500a', 1),
  'only the job of the current run takes it');
select ok(ai.extraction_progress('00000000-0000-0000-0000-00000000500a', 1, 1, 3), 'progress is recorded while extracting');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select ai.cancel_source('00000000-0000-0000-0000-00000000500a') $$, 'PT404', 'Source not found', 'another user cannot cancel it');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select is((select extraction_status from ai.cancel_source('00000000-0000-0000-0000-00000000500a')), 'cancelled', 'the owner cancels an extracting source');

select tests.authenticate_as_service_role();
select ok(not ai.extraction_progress('00000000-0000-0000-0000-00000000500a', 1, 2, 3), 'the job is told to stop');
select ok(not ai.finish_extraction('00000000-0000-0000-0000-00000000500a', 1, 'extracted', null, 'text', 3), 'and cannot finish it');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select throws_ok($$ select ai.cancel_source('00000000-0000-0000-0000-00000000500a') $$, 'PT409', null, 'a cancelled source cannot be cancelled again');
select is(ai.queue_extraction('00000000-0000-0000-0000-00000000500a', 'text'), 2, 're-extraction is run 2, pending');

select tests.authenticate_as_service_role();
select ok(not ai.begin_extraction('00000000-0000-0000-0000-00000000500a', 1) and ai.begin_extraction('00000000-0000-0000-0000-00000000500a', 2)
  and ai.finish_extraction('00000000-0000-0000-0000-00000000500a', 2, 'extracted', null, 'text', 1), 'the old run is ignored, the new one extracts');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select throws_ok($$ select ai.cancel_source('00000000-0000-0000-0000-00000000500a') $$, 'PT409', 'Only a pending or extracting source can be cancelled; this one is extracted',
  'an extracted source answers 409');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.sources), 0, 'another user does not see it');

select * from finish();
rollback;
