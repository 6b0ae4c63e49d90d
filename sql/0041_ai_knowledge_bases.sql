-- AI surface: knowledge bases and their indexed sources (spec 2.6, 2.7, 3.2, 4.13).
--
--   1. the catalogue in the spec's words  retriever `vector` is `vector_search`; the chunk overlap key
--                                         is `overlap`; reranking is off by default (a `reranker`
--                                         object present means on); BM25's k1 and b; `ts_language`
--   2. ai.check_retrieval_config    the rules of a retrieval config, for a strategy (400 naming the rule)
--   3. ai.knowledge_bases           owned per the access model; configs merged over the strategy defaults
--   4. ai.kb_retrieval_config       the retrieval config in force: the stored one over the strategy default
--   5. ai.kb_sources                a source in a knowledge base: index state, run, progress, stats
--   6. ai.kb_items, ai.kb_vectors   what indexing made (chunks, documents, ...) and their embeddings
--   7. the state machine            guarded statements, each keyed by the index run:
--        ai.add_kb_source           new -> pending; the job queued now, or when extraction ends
--        ai.queue_waiting_indexing  extraction ended -> the sources waiting on it queued (or failed)
--        ai.begin_indexing          pending -> indexing (the run's earlier items removed)
--        ai.indexing_progress       steps done of total, while indexing
--        ai.finish_indexing         indexing -> indexed | failed
--        ai.cancel_kb_source        pending | indexing -> cancelled; 409 from the others
--        ai.reindex_kb_sources      the chosen ones -> pending, a new run each
--        ai.remove_kb_source        the row and everything derived from it; its job revoked
--   8. ai.kb_source_list            the list of 4.13: filter, sort, page, total
--
-- `index_run` counts indexings of a row: a job carries the run it was queued
-- for and every step is guarded on it, so a job left over from an earlier run
-- (cancelled, re-indexed) changes nothing.

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

-- 5. Indexed sources ----------------------------------------------------------------------------

create table ai.kb_sources (
  id uuid primary key default gen_random_uuid(),
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  source_id uuid not null references ai.sources on delete cascade,
  index_status text not null default 'pending' check (index_status in ('pending', 'indexing', 'indexed', 'failed', 'cancelled')),
  index_run int not null default 1,
  steps_done int not null default 0,
  steps_total int,
  -- What indexing made (items, tokens, embeddings, timings), for the user.
  stats jsonb not null default '{}' check (jsonb_typeof(stats) = 'object'),
  error_message text,
  index_started_at timestamptz,
  indexed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (kb_id, source_id)
);
create index kb_sources_source on ai.kb_sources (source_id);
alter table ai.kb_sources enable row level security;
-- Read with the knowledge base; changed only through the functions below.
create policy kb_sources_read on ai.kb_sources for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
grant select on ai.kb_sources to authenticated;
grant select, insert, update, delete on ai.kb_sources to service_role;
create trigger kb_sources_touch before update on ai.kb_sources for each row execute function ai.touch();

create trigger knowledge_bases_prepare before insert or update on ai.knowledge_bases for each row execute function ai.prepare_knowledge_base();

-- 6. Items and vectors ----------------------------------------------------------------------------

create table ai.kb_items (
  id uuid primary key default gen_random_uuid(),
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  kb_source_id uuid not null references ai.kb_sources on delete cascade,
  source_id uuid not null,
  -- chunk (chunk_embed, graph_index), document (full_document), node (page_index), item (doc2json)
  kind text not null check (kind in ('chunk', 'document', 'node', 'item')),
  position int not null,
  text text not null,
  -- Provenance: page, headings, element types and boxes, characters, tokens.
  meta jsonb not null default '{}' check (jsonb_typeof(meta) = 'object'),
  -- What a strategy adds (a summary, a JSON item, a node path).
  extras jsonb not null default '{}' check (jsonb_typeof(extras) = 'object'),
  -- Metadata enrichment's values (a copy of the item's row in its knowledge
  -- base's metadata table, sql/0044), so filter_metadata can read them.
  enrichment jsonb not null default '{}' check (jsonb_typeof(enrichment) = 'object'),
  token_count int not null default 0,
  created_at timestamptz not null default now()
);
create index kb_items_source on ai.kb_items (kb_source_id, position);
create index kb_items_kb on ai.kb_items (kb_id, source_id, position);
alter table ai.kb_items enable row level security;
create policy kb_items_read on ai.kb_items for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
grant select on ai.kb_items to authenticated;
grant select, insert, update, delete on ai.kb_items to service_role;

-- An item's embedding, unit length, as little-endian float32 (rescoring reads
-- it), and its sign bits (`code`), which a search without pgvector scans with
-- bit_count(code # query) for candidates. Kept apart from the items so that
-- scan reads a narrow table.
create table ai.kb_vectors (
  item_id uuid primary key references ai.kb_items on delete cascade,
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  model text not null,
  dims int not null check (dims > 0),
  code bit varying not null,
  embedding bytea not null,
  check (bit_length(code) = dims and length(embedding) = 4 * dims)
);
alter table ai.kb_vectors alter column embedding set storage external;
create index kb_vectors_kb on ai.kb_vectors (kb_id, model);
alter table ai.kb_vectors enable row level security;
create policy kb_vectors_read on ai.kb_vectors for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
grant select on ai.kb_vectors to authenticated;
grant select, insert, update, delete on ai.kb_vectors to service_role;

-- 7. The state machine ------------------------------------------------------------------------------

-- Progress and ends go out on the realtime bus after commit: a broadcast on
-- the private channel `knowledge-base:<kb_id>` (event indexing_progress or
-- indexing_finished), received where realtime.messages policies allow.
create or replace function ai.announce_indexing(p_id uuid, p_event text) returns void
language sql volatile
set search_path = ''
as $$
  select realtime.send(jsonb_build_object('indexed_source_id', k.id, 'knowledge_base_id', k.kb_id, 'source_id', k.source_id,
                                          'index_status', k.index_status, 'steps_done', k.steps_done, 'steps_total', k.steps_total,
                                          'error_message', k.error_message),
                       p_event, 'knowledge-base:' || k.kb_id::text, true)
    from ai.kb_sources k where k.id = p_id;
$$;
revoke execute on function ai.announce_indexing(uuid, text) from public;
grant execute on function ai.announce_indexing(uuid, text) to service_role;

-- Queues the row's job when its source is ready to read, fails it when the
-- source never will be, and leaves it pending while extraction goes on
-- (ai.queue_waiting_indexing queues it then).
create or replace function ai.start_indexing(p_id uuid) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  k ai.kb_sources;
  v_status text;
begin
  select * into k from ai.kb_sources where id = p_id and index_status = 'pending';
  if not found then return; end if;
  select s.extraction_status into v_status from ai.sources s where s.id = k.source_id;
  if v_status in ('extracted', 'attention_required') then
    perform graphile_worker.add_job('ai_kb_index', json_build_object('indexed_source_id', k.id, 'run', k.index_run),
      job_key := 'kb-source:' || k.id::text, job_key_mode := 'replace', max_attempts := 3);
  elsif v_status in ('failed', 'cancelled') then
    update ai.kb_sources set index_status = 'failed',
           error_message = format('The source could not be read (extraction %s): re-extract it, then reindex', v_status)
     where id = p_id;
    perform ai.announce_indexing(p_id, 'indexing_finished');
  end if;
end
$$;
revoke execute on function ai.start_indexing(uuid) from public;
grant execute on function ai.start_indexing(uuid) to service_role;

-- POST /api/knowledge-bases/{id}/sources: 404 unless the caller may change the
-- knowledge base and read the source; 409 when it is already there.
create or replace function ai.add_kb_source(p_kb uuid, p_source uuid) returns ai.kb_sources
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  k ai.kb_sources;
begin
  if not exists (select 1 from ai.knowledge_bases b where b.id = p_kb and (ai.owns(b.owner_id) or auth.role() = 'service_role')) then
    perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found');
  end if;
  if not exists (select 1 from ai.sources s where s.id = p_source and (ai.can_read(s.owner_id) or auth.role() = 'service_role')) then
    perform auth.raise_error(404, 'NOT_FOUND', 'Source not found');
  end if;
  insert into ai.kb_sources (kb_id, source_id) values (p_kb, p_source) on conflict (kb_id, source_id) do nothing returning * into k;
  if not found then perform auth.raise_error(409, 'CONFLICT', 'This source is already in the knowledge base: reindex it instead'); end if;
  perform ai.start_indexing(k.id);
  select * into k from ai.kb_sources where id = k.id;
  return k;
end
$$;
revoke execute on function ai.add_kb_source(uuid, uuid) from public;
grant execute on function ai.add_kb_source(uuid, uuid) to authenticated, service_role;

-- Extraction ended: rows waiting on the source start. Security definer: the
-- extraction job's role queues jobs only through it.
create or replace function ai.queue_waiting_indexing() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  perform ai.start_indexing(k.id) from ai.kb_sources k where k.source_id = new.id and k.index_status = 'pending';
  return null;
end
$$;
revoke execute on function ai.queue_waiting_indexing() from public, anon, authenticated, service_role;
create trigger sources_queue_indexing after update of extraction_status on ai.sources
  for each row when (new.extraction_status in ('extracted', 'attention_required', 'failed', 'cancelled') and old.extraction_status is distinct from new.extraction_status)
  execute function ai.queue_waiting_indexing();

-- The job takes its run: pending -> indexing, the row's earlier items gone.
-- False when the run is stale or no longer wanted. A retry finds it indexing and takes it again.
create or replace function ai.begin_indexing(p_id uuid, p_run int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update ai.kb_sources set index_status = 'indexing', index_started_at = now(), steps_done = 0, steps_total = null, error_message = null
   where id = p_id and index_run = p_run and index_status in ('pending', 'indexing');
  if not found then return false; end if;
  delete from ai.kb_items where kb_source_id = p_id;
  perform ai.announce_indexing(p_id, 'indexing_progress');
  return true;
end
$$;
revoke execute on function ai.begin_indexing(uuid, int) from public;
grant execute on function ai.begin_indexing(uuid, int) to service_role;

-- Steps done of total while the run indexes. False when it should stop (cancelled, removed, re-queued).
create or replace function ai.indexing_progress(p_id uuid, p_run int, p_done int, p_total int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update ai.kb_sources set steps_done = p_done, steps_total = p_total
   where id = p_id and index_run = p_run and index_status = 'indexing';
  if not found then return false; end if;
  perform ai.announce_indexing(p_id, 'indexing_progress');
  return true;
end
$$;
revoke execute on function ai.indexing_progress(uuid, int, int, int) from public;
grant execute on function ai.indexing_progress(uuid, int, int, int) to service_role;

-- indexing -> indexed (BM25 statistics kept current, ai.bm25_after_indexing)
-- or failed (its items removed, with the message).
create or replace function ai.finish_indexing(p_id uuid, p_run int, p_status text, p_message text, p_stats jsonb) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  if p_status not in ('indexed', 'failed') then raise exception 'an indexing ends indexed or failed, not %', p_status; end if;
  update ai.kb_sources
     set index_status = p_status, error_message = p_message, stats = coalesce(p_stats, '{}'),
         indexed_at = case when p_status = 'indexed' then now() end,
         steps_done = case when p_status = 'indexed' then coalesce(steps_total, steps_done) else steps_done end
   where id = p_id and index_run = p_run and index_status = 'indexing';
  if not found then return false; end if;
  if p_status = 'failed' then delete from ai.kb_items where kb_source_id = p_id; end if;
  if p_status = 'indexed' then perform ai.bm25_after_indexing(p_id); end if;
  perform ai.announce_indexing(p_id, 'indexing_finished');
  return true;
end
$$;
revoke execute on function ai.finish_indexing(uuid, int, text, text, jsonb) from public;
grant execute on function ai.finish_indexing(uuid, int, text, text, jsonb) to service_role;

create or replace function ai.may_change_kb(p_kb uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$ select exists (select 1 from ai.knowledge_bases b where b.id = p_kb and (ai.owns(b.owner_id) or auth.role() = 'service_role')) $$;
revoke execute on function ai.may_change_kb(uuid) from public;
grant execute on function ai.may_change_kb(uuid) to authenticated, service_role;

-- POST .../sources/{indexed_source_id}/cancel (spec 3.2).
create or replace function ai.cancel_kb_source(p_kb uuid, p_id uuid) returns ai.kb_sources
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  k ai.kb_sources;
begin
  if not ai.may_change_kb(p_kb) then perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found'); end if;
  update ai.kb_sources x set index_status = 'cancelled', error_message = 'Cancelled'
   where x.id = p_id and x.kb_id = p_kb and x.index_status in ('pending', 'indexing')
  returning x.* into k;
  if not found then
    select x.* into k from ai.kb_sources x where x.id = p_id and x.kb_id = p_kb;
    if not found then perform auth.raise_error(404, 'NOT_FOUND', 'Indexed source not found in this knowledge base'); end if;
    perform auth.raise_error(409, 'CONFLICT', format('Only a pending or indexing source can be cancelled; this one is %s', k.index_status));
  end if;
  perform graphile_worker.remove_job('kb-source:' || p_id::text);
  delete from ai.kb_items where kb_source_id = p_id;
  perform ai.announce_indexing(p_id, 'indexing_finished');
  return k;
end
$$;
revoke execute on function ai.cancel_kb_source(uuid, uuid) from public;
grant execute on function ai.cancel_kb_source(uuid, uuid) to authenticated, service_role;

-- POST .../reindex: explicit ids win over failed_only; neither re-indexes all.
-- Each chosen row gets a new run and starts (or waits for its source).
-- Answers how many; 404 for an id not in this knowledge base. Re-indexing all
-- clears needs_reindex.
create or replace function ai.reindex_kb_sources(p_kb uuid, p_ids uuid[], p_failed_only boolean) returns int
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_ids uuid[];
  v_missing uuid;
begin
  if not ai.may_change_kb(p_kb) then perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found'); end if;
  if p_ids is not null then
    select i into v_missing from unnest(p_ids) i where not exists (select 1 from ai.kb_sources k where k.id = i and k.kb_id = p_kb) limit 1;
    if v_missing is not null then perform auth.raise_error(404, 'NOT_FOUND', format('Indexed source %s not found in this knowledge base', v_missing)); end if;
  end if;
  with chosen as (
    update ai.kb_sources k
       set index_status = 'pending', index_run = k.index_run + 1, error_message = null, steps_done = 0, steps_total = null, indexed_at = null
     where k.kb_id = p_kb
       and case when p_ids is not null then k.id = any (p_ids) when p_failed_only then k.index_status = 'failed' else true end
    returning k.id)
  select coalesce(array_agg(id), '{}') into v_ids from chosen;
  perform ai.start_indexing(i) from unnest(v_ids) i;
  if p_ids is null and not coalesce(p_failed_only, false) then
    update ai.knowledge_bases set needs_reindex = false where id = p_kb;
  end if;
  return cardinality(v_ids);
end
$$;
revoke execute on function ai.reindex_kb_sources(uuid, uuid[], boolean) from public;
grant execute on function ai.reindex_kb_sources(uuid, uuid[], boolean) to authenticated, service_role;

-- DELETE .../sources/{indexed_source_id}: the waiting job removed (a running
-- one finds its row gone at its next step and stops; graphile-worker keeps a
-- locked job, which does not block), then the row and, by cascade, its items,
-- vectors and BM25 postings. The source stays.
create or replace function ai.remove_kb_source(p_kb uuid, p_id uuid) returns boolean
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  if not ai.may_change_kb(p_kb) then perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found'); end if;
  perform graphile_worker.remove_job('kb-source:' || p_id::text);
  delete from ai.kb_sources where id = p_id and kb_id = p_kb;
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'Indexed source not found in this knowledge base'); end if;
  return true;
end
$$;
revoke execute on function ai.remove_kb_source(uuid, uuid) from public;
grant execute on function ai.remove_kb_source(uuid, uuid) to authenticated, service_role;

-- 8. The list of 4.13 ---------------------------------------------------------------------------------

-- Indexed-source entries of a knowledge base the caller can read: `q` a
-- case-insensitive name substring, `status` one index_status, `sort` name or
-- created_at (the source's) in `order`; no sort puts failed first, then the
-- newest source. One page and the total.
create or replace function ai.kb_source_list(p_kb uuid, p_q text, p_status text, p_sort text, p_order text, p_limit int, p_offset int)
returns jsonb
language sql stable
set search_path = ''
as $$
  with rows as (
    select k.id, k.source_id, k.index_status, k.indexed_at, k.stats, k.error_message, k.steps_done, k.steps_total,
           k.created_at, s.name as source_name, s.extension as file_type, s.created_at as source_created_at
      from ai.kb_sources k join ai.sources s on s.id = k.source_id
     where k.kb_id = p_kb
       and (p_q is null or s.name ilike '%' || replace(replace(replace(p_q, '\', '\\'), '%', '\%'), '_', '\_') || '%')
       and (p_status is null or k.index_status = p_status))
  select jsonb_build_object(
    'items', coalesce((select jsonb_agg(to_jsonb(p) - 'ord' order by p.ord) from (
        select r.*, row_number() over (order by
                 case when p_sort = 'name' and p_order = 'asc' then lower(r.source_name) end asc,
                 case when p_sort = 'name' and p_order <> 'asc' then lower(r.source_name) end desc,
                 case when p_sort = 'created_at' and p_order = 'asc' then r.source_created_at end asc,
                 case when p_sort = 'created_at' and p_order <> 'asc' then r.source_created_at end desc,
                 case when p_sort is null then r.index_status = 'failed' end desc,
                 case when p_sort is null then r.source_created_at end desc,
                 r.id) as ord
          from rows r order by ord limit p_limit offset p_offset) p), '[]'),
    'total', (select count(*) from rows),
    'limit', p_limit,
    'offset', p_offset)
$$;
revoke execute on function ai.kb_source_list(uuid, text, text, text, text, int, int) from public;
grant execute on function ai.kb_source_list(uuid, text, text, text, text, int, int) to authenticated, service_role;

-- A knowledge base's status for GET: sources per index_status, items, whether a reindex is due.
create or replace function ai.kb_status(p_kb uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_build_object(
    'sources', (select count(*) from ai.kb_sources k where k.kb_id = p_kb),
    'pending', (select count(*) from ai.kb_sources k where k.kb_id = p_kb and k.index_status = 'pending'),
    'indexing', (select count(*) from ai.kb_sources k where k.kb_id = p_kb and k.index_status = 'indexing'),
    'indexed', (select count(*) from ai.kb_sources k where k.kb_id = p_kb and k.index_status = 'indexed'),
    'failed', (select count(*) from ai.kb_sources k where k.kb_id = p_kb and k.index_status = 'failed'),
    'cancelled', (select count(*) from ai.kb_sources k where k.kb_id = p_kb and k.index_status = 'cancelled'),
    'items', (select count(*) from ai.kb_items i where i.kb_id = p_kb),
    'needs_reindex', (select b.needs_reindex from ai.knowledge_bases b where b.id = p_kb))
$$;
revoke execute on function ai.kb_status(uuid) from public;
grant execute on function ai.kb_status(uuid) to authenticated, service_role;
