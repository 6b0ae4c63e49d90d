-- Metadata enrichment's table lifecycle and rules (spec 2.11, 3.3, 4.13): a
-- first PUT makes ai.kb_meta_<id> with a typed column per field and queues a
-- run; values are stored only while the run holds; the field rules refuse
-- reserved names and one-value enums; while a run is active, field changes
-- and DELETE are 409; max_tokens alone changes nothing else; DELETE drops
-- the table, and so does deleting the knowledge base.
begin;
select plan(18);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.sources (id, name, origin, extension, content_type, size_bytes, object_path)
  values ('00000000-0000-0000-0000-00000000500a', 'notes', 'upload', 'txt', 'text/plain', 5, 'x/original.txt');
insert into ai.knowledge_bases (id, name, strategy, indexing_config, retrieval_config)
  values ('00000000-0000-0000-0000-0000000000cb', 'kb', 'chunk_embed', '{"embedding_model": null}', '{"method": "full_text"}');
select tests.authenticate_as_service_role();
insert into ai.kb_sources (id, kb_id, source_id, index_status) values ('00000000-0000-0000-0000-0000000000e1', '00000000-0000-0000-0000-0000000000cb', '00000000-0000-0000-0000-00000000500a', 'indexing');
select ai.store_kb_items('00000000-0000-0000-0000-0000000000e1', 1, '[{"position": 0, "kind": "chunk", "text": "rockets burn kerosene"}]');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select throws_ok($$ select ai.put_enrichment('00000000-0000-0000-0000-0000000000cb', '[{"name": "enriched_at", "type": "text"}]', null, null, null) $$,
  'PT400', 'fields[0].name "enriched_at" is reserved (id, item_id, item_type, enriched_at, _enrichment_error)', 'reserved names are refused');
select throws_ok($$ select ai.put_enrichment('00000000-0000-0000-0000-0000000000cb', '[{"name": "k", "type": "enum", "enum_values": ["a", "a"]}]', null, null, null) $$,
  'PT400', 'fields[0] is an enum: enum_values needs at least 2 distinct strings', 'an enum needs two distinct values');
select is((select (ai.put_enrichment('00000000-0000-0000-0000-0000000000cb',
  '[{"name": "topic", "type": "enum", "enum_values": ["space", "food"]}, {"name": "score", "type": "number"}]', 'gpt-4.1-mini', 200, false)) ->> 're_enrichment_triggered'),
  'true', 'a first config enriches everything');
select tests.clear_authentication();
select results_eq($$ select column_name::text collate "default", data_type::text collate "default" from information_schema.columns where table_schema = 'ai' and table_name = 'kb_meta_000000000000000000000000000000cb' order by ordinal_position $$,
  $$ values ('item_id', 'uuid'), ('item_type', 'text'), ('topic', 'text'), ('score', 'double precision'), ('enriched_at', 'timestamp with time zone'), ('_enrichment_error', 'text'), ('_attempted_at', 'timestamp with time zone') $$,
  'the metadata table has a typed column per field');
select is((select relrowsecurity from pg_class where oid = 'ai.kb_meta_000000000000000000000000000000cb'::regclass), true, 'with row level security');
select is((select count(*)::int from graphile_worker.jobs where key = 'enrich:00000000-0000-0000-0000-0000000000cb'), 1, 'and a run queued');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select throws_ok($$ select ai.put_enrichment('00000000-0000-0000-0000-0000000000cb', '[{"name": "topic", "type": "text"}]', null, 200, false) $$,
  'PT409', 'An enrichment run is active: wait for it to end before changing fields or llm_model', 'fields cannot change while a run is active');
select throws_ok($$ select ai.delete_enrichment('00000000-0000-0000-0000-0000000000cb') $$, 'PT409', null, 'nor can the config be deleted');

select tests.authenticate_as_service_role();
select ok(not ai.store_enrichment('00000000-0000-0000-0000-0000000000cb', 0, (select id from ai.kb_items), '{"topic": "space"}', null)
  and ai.store_enrichment('00000000-0000-0000-0000-0000000000cb', 1, (select id from ai.kb_items), '{"topic": "space", "score": 0.5}', null),
  'only the current run stores values');
select is((select enrichment from ai.kb_items), '{"topic": "space", "score": 0.5}'::jsonb, 'copied to the item for filter_metadata');
select ok(ai.finish_enrichment('00000000-0000-0000-0000-0000000000cb', 1, null), 'the run ends');
select is((select status from ai.kb_enrichments), 'completed', 'completed, no item holding an error');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select is((select (ai.put_enrichment('00000000-0000-0000-0000-0000000000cb',
  '[{"name": "topic", "type": "enum", "enum_values": ["space", "food"]}, {"name": "score", "type": "number"}]', 'gpt-4.1-mini', 900, false)) #>> '{config,status}'),
  'completed', 'max_tokens alone updates without a run');
select is((select (ai.put_enrichment('00000000-0000-0000-0000-0000000000cb',
  '[{"name": "topic", "type": "enum", "enum_values": ["space", "food"]}, {"name": "score", "type": "number"}]', 'gpt-4.1-mini', 900, true)) ->> 're_enrichment_triggered'),
  'true', 'toggling use_multimodal re-enriches');
select throws_ok($$ select ai.put_enrichment('00000000-0000-0000-0000-0000000000cb',
  '[{"name": "topic", "type": "enum", "enum_values": ["space", "food"]}, {"name": "score", "type": "number"}]', 'gpt-4.1-mini', 900, false) $$,
  'PT409', 'An enrichment run is active: wait for it to end before changing use_multimodal', 'and cannot be toggled back while that run is active');
select tests.authenticate_as_service_role();
select ok(ai.finish_enrichment('00000000-0000-0000-0000-0000000000cb', 2, null), 'that run ends');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select lives_ok($$ select ai.delete_enrichment('00000000-0000-0000-0000-0000000000cb') $$, 'DELETE works once idle');
select is(to_regclass('ai.kb_meta_000000000000000000000000000000cb'), null, 'and drops the table');

select * from finish();
rollback;
