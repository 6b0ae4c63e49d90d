-- AI surface: what indexing stores and what search reads (spec 4.13; the
-- knowledge-base issue's BM25 and vector rules).
--
--   1. ai.store_kb_items          a run's items and vectors, kept only while the run holds
--   2. BM25 statistics            ai.kb_bm25_docs (length per item and language),
--                                 ai.kb_bm25_postings (term frequency per term and item)
--        ai.bm25_add_items        statistics of a knowledge base's items (all, or one indexed source)
--        ai.request_bm25_build    POST build-bm25: building, a job queued; 400 where no lexical method is used
--        ai.bm25_build            the job: statistics rebuilt -> ready, or failed
--        ai.bm25_after_indexing   BM25_AUTO_INDEXING: a newly indexed source's statistics added
--   3. ai.bm25_search             Okapi BM25 over to_tsvector lexemes: IDF ln(1 + (N - df + .5)/(df + .5)),
--                                 tf (k1 + 1) / (tf + k1 (1 - b + b dl/avgdl)), summed over query terms
--   4. ai.kb_vector_candidates    nearest sign-bit codes by Hamming distance (no pgvector needed)
--   5. ai.kb_filter_ok            filter_metadata against the item's meta over its source's metadata
--
-- Search functions are security definer: they check once that the caller can
-- read the knowledge base, then scan its rows without per-row policies.

-- 1. Storing a run's items ---------------------------------------------------------------------

-- p_items: [{position, kind, text, meta, extras, token_count, embedding_model?,
-- code? (a '0101…' string), embedding? (base64 float32)}]. Nothing is stored
-- unless the run is still indexing. Answers how many items were stored.
create or replace function ai.store_kb_items(p_id uuid, p_run int, p_items jsonb) returns int
language plpgsql volatile
set search_path = ''
as $$
declare
  k ai.kb_sources;
  n int;
begin
  select * into k from ai.kb_sources where id = p_id and index_run = p_run and index_status = 'indexing' for update;
  if not found then return 0; end if;
  with input as (
    select gen_random_uuid() as id, x.*
      from jsonb_to_recordset(p_items) as x(position int, kind text, text text, meta jsonb, extras jsonb, token_count int,
                                              embedding_model text, code text, embedding text)),
  items as (
    insert into ai.kb_items (id, kb_id, kb_source_id, source_id, kind, position, text, meta, extras, token_count)
    select i.id, k.kb_id, k.id, k.source_id, i.kind, i.position, i.text, coalesce(i.meta, '{}'), coalesce(i.extras, '{}'), coalesce(i.token_count, 0)
      from input i
    returning 1),
  vectors as (
    insert into ai.kb_vectors (item_id, kb_id, model, dims, code, embedding)
    select i.id, k.kb_id, i.embedding_model, length(i.code), i.code::bit varying, decode(i.embedding, 'base64')
      from input i where i.code is not null
    returning 1)
  select count(*) into n from items;
  return n;
end
$$;
revoke execute on function ai.store_kb_items(uuid, int, jsonb) from public;
grant execute on function ai.store_kb_items(uuid, int, jsonb) to service_role;

-- 2. BM25 statistics -------------------------------------------------------------------------------

create table ai.kb_bm25_docs (
  item_id uuid not null references ai.kb_items on delete cascade,
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  language text not null,
  -- Document length: the item's lexeme occurrences (stop words are not counted, as in Lucene).
  length int not null,
  primary key (item_id, language)
);
create index kb_bm25_docs_kb on ai.kb_bm25_docs (kb_id, language);

create table ai.kb_bm25_postings (
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  language text not null,
  term text not null,
  item_id uuid not null references ai.kb_items on delete cascade,
  tf int not null,
  -- The item's length again, so scoring reads one table.
  length int not null,
  primary key (kb_id, language, term, item_id)
);
create index kb_bm25_postings_item on ai.kb_bm25_postings (item_id);

alter table ai.kb_bm25_docs enable row level security;
alter table ai.kb_bm25_postings enable row level security;
create policy kb_bm25_docs_read on ai.kb_bm25_docs for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
create policy kb_bm25_postings_read on ai.kb_bm25_postings for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
grant select on ai.kb_bm25_docs, ai.kb_bm25_postings to authenticated;
grant select, insert, update, delete on ai.kb_bm25_docs, ai.kb_bm25_postings to service_role;

-- Statistics of the knowledge base's items in a language: all of them, or
-- those of one indexed source. An item without lexemes counts with length 0.
create or replace function ai.bm25_add_items(p_kb uuid, p_language text, p_kb_source uuid) returns int
language plpgsql volatile
set search_path = ''
as $$
declare
  n int;
begin
  with items as (
    select i.id, to_tsvector(p_language::regconfig, i.text) as v
      from ai.kb_items i where i.kb_id = p_kb and (p_kb_source is null or i.kb_source_id = p_kb_source)),
  terms as (
    select i.id, l.lexeme, coalesce(array_length(l.positions, 1), 1) as tf from items i cross join lateral unnest(i.v) l),
  docs as (
    insert into ai.kb_bm25_docs (item_id, kb_id, language, length)
    select i.id, p_kb, p_language, coalesce((select sum(t.tf) from terms t where t.id = i.id), 0) from items i
    on conflict (item_id, language) do update set length = excluded.length
    returning item_id, length),
  posted as (
    insert into ai.kb_bm25_postings (kb_id, language, term, item_id, tf, length)
    select p_kb, p_language, t.lexeme, t.id, t.tf, d.length from terms t join docs d on d.item_id = t.id
    on conflict (kb_id, language, term, item_id) do update set tf = excluded.tf, length = excluded.length
    returning 1)
  select count(*) into n from docs;
  return n;
end
$$;
revoke execute on function ai.bm25_add_items(uuid, text, uuid) from public;
grant execute on function ai.bm25_add_items(uuid, text, uuid) to service_role;

-- Whether the retrieval method in force scores lexically (full_text, hybrid).
create or replace function ai.kb_uses_lexical(p_kb uuid) returns boolean
language sql stable
set search_path = ''
as $$ select coalesce((select r.uses_lexical from ai.kb_retrievers r where r.name = ai.kb_retrieval_config(p_kb) ->> 'method'), false) $$;
revoke execute on function ai.kb_uses_lexical(uuid) from public;
grant execute on function ai.kb_uses_lexical(uuid) to authenticated, service_role;

-- POST build-bm25: 404 unless the caller may change the knowledge base, 400
-- when its method uses no lexical scores; else building and the job queued
-- (keyed by the knowledge base, so a second request replaces a waiting one).
-- Answers the job id as the task id.
create or replace function ai.request_bm25_build(p_kb uuid) returns text
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_method text;
  v_job bigint;
begin
  if not ai.may_change_kb(p_kb) then perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found'); end if;
  if not ai.kb_uses_lexical(p_kb) then
    v_method := ai.kb_retrieval_config(p_kb) ->> 'method';
    perform auth.raise_error(400, 'VALIDATION_ERROR', format('BM25 is built only for the full_text and hybrid methods; this knowledge base searches with %s', v_method));
  end if;
  update ai.knowledge_bases set bm25_status = 'building', bm25_message = null where id = p_kb;
  select j.id into v_job from graphile_worker.add_job('ai_kb_bm25', json_build_object('knowledge_base_id', p_kb),
    job_key := 'bm25:' || p_kb::text, job_key_mode := 'replace', max_attempts := 2) j;
  return v_job::text;
end
$$;
revoke execute on function ai.request_bm25_build(uuid) from public;
grant execute on function ai.request_bm25_build(uuid) to authenticated, service_role;

-- The job: every item's statistics in the configured language, in one
-- transaction (searches meanwhile use the previous ones or compute exactly).
create or replace function ai.bm25_build(p_kb uuid) returns int
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_language text := coalesce(ai.kb_retrieval_config(p_kb) ->> 'ts_language', 'english');
  n int;
begin
  perform 1 from ai.knowledge_bases where id = p_kb for update;
  if not found then return 0; end if;
  delete from ai.kb_bm25_docs where kb_id = p_kb;
  delete from ai.kb_bm25_postings where kb_id = p_kb;
  n := ai.bm25_add_items(p_kb, v_language, null);
  -- Fresh statistics for the planner, whose estimates the search's plans rest on.
  analyze ai.kb_bm25_docs;
  analyze ai.kb_bm25_postings;
  update ai.knowledge_bases set bm25_status = 'ready', bm25_language = v_language, bm25_message = null, bm25_built_at = now() where id = p_kb;
  return n;
end
$$;
revoke execute on function ai.bm25_build(uuid) from public;
grant execute on function ai.bm25_build(uuid) to service_role;

create or replace function ai.bm25_failed(p_kb uuid, p_message text) returns void
language sql volatile
set search_path = ''
as $$ update ai.knowledge_bases set bm25_status = 'failed', bm25_message = p_message where id = p_kb $$;
revoke execute on function ai.bm25_failed(uuid, text) from public;
grant execute on function ai.bm25_failed(uuid, text) to service_role;

-- After a source is indexed. With BM25_AUTO_INDEXING on and a lexical method,
-- its items' statistics are added, and the status is ready once every item of
-- the knowledge base has them. With it off, statistics no longer cover every
-- item: the status goes back to none, and full_text computes exactly (slower)
-- until the next build.
create or replace function ai.bm25_after_indexing(p_kb_source uuid) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_kb uuid := (select kb_id from ai.kb_sources where id = p_kb_source);
  v_language text := coalesce(ai.kb_retrieval_config(v_kb) ->> 'ts_language', 'english');
begin
  if not ai.kb_uses_lexical(v_kb) then return; end if;
  -- One source's statistics at a time per knowledge base, so the last to
  -- finish sees every other's and can say ready.
  perform 1 from ai.knowledge_bases where id = v_kb for no key update;
  if coalesce(ai.setting_json('BM25_AUTO_INDEXING'), 'true')::boolean then
    perform ai.bm25_add_items(v_kb, v_language, p_kb_source);
    update ai.knowledge_bases k
       set bm25_status = 'ready', bm25_language = v_language, bm25_built_at = now(), bm25_message = null
     where k.id = v_kb and k.bm25_status <> 'building'
       and not exists (select 1 from ai.kb_items i where i.kb_id = v_kb
                          and not exists (select 1 from ai.kb_bm25_docs d where d.item_id = i.id and d.language = v_language));
  else
    update ai.knowledge_bases set bm25_status = 'none' where id = v_kb and bm25_status = 'ready';
  end if;
end
$$;
revoke execute on function ai.bm25_after_indexing(uuid) from public;
grant execute on function ai.bm25_after_indexing(uuid) to service_role;

-- 5. Metadata filters ---------------------------------------------------------------------------------

-- filter_metadata: every key must match, in the item's meta (its own, then
-- its enrichment values) or else its source's metadata. A value that is an
-- array matches any of its elements.
create or replace function ai.kb_filter_ok(p_meta jsonb, p_source_metadata jsonb, p_filter jsonb) returns boolean
language sql immutable
set search_path = ''
as $$
  select p_filter is null or p_filter = '{}' or not exists (
    select 1 from jsonb_each(p_filter) f
     where not (case when jsonb_typeof(f.value) = 'array'
                     then coalesce(p_meta -> f.key, p_source_metadata -> f.key) in (select e from jsonb_array_elements(f.value) e)
                       or coalesce(p_meta -> f.key, p_source_metadata -> f.key) @> f.value
                     else coalesce(p_meta -> f.key, p_source_metadata -> f.key) = f.value
                       or (jsonb_typeof(coalesce(p_meta -> f.key, p_source_metadata -> f.key)) = 'array'
                           and coalesce(p_meta -> f.key, p_source_metadata -> f.key) @> jsonb_build_array(f.value)) end))
