-- BM25 statistics in one grouped pass (AI conformance issue, item 7).
--
-- ai.bm25_add_items (0043) took each item's length from a correlated
-- subquery over every posting of the knowledge base, so a build scanned the
-- postings once per item: the 5,183 SciFact abstracts ran for more than
-- eight minutes in one statement. The statistics computed on the fly by
-- ai.bm25_search (no statistics for the language yet) had the same shape.
-- Both restated whole, lengths summed per item in one group by:
--   1. ai.bm25_add_items   statistics of a knowledge base's items (all, or one indexed source)
--   2. ai.bm25_search      Okapi BM25, from the postings or computed exactly on the fly

-- 1 ---------------------------------------------------------------------------
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
  lengths as (
    select t.id, sum(t.tf)::int as length from terms t group by t.id),
  docs as (
    insert into ai.kb_bm25_docs (item_id, kb_id, language, length)
    select i.id, p_kb, p_language, coalesce(l.length, 0) from items i left join lengths l on l.id = i.id
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

-- 2 ---------------------------------------------------------------------------
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
      lengths as (select i.id, coalesce(sum(t.tf), 0)::float8 as length from items i left join terms t on t.id = i.id group by i.id),
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
