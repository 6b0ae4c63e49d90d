-- AI surface: what GET /api/config/kb-defaults reports (spec 4.13), from
-- tables and the settings registry, so a new strategy, retriever or
-- extraction method is a row here and needs no contract change.
--
--   1. ai.kb_retrievers, ai.kb_strategies, ai.extraction_methods
--   2. ai.setting_json        a setting in force as typed JSON (never a secret)
--   3. ai.resolve_config      "$KEY" strings in a default config replaced by the setting
--   4. ai.kb_defaults         the whole answer

-- 1. The catalogue ---------------------------------------------------------------------

create table ai.kb_retrievers (
  name text primary key,
  label text not null,
  uses_lexical boolean not null,
  position int not null
);

create table ai.kb_strategies (
  name text primary key,
  label text not null,
  compatible_retrievers text[] not null,
  default_retrieval_method text not null references ai.kb_retrievers,
  supports_reranker boolean not null,
  default_indexing_config jsonb not null,
  default_retrieval_config jsonb not null,
  position int not null,
  check (default_retrieval_method = any (compatible_retrievers))
);

create table ai.extraction_methods (
  name text primary key,
  label text not null,
  -- Where the method stands in the automatic fallback chain (null: not in it).
  fallback_position int unique,
  position int not null
);

alter table ai.kb_retrievers enable row level security;
alter table ai.kb_strategies enable row level security;
alter table ai.extraction_methods enable row level security;
create policy retrievers_read on ai.kb_retrievers for select to authenticated using (true);
create policy strategies_read on ai.kb_strategies for select to authenticated using (true);
create policy extraction_read on ai.extraction_methods for select to authenticated using (true);
grant select on ai.kb_retrievers, ai.kb_strategies, ai.extraction_methods to authenticated, service_role;

insert into ai.kb_retrievers (name, label, uses_lexical, position) values
  ('vector', 'Vector similarity', false, 1),
  ('full_text', 'Full text (BM25)', true, 2),
  ('hybrid', 'Hybrid (vector and BM25)', true, 3),
  ('tree_search', 'Table-of-contents search', false, 4),
  ('graph', 'Knowledge graph', false, 5);

insert into ai.kb_strategies (name, label, compatible_retrievers, default_retrieval_method, supports_reranker, default_indexing_config, default_retrieval_config, position) values
  ('chunk_embed', 'Chunk and embed', '{vector,full_text,hybrid}', 'hybrid', true,
   '{"chunk_size": "$CHUNK_EMBED_DEFAULT_CHUNK_SIZE", "chunk_overlap": "$CHUNK_EMBED_DEFAULT_OVERLAP", "embedding_model": "$CHUNK_EMBED_EMBEDDING_MODEL"}',
   '{"method": "hybrid", "top_k": "$KB_DEFAULT_TOP_K", "vector_weight": "$HYBRID_DEFAULT_VECTOR_WEIGHT", "reranker": {"enabled": false}, "query_enrichment": {"enabled": false}}', 1),
  ('page_index', 'Page index (table of contents)', '{tree_search,vector}', 'tree_search', false,
   '{"model": "$PAGEINDEX_MODEL", "max_pages_per_node": "$PAGEINDEX_MAX_PAGES_PER_NODE", "max_tokens_per_node": "$PAGEINDEX_MAX_TOKENS_PER_NODE", "add_node_summary": "$PAGEINDEX_ADD_NODE_SUMMARY", "embedding_model": "$PAGEINDEX_EMBEDDING_MODEL"}',
   '{"method": "tree_search", "model": "$PAGEINDEX_RETRIEVAL_MODEL", "max_nodes": "$PAGEINDEX_TREE_SEARCH_MAX_NODES"}', 2),
  ('graph_index', 'Knowledge graph', '{graph,vector,hybrid}', 'graph', true,
   '{"model": "$GRAPHINDEX_MODEL", "embedding_model": "$GRAPHINDEX_EMBEDDING_MODEL", "chunk_size": "$GRAPHINDEX_CHUNK_SIZE", "chunk_overlap": "$GRAPHINDEX_CHUNK_OVERLAP", "entity_types": "$GRAPHINDEX_ENTITY_TYPES"}',
   '{"method": "graph", "top_k": "$KB_DEFAULT_TOP_K"}', 3),
  ('full_document', 'Whole documents with summaries', '{vector,full_text,hybrid}', 'vector', true,
   '{"summary_model": "$FULLDOC_SUMMARY_MODEL", "embedding_model": "$FULLDOC_EMBEDDING_MODEL", "summary_input_chars": "$FULLDOC_SUMMARY_INPUT_CHARS", "summary_max_tokens": "$FULLDOC_SUMMARY_MAX_TOKENS"}',
   '{"method": "vector", "top_k": "$KB_DEFAULT_TOP_K"}', 4),
  ('doc2json', 'Documents to JSON items', '{vector,full_text,hybrid}', 'hybrid', true,
   '{"model": "$DOC2JSON_MODEL", "embedding_model": "$DOC2JSON_EMBEDDING_MODEL", "max_items": "$DOC2JSON_MAX_ITEMS", "strict_schema": "$DOC2JSON_STRICT_SCHEMA"}',
   '{"method": "hybrid", "top_k": "$KB_DEFAULT_TOP_K", "vector_weight": "$HYBRID_DEFAULT_VECTOR_WEIGHT"}', 5);