$$;
revoke execute on function ai.kb_filter_ok(jsonb, jsonb, jsonb) from public;
grant execute on function ai.kb_filter_ok(jsonb, jsonb, jsonb) to authenticated, service_role;

create or replace function ai.kb_readable(p_kb uuid) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if not exists (select 1 from ai.knowledge_bases b where b.id = p_kb and (ai.can_read(b.owner_id) or auth.role() = 'service_role')) then
    perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found');
  end if;
end
$$;
revoke execute on function ai.kb_readable(uuid) from public;
grant execute on function ai.kb_readable(uuid) to authenticated, service_role;

-- 3. BM25 search ---------------------------------------------------------------------------------------

-- The best p_limit items for the query. Statistics come from the postings
-- when they are ready for the language; otherwise they are computed exactly
-- from the items' text in this statement (the same numbers, more slowly).
create or replace function ai.bm25_search(p_kb uuid, p_query text, p_language text, p_k1 float8, p_b float8, p_limit int, p_filter jsonb)
returns table (item_id uuid, score float8)
language plpgsql stable security definer
set search_path = ''
as $$
declare
  v_ready boolean;
begin
  perform ai.kb_readable(p_kb);
  select k.bm25_status = 'ready' and k.bm25_language = p_language into v_ready from ai.knowledge_bases k where k.id = p_kb;
  if v_ready then
    return query
      -- Each query term's postings by index (the lateral keeps that plan whatever the statistics say).
      with q as materialized (select distinct l.lexeme as term from unnest(to_tsvector(p_language::regconfig, p_query)) l),
      hits as materialized (
        select p.term, p.item_id, p.tf, p.length from q cross join lateral (
          select x.term, x.item_id, x.tf, x.length from ai.kb_bm25_postings x where x.kb_id = p_kb and x.language = p_language and x.term = q.term) p),
      n as materialized (select count(*)::float8 as n, coalesce(avg(d.length), 0)::float8 as avgdl from ai.kb_bm25_docs d where d.kb_id = p_kb and d.language = p_language),
      df as (select h.term, count(*)::float8 as df from hits h group by h.term),
      scored as (
        select h.item_id, sum(ln(1 + (n.n - df.df + 0.5) / (df.df + 0.5))
                              * h.tf * (p_k1 + 1) / (h.tf + p_k1 * (1 - p_b + p_b * h.length / greatest(n.avgdl, 1e-9)))) as score
          from hits h join df on df.term = h.term cross join n
         group by h.item_id)
      select s.item_id, s.score from scored s
        join ai.kb_items i on i.id = s.item_id join ai.sources src on src.id = i.source_id
       where ai.kb_filter_ok(i.enrichment || i.meta, src.metadata, p_filter)
       order by s.score desc, s.item_id limit p_limit;
  else
    return query
      with q as (select distinct l.lexeme as term from unnest(to_tsvector(p_language::regconfig, p_query)) l),
      items as (select i.id, to_tsvector(p_language::regconfig, i.text) as v from ai.kb_items i where i.kb_id = p_kb),
      terms as (select i.id, l.lexeme as term, coalesce(array_length(l.positions, 1), 1) as tf from items i cross join lateral unnest(i.v) l),
      lengths as (select i.id, coalesce((select sum(t.tf) from terms t where t.id = i.id), 0)::float8 as length from items i),
      n as (select count(*)::float8 as n, coalesce(avg(length), 0)::float8 as avgdl from lengths),
      hits as (select t.* from terms t join q on q.term = t.term),
      df as (select h.term, count(*)::float8 as df from hits h group by h.term),
      scored as (
        select h.id as item_id, sum(ln(1 + (n.n - df.df + 0.5) / (df.df + 0.5))
                                    * h.tf * (p_k1 + 1) / (h.tf + p_k1 * (1 - p_b + p_b * l.length / greatest(n.avgdl, 1e-9)))) as score
          from hits h join df on df.term = h.term join lengths l on l.id = h.id cross join n
         group by h.id)
      select s.item_id, s.score from scored s
        join ai.kb_items i on i.id = s.item_id join ai.sources src on src.id = i.source_id
       where ai.kb_filter_ok(i.enrichment || i.meta, src.metadata, p_filter)
       order by s.score desc, s.item_id limit p_limit;
  end if;
