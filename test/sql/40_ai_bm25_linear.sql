-- Building BM25 statistics is linear in the postings (sql/0057): 4,000
-- items of 40 words each are built, and searched with statistics computed on
-- the fly, within a 15 s statement limit (the build takes 3-5 s on a loaded
-- 2-core machine; 5 s was once too tight there). With a length computed per
-- item over every posting (0043) the build scanned 160,000 postings 4,000
-- times (640 million postings read) and could not finish in minutes.
begin;
select plan(4);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.sources (id, name, origin, extension, content_type, size_bytes, object_path)
  values ('00000000-0000-0000-0000-00000000500b', 'many', 'upload', 'txt', 'text/plain', 5, 'x/original.txt');
insert into ai.knowledge_bases (id, name, strategy, indexing_config, retrieval_config)
  values ('00000000-0000-0000-0000-0000000000cc', 'big', 'chunk_embed', '{"embedding_model": null}', '{"method": "full_text"}');
select tests.authenticate_as_service_role();
insert into ai.kb_sources (id, kb_id, source_id, index_status) values ('00000000-0000-0000-0000-0000000000e2', '00000000-0000-0000-0000-0000000000cc', '00000000-0000-0000-0000-00000000500b', 'indexing');
select is(ai.store_kb_items('00000000-0000-0000-0000-0000000000e2', 1, (
  select jsonb_agg(jsonb_build_object('position', n, 'kind', 'chunk', 'text',
    (select string_agg('word' || ((n * 7 + w * 13) % 997), ' ') from generate_series(1, 40) w)))
    from generate_series(1, 4000) n)), 4000, 'four thousand items stored');

set local statement_timeout = '15s';
select is((select count(*)::int from ai.bm25_search('00000000-0000-0000-0000-0000000000cc', 'word5 word18', 'english', 0.9, 0.4, 10, null)), 10,
  'statistics computed on the fly in one grouped pass');
select is(ai.bm25_build('00000000-0000-0000-0000-0000000000cc'), 4000, 'the build takes one pass over the postings');
select is((select count(*)::int from ai.kb_bm25_docs where kb_id = '00000000-0000-0000-0000-0000000000cc'), 4000, 'every item has its length');

select * from finish();
rollback;