insert into ai.extraction_methods (name, label, fallback_position, position) values
  ('auto', 'Automatic (text, then OCR, then vision)', null, 1),
  ('text', 'Embedded text', 1, 2),
  ('ocr', 'OCR (Tesseract)', 2, 3),
  ('vision', 'Vision model', 3, 4);

-- 2. Typed settings ---------------------------------------------------------------------

-- A non-secret setting in force, as JSON of its type (numbers and booleans unquoted).
create or replace function ai.setting_json(p_key text) returns jsonb
language sql stable
set search_path = ''
as $$
  select case when r.type in ('integer', 'number') then to_jsonb(v::numeric)
              when r.type = 'boolean' then to_jsonb(v::boolean)
              else to_jsonb(v) end
    from ai.settings_registry r
    left join ai.setting_overrides o on o.key = r.key
    cross join lateral (select coalesce(o.value, r.default_value) as v) x
   where r.key = p_key and r.type <> 'secret'
$$;

-- 3. Configs that follow the settings ------------------------------------------------------

-- A default config with every "$KEY" string (at any depth) replaced by that setting's value.
create or replace function ai.resolve_config(config jsonb) returns jsonb
language sql stable
set search_path = ''
as $$
  select case jsonb_typeof(config)
    when 'object' then coalesce((select jsonb_object_agg(e.key, ai.resolve_config(e.value)) from jsonb_each(config) e), '{}')
    when 'array' then coalesce((select jsonb_agg(ai.resolve_config(e.value) order by e.ordinality) from jsonb_array_elements(config) with ordinality e), '[]')
    when 'string' then case when config #>> '{}' like '$%' then coalesce(ai.setting_json(substr(config #>> '{}', 2)), config) else config end
    else config end
$$;

-- 4. The answer ----------------------------------------------------------------------------

create or replace function ai.kb_defaults() returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_build_object(
    'strategies', (select jsonb_object_agg(s.name, jsonb_build_object(
        'label', s.label,
        'compatible_retrievers', to_jsonb(s.compatible_retrievers),
        'retriever_labels', (select jsonb_object_agg(r.name, r.label) from ai.kb_retrievers r where r.name = any (s.compatible_retrievers)),
        'default_retrieval_method', s.default_retrieval_method,
        'supports_reranker', s.supports_reranker,
        'default_indexing_config', ai.resolve_config(s.default_indexing_config),
        'default_retrieval_config', ai.resolve_config(s.default_retrieval_config)) order by s.position)
      from ai.kb_strategies s),
    'reranker', jsonb_build_object('default_model', ai.setting_json('RERANKER_DEFAULT_MODEL'), 'candidate_count', ai.setting_json('RERANKER_CANDIDATE_COUNT'),
                                   'options', '["none", "llm"]'::jsonb),
    'query_enrichment', jsonb_build_object('model', ai.setting_json('QUERY_ENRICHMENT_DEFAULT_MODEL')),
    'enrichment', jsonb_build_object('model', ai.setting_json('METADATA_ENRICHMENT_MODEL'), 'max_tokens', ai.setting_json('METADATA_ENRICHMENT_MAX_TOKENS')),
    'hybrid_vector_weight', ai.setting_json('HYBRID_DEFAULT_VECTOR_WEIGHT'),
    'extraction', jsonb_build_object(
      'default_method', ai.setting_json('EXTRACTION_DEFAULT_METHOD'),
      'fallback_chain', (select jsonb_agg(m.name order by m.fallback_position) from ai.extraction_methods m where m.fallback_position is not null),
      'options', (select jsonb_agg(jsonb_build_object('value', m.name, 'label', m.label) order by m.position) from ai.extraction_methods m)))
$$;

revoke execute on function ai.setting_json(text), ai.resolve_config(jsonb), ai.kb_defaults() from public;
grant execute on function ai.setting_json(text), ai.resolve_config(jsonb), ai.kb_defaults() to authenticated, service_role;