end
$$;
revoke execute on function ai.bm25_search(uuid, text, text, float8, float8, int, jsonb) from public;
grant execute on function ai.bm25_search(uuid, text, text, float8, float8, int, jsonb) to authenticated, service_role;

-- 4. Vector candidates ----------------------------------------------------------------------------------

-- The p_limit items whose sign bits are nearest the query's (Hamming
-- distance), among those embedded with p_model, with their embeddings:
-- callers rescore them exactly. With a few hundred candidates this keeps
-- recall@10 high (bench:vectors measures it).
create or replace function ai.kb_vector_candidates(p_kb uuid, p_model text, p_code bit varying, p_limit int, p_filter jsonb)
returns table (item_id uuid, distance int, embedding bytea)
language plpgsql stable security definer
set search_path = ''
as $$
begin
  perform ai.kb_readable(p_kb);
  if p_filter is null or p_filter = '{}' then
    return query
      select v.item_id, bit_count(v.code # p_code)::int as d, v.embedding from ai.kb_vectors v
       where v.kb_id = p_kb and v.model = p_model and v.dims = bit_length(p_code)
       order by d, v.item_id limit p_limit;
  else
    return query
      select v.item_id, bit_count(v.code # p_code)::int as d, v.embedding from ai.kb_vectors v
        join ai.kb_items i on i.id = v.item_id join ai.sources src on src.id = i.source_id
       where v.kb_id = p_kb and v.model = p_model and v.dims = bit_length(p_code)
         and ai.kb_filter_ok(i.enrichment || i.meta, src.metadata, p_filter)
       order by d, v.item_id limit p_limit;
  end if;
end
$$;
revoke execute on function ai.kb_vector_candidates(uuid, text, bit varying, int, jsonb) from public;
grant execute on function ai.kb_vector_candidates(uuid, text, bit varying, int, jsonb) to authenticated, service_role;

-- Results as the caller sees them: text, meta and provenance of 2.9.
create or replace function ai.kb_results(p_kb uuid, p_items uuid[]) returns table (
  id uuid, text text, meta jsonb, extras jsonb, kind text, "position" int, token_count int, source_id uuid, source_name text,
  knowledge_base_id uuid, kb_name text, indexing_strategy text)
language plpgsql stable security definer
set search_path = ''
as $$
begin
  perform ai.kb_readable(p_kb);
  return query
    select i.id, i.text, i.meta, i.extras, i.kind, i.position, i.token_count, i.source_id, s.name, k.id, k.name, k.strategy
      from ai.kb_items i join ai.sources s on s.id = i.source_id join ai.knowledge_bases k on k.id = i.kb_id
     where i.kb_id = p_kb and i.id = any (p_items);
end
$$;
revoke execute on function ai.kb_results(uuid, uuid[]) from public;
grant execute on function ai.kb_results(uuid, uuid[]) to authenticated, service_role;
