-- One guard per resource (sql/0063): ai.require_kb_change and
-- ai.require_source_change answer 404 to a caller who may not change the
-- knowledge base or source, and nothing to its owner or the service role;
-- no current function repeats the check inline any more.
begin;
select plan(8);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.sources (id, name, origin, extension, content_type, size_bytes, object_path)
  values ('00000000-0000-0000-0000-00000000500a', 'notes', 'upload', 'txt', 'text/plain', 5, 'x/original.txt');
insert into ai.knowledge_bases (id, name, strategy, indexing_config, retrieval_config)
  values ('00000000-0000-0000-0000-0000000000cb', 'kb', 'chunk_embed', '{}', '{}');

select lives_ok($$ select ai.require_kb_change('00000000-0000-0000-0000-0000000000cb') $$, 'the owner may change the knowledge base');
select lives_ok($$ select ai.require_source_change('00000000-0000-0000-0000-00000000500a') $$, 'the owner may change the source');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select ai.require_kb_change('00000000-0000-0000-0000-0000000000cb') $$, 'PT404', 'Knowledge base not found', 'another user is told the knowledge base does not exist');
select throws_ok($$ select ai.require_source_change('00000000-0000-0000-0000-00000000500a') $$, 'PT404', 'Source not found', 'another user is told the source does not exist');
select throws_ok($$ select ai.request_bm25_build('00000000-0000-0000-0000-0000000000cb') $$, 'PT404', 'Knowledge base not found', 'a function restated over the guard answers the same 404');

select tests.authenticate_as_service_role();
select lives_ok($$ select ai.require_kb_change('00000000-0000-0000-0000-0000000000cb'), ai.require_source_change('00000000-0000-0000-0000-00000000500a') $$, 'the service role may change both');
select tests.clear_authentication();

select is(array(select p.proname::text from pg_proc p where p.pronamespace = 'ai'::regnamespace and p.prosrc like '%''Knowledge base not found''%' order by 1),
  array['kb_readable', 'require_kb_change'], 'only the guards word "Knowledge base not found"');
select is(array(select p.proname::text from pg_proc p where p.pronamespace = 'ai'::regnamespace and p.prosrc like '%''Source not found''%' order by 1),
  array['add_kb_source', 'require_source_change'], 'and "Source not found" (add_kb_source checks it may read, not change, the source)');

select * from finish();
rollback;
