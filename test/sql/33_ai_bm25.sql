-- BM25 in SQL on a hand-computed example: three items ("cat cat dog", "cat
-- bird", "fish"), k1 1.2, b 0.75, so N = 3 and avgdl = 2. For "cat": df 2,
-- IDF ln(1 + 1.5/2.5) = 0.470004; item 1 (tf 2, length 3) scores
-- 0.470004 x 4.4/3.65 = 0.566580, item 2 (tf 1, length 2) 0.470004 x 2.2/2.2
-- = 0.470004. For "fish": df 1, IDF ln(1 + 2.5/1.5) = 0.980829, item 3 (tf 1,
-- length 1) 0.980829 x 2.2/1.75 = 1.233042. The numbers are the same computed
-- from the text and read from the statistics that indexing keeps.
begin;
select plan(12);
create temp table scores (position int, score numeric, how text);
grant all on scores to public;

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.sources (id, name, metadata, origin, extension, content_type, size_bytes, object_path)
  values ('00000000-0000-0000-0000-00000000500a', 'animals', '{"lang": "en"}', 'upload', 'txt', 'text/plain', 5, 'x/original.txt');
insert into ai.knowledge_bases (id, name, strategy, indexing_config, retrieval_config)
  values ('00000000-0000-0000-0000-0000000000cb', 'kb', 'chunk_embed', '{"embedding_model": null}', '{"method": "full_text"}');

select tests.authenticate_as_service_role();
insert into ai.kb_sources (id, kb_id, source_id, index_status) values ('00000000-0000-0000-0000-0000000000e1', '00000000-0000-0000-0000-0000000000cb', '00000000-0000-0000-0000-00000000500a', 'indexing');
select is(ai.store_kb_items('00000000-0000-0000-0000-0000000000e1', 1, '[
  {"position": 0, "kind": "chunk", "text": "cat cat dog", "meta": {"page": 1}},
  {"position": 1, "kind": "chunk", "text": "cat bird", "meta": {"page": 2}},
  {"position": 2, "kind": "chunk", "text": "fish", "meta": {"page": 3}}]'), 3, 'the run stores its three items');
select is(ai.store_kb_items('00000000-0000-0000-0000-0000000000e1', 0, '[{"position": 0, "kind": "chunk", "text": "stale"}]'), 0, 'a stale run stores nothing');

insert into scores
  select i.position, round(s.score::numeric, 6) as score, 'computed' as how
    from ai.bm25_search('00000000-0000-0000-0000-0000000000cb', 'cat fish', 'english', 1.2, 0.75, 10, null) s join ai.kb_items i on i.id = s.item_id;
select results_eq($$ select position, score from scores where how = 'computed' order by score desc $$,
  $$ values (2, 1.233042), (0, 0.566580), (1, 0.470004) $$, 'without statistics the scores are computed from the text, as by hand');

select ok(ai.finish_indexing('00000000-0000-0000-0000-0000000000e1', 1, 'indexed', null, '{}'), 'the run ends indexed');
select is((select bm25_status || ' ' || bm25_language from ai.knowledge_bases where id = '00000000-0000-0000-0000-0000000000cb'), 'ready english',
  'BM25_AUTO_INDEXING made the statistics ready');
select results_eq($$ select i.position, d.length from ai.kb_bm25_docs d join ai.kb_items i on i.id = d.item_id order by i.position $$,
  $$ values (0, 3), (1, 2), (2, 1) $$, 'each item has its length in lexemes');
select results_eq($$ select p.term, count(*)::int, sum(p.tf)::int from ai.kb_bm25_postings p group by p.term order by p.term $$,
  $$ values ('bird', 1, 1), ('cat', 2, 3), ('dog', 1, 1), ('fish', 1, 1) $$, 'and postings with term frequencies');

insert into scores select i.position, round(s.score::numeric, 6), 'index'
  from ai.bm25_search('00000000-0000-0000-0000-0000000000cb', 'cat fish', 'english', 1.2, 0.75, 10, null) s join ai.kb_items i on i.id = s.item_id;
select results_eq($$ select position, score from scores where how = 'index' order by score desc $$,
  $$ values (2, 1.233042), (0, 0.566580), (1, 0.470004) $$, 'read from the statistics, the scores are the same');

select results_eq($$ select i.position from ai.bm25_search('00000000-0000-0000-0000-0000000000cb', 'cat', 'english', 1.2, 0.75, 10, '{"page": 2}') s join ai.kb_items i on i.id = s.item_id $$,
  $$ values (1) $$, 'filter_metadata keeps items whose meta matches');
select results_eq($$ select count(*)::int from ai.bm25_search('00000000-0000-0000-0000-0000000000cb', 'cat', 'english', 1.2, 0.75, 10, '{"lang": ["fr", "en"], "page": [1, 2]}') $$,
  $$ values (2) $$, 'or whose source metadata matches, an array matching any of its values');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select * from ai.bm25_search('00000000-0000-0000-0000-0000000000cb', 'cat', 'english', 1.2, 0.75, 10, null) $$,
  'PT404', 'Knowledge base not found', 'another user cannot search it');

select tests.authenticate_as_service_role();
delete from ai.kb_sources where id = '00000000-0000-0000-0000-0000000000e1';
select is((select count(*)::int from ai.kb_bm25_postings) + (select count(*)::int from ai.kb_bm25_docs) + (select count(*)::int from ai.kb_items), 0,
  'removing the indexed source removes its items and statistics');

select * from finish();
rollback;
