-- AI surface: knowledge bases (spec 2.6, 4.13): the catalogue in the spec's
-- words, retrieval config rules, the knowledge bases and the config in force.
-- Their indexed sources and items are sql/0042.
--
--   1. the catalogue in the spec's words  retriever `vector` is `vector_search`; the chunk overlap key
--                                         is `overlap`; reranking is off by default (a `reranker`
--                                         object present means on); BM25's k1 and b; `ts_language`
--   2. ai.check_retrieval_config    the rules of a retrieval config, for a strategy (400 naming the rule)
--   3. ai.knowledge_bases           owned per the access model; configs merged over the strategy defaults
--   4. ai.kb_retrieval_config       the retrieval config in force: the stored one over the strategy default

-- 1. The catalogue ----------------------------------------------------------------------

alter table ai.kb_strategies drop constraint kb_strategies_default_retrieval_method_fkey;
alter table ai.kb_strategies drop constraint kb_strategies_check;
update ai.kb_retrievers set name = 'vector_search' where name = 'vector';
update ai.kb_strategies
   set compatible_retrievers = array_replace(compatible_retrievers, 'vector', 'vector_search'),
       default_retrieval_method = replace(default_retrieval_method, 'vector', 'vector_search');
alter table ai.kb_strategies add foreign key (default_retrieval_method) references ai.kb_retrievers;
alter table ai.kb_strategies add check (default_retrieval_method = any (compatible_retrievers));

update ai.kb_strategies set
  default_indexing_config = (default_indexing_config - 'chunk_overlap')
    || case when default_indexing_config ? 'chunk_overlap' then jsonb_build_object('overlap', default_indexing_config -> 'chunk_overlap') else '{}' end,
  default_retrieval_config = (default_retrieval_config - 'reranker')
    || jsonb_build_object('method', default_retrieval_method)
    || case when 'full_text' = any (compatible_retrievers) then '{"ts_language": "english", "bm25": {"k1": 0.9, "b": 0.4}}'::jsonb else '{}' end
    || case when 'hybrid' = any (compatible_retrievers) then '{"fusion": "weighted"}'::jsonb else '{}' end
    || case when name <> 'doc2json' then '{"context_mode": "text"}'::jsonb else '{}' end
    || case when name in ('chunk_embed', 'full_document', 'doc2json', 'graph_index') then '{"query_enrichment": {"enabled": false}}'::jsonb else '{}' end;

-- 2. Retrieval config rules ---------------------------------------------------------------

-- A retrieval config checked for a strategy; answers it with `vector` (the
-- earlier name) written `vector_search`. Missing keys are fine: the strategy
-- default fills them at search time.
create or replace function ai.check_retrieval_config(p_strategy text, p_config jsonb) returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  s ai.kb_strategies;
  c jsonb := p_config;
  bad text;
