-- sql/0049 on a database without pgvector (Debian's PostgreSQL 15 and the
-- embedded 17 have none): enabling answers false and changes nothing, stored
-- vectors get no index, and search candidates come from the sign bits. The
-- decoder of stored embeddings is exact on hand-made bytes. (With the
-- extension: test/ai/pgvector.test.ts.)
begin;
select plan(9);

select is(ai.pgvector_schema(), null, 'no vector extension is installed');
select is(ai.pgvector_enable(), false, 'enabling answers false where the extension is not available');
select ok(not ai.pgvector_in_use(), 'and ai.kb_vectors gets no pgvector column');

select is(ai.float32le_reals('\x0000803f0000c0bfcdcccc3d01000000'::bytea), array[1, -1.5, 0.1, 1e-45]::real[],
  'little-endian float32 bytes decode exactly: 1, -1.5, 0.1 and the smallest subnormal');
select is(ai.float32le_reals('\x'::bytea), null, 'no bytes, no vector');

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');
insert into ai.sources (id, owner_id, name, origin, extension, content_type, size_bytes, object_path, extraction_status)
  values ('00000000-0000-0000-0000-00000000500a', '00000000-0000-0000-0000-0000000000a1', 's', 'upload', 'txt', 'text/plain', 1, 'x/original.txt', 'extracted');
insert into ai.knowledge_bases (id, owner_id, name, strategy, indexing_config, retrieval_config)
  values ('00000000-0000-0000-0000-0000000000cb', '00000000-0000-0000-0000-0000000000a1', 'kb', 'chunk_embed', '{"embedding_model": "m"}', '{"method": "vector_search"}');
insert into ai.kb_sources (id, kb_id, source_id, index_status)
  values ('00000000-0000-0000-0000-0000000000e1', '00000000-0000-0000-0000-0000000000cb', '00000000-0000-0000-0000-00000000500a', 'indexing');

select tests.authenticate_as_service_role();
-- Two 2-dimensional unit vectors: (1, 0) and (0, -1).
select is(ai.store_kb_items('00000000-0000-0000-0000-0000000000e1', 1, '[
  {"position": 0, "kind": "chunk", "text": "east", "embedding_model": "m", "code": "10", "embedding": "AACAPwAAAAA="},
  {"position": 1, "kind": "chunk", "text": "south", "embedding_model": "m", "code": "00", "embedding": "AAAAAAAAgL8="}]'), 2, 'the run stores two embedded items');
select is((select count(*)::int from ai.kb_vector_indexes), 0, 'no index is registered without the extension');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
select results_eq($$ select i.text, n.via from ai.kb_nearest_vectors('00000000-0000-0000-0000-0000000000cb', 'm', '10', '\x0000803f00000000', 2, null) n
                      join ai.kb_items i on i.id = n.item_id $$,
  $$ values ('east', 'sign_bits'), ('south', 'sign_bits') $$, 'candidates come from the sign bits, nearest code first');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select * from ai.kb_nearest_vectors('00000000-0000-0000-0000-0000000000cb', 'm', '10', '\x0000803f00000000', 2, null) $$,
  'PT404', 'Knowledge base not found', 'a caller who cannot read the knowledge base is told it is not found');

select * from finish();
rollback;