begin
  select * into s from ai.kb_strategies where name = p_strategy;
  if jsonb_typeof(c) is distinct from 'object' then perform auth.raise_error(400, 'VALIDATION_ERROR', 'retrieval_config must be an object'); end if;
  if c ->> 'method' = 'vector' then c := jsonb_set(c, '{method}', '"vector_search"'); end if;
  if c ? 'method' and not (c ->> 'method' = any (s.compatible_retrievers)) then
    bad := format('retrieval_config.method %s does not suit the %s strategy: use one of %s', c -> 'method', p_strategy, array_to_string(s.compatible_retrievers, ', '));
  elsif c ? 'top_k' and (jsonb_typeof(c -> 'top_k') <> 'number' or (c ->> 'top_k')::numeric not between 1 and 100 or (c ->> 'top_k')::numeric % 1 <> 0) then
    bad := 'retrieval_config.top_k must be an integer from 1 to 100';
  elsif c ? 'vector_weight' and (jsonb_typeof(c -> 'vector_weight') <> 'number' or (c ->> 'vector_weight')::numeric not between 0 and 1) then
    bad := 'retrieval_config.vector_weight must be a number from 0 to 1';
  elsif c ? 'fusion' and c ->> 'fusion' not in ('weighted', 'rrf') then
    bad := 'retrieval_config.fusion must be weighted or rrf';
  elsif c ? 'context_mode' and (c ->> 'context_mode' not in ('text', 'image') or (p_strategy = 'doc2json' and c ->> 'context_mode' = 'image')) then
    bad := case when p_strategy = 'doc2json' then 'retrieval_config.context_mode image is not available for doc2json' else 'retrieval_config.context_mode must be text or image' end;
  elsif c ? 'ts_language' and (jsonb_typeof(c -> 'ts_language') <> 'string' or not exists (select 1 from pg_catalog.pg_ts_config t where t.cfgname = c ->> 'ts_language')) then
    bad := format('retrieval_config.ts_language %s is not a text search configuration of this database', c -> 'ts_language');
  elsif c ? 'bm25' and (jsonb_typeof(c -> 'bm25') <> 'object'
        or (c -> 'bm25' ? 'k1' and (jsonb_typeof(c #> '{bm25,k1}') <> 'number' or (c #>> '{bm25,k1}')::numeric not between 0 and 10))
        or (c -> 'bm25' ? 'b' and (jsonb_typeof(c #> '{bm25,b}') <> 'number' or (c #>> '{bm25,b}')::numeric not between 0 and 1))) then
    bad := 'retrieval_config.bm25 must be {k1: 0 to 10, b: 0 to 1}';
  elsif c ? 'reranker' and jsonb_typeof(c -> 'reranker') not in ('object', 'null') then
    bad := 'retrieval_config.reranker must be an object {model, candidate_count} (absent or null turns reranking off)';
  elsif jsonb_typeof(c -> 'reranker') = 'object' and not s.supports_reranker then
    bad := format('The %s strategy does not support reranking', p_strategy);
  elsif jsonb_typeof(c -> 'reranker') = 'object' and c -> 'reranker' ? 'candidate_count'
        and (jsonb_typeof(c #> '{reranker,candidate_count}') <> 'number' or (c #>> '{reranker,candidate_count}')::numeric not between 1 and 200) then
    bad := 'retrieval_config.reranker.candidate_count must be from 1 to 200';
  elsif c ? 'query_enrichment' and jsonb_typeof(c -> 'query_enrichment') <> 'object' then
    bad := 'retrieval_config.query_enrichment must be an object {enabled, model}';
  elsif c ? 'score_threshold' and jsonb_typeof(c -> 'score_threshold') <> 'number' then
    bad := 'retrieval_config.score_threshold must be a number';
  end if;
  if bad is not null then perform auth.raise_error(400, 'VALIDATION_ERROR', bad); end if;
  return c;
end
$$;
revoke execute on function ai.check_retrieval_config(text, jsonb) from public;
grant execute on function ai.check_retrieval_config(text, jsonb) to authenticated, service_role;

-- 3. Knowledge bases ------------------------------------------------------------------------

create table ai.knowledge_bases (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  name text not null check (name <> '' and length(name) <= 500),
  description text,
  strategy text not null references ai.kb_strategies,
  indexing_config jsonb not null check (jsonb_typeof(indexing_config) = 'object'),
  retrieval_config jsonb not null check (jsonb_typeof(retrieval_config) = 'object'),
  -- The indexing config changed after sources were indexed with the old one.
  needs_reindex boolean not null default false,
  -- BM25 statistics: none, building, ready (current for bm25_language), failed (bm25_message says why).
  bm25_status text not null default 'none' check (bm25_status in ('none', 'building', 'ready', 'failed')),
  bm25_language text,
  bm25_message text,
  bm25_built_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index knowledge_bases_owner on ai.knowledge_bases (owner_id, created_at desc);
alter table ai.knowledge_bases enable row level security;
create policy knowledge_bases_read on ai.knowledge_bases for select to authenticated using (ai.can_read(owner_id));
create policy knowledge_bases_insert on ai.knowledge_bases for insert to authenticated with check (ai.owns(owner_id));
create policy knowledge_bases_update on ai.knowledge_bases for update to authenticated using (ai.owns(owner_id)) with check (ai.owns(owner_id));
create policy knowledge_bases_delete on ai.knowledge_bases for delete to authenticated using (ai.owns(owner_id));
grant select, delete on ai.knowledge_bases to authenticated;
grant insert (id, name, description, strategy, indexing_config, retrieval_config) on ai.knowledge_bases to authenticated;
grant update (name, description, strategy, indexing_config, retrieval_config) on ai.knowledge_bases to authenticated;
grant select, insert, update, delete on ai.knowledge_bases to service_role;
create trigger knowledge_bases_touch before update on ai.knowledge_bases for each row execute function ai.touch();

-- The configs as stored. indexing_config: the strategy's defaults, then the
-- supplied keys (`chunk_overlap` read as `overlap`), then `strategy`. A
-- changed indexing config marks a knowledge base with indexed sources as
-- needing a reindex. retrieval_config: on create merged over the defaults; on
-- update stored as sent (4.13), checked against the strategy either way. A
-- strategy change without a new retrieval config takes the new defaults.
create or replace function ai.prepare_knowledge_base() returns trigger
language plpgsql
set search_path = ''
as $$
declare
  s ai.kb_strategies;
  supplied jsonb := new.indexing_config;
begin
  new.strategy := coalesce(supplied ->> 'strategy', new.strategy);
  select * into s from ai.kb_strategies where name = new.strategy;
  if not found then
    perform auth.raise_error(400, 'VALIDATION_ERROR', format('Unknown indexing strategy %s: use one of %s', new.strategy,
      (select string_agg(x.name, ', ' order by x.position) from ai.kb_strategies x)));
  end if;
  if supplied ? 'chunk_overlap' and not supplied ? 'overlap' then supplied := supplied || jsonb_build_object('overlap', supplied -> 'chunk_overlap'); end if;
  if tg_op = 'INSERT' or new.indexing_config is distinct from old.indexing_config then
    new.indexing_config := ai.resolve_config(s.default_indexing_config) || (supplied - 'chunk_overlap') || jsonb_build_object('strategy', new.strategy);
  end if;
  if tg_op = 'INSERT' then
    new.retrieval_config := ai.resolve_config(s.default_retrieval_config) || ai.check_retrieval_config(new.strategy, new.retrieval_config);
  else
    if new.strategy <> old.strategy and new.retrieval_config is not distinct from old.retrieval_config then
      new.retrieval_config := ai.resolve_config(s.default_retrieval_config);
    end if;
    new.retrieval_config := ai.check_retrieval_config(new.strategy, new.retrieval_config);
    if new.indexing_config is distinct from old.indexing_config
       and exists (select 1 from ai.kb_sources k where k.kb_id = new.id and k.index_status <> 'pending') then
      new.needs_reindex := true;
    end if;
  end if;
  return new;
end
$$;
revoke execute on function ai.prepare_knowledge_base() from public, anon, authenticated, service_role;
create trigger knowledge_bases_prepare before insert or update on ai.knowledge_bases for each row execute function ai.prepare_knowledge_base();

-- 4. The retrieval config in force ------------------------------------------------------------

create or replace function ai.kb_retrieval_config(p_kb uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  select ai.resolve_config(s.default_retrieval_config) || k.retrieval_config
    from ai.knowledge_bases k join ai.kb_strategies s on s.name = k.strategy
   where k.id = p_kb
$$;
revoke execute on function ai.kb_retrieval_config(uuid) from public;
grant execute on function ai.kb_retrieval_config(uuid) to authenticated, service_role;
