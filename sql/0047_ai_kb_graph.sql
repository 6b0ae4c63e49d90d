-- AI surface: the graph_index strategy's knowledge graph, after LightRAG, kept
-- in Postgres (the knowledge-base issue; spec 4.13 graph-enrichment).
--
--   1. ai.kb_graph_entities    an entity as one chunk mentions it (name, type, description)
--   2. ai.kb_graph_relations   a relation between two entities as one chunk states it
--   3. ai.kb_graph_errors      a chunk whose extraction failed, with the reason
--   4. ai.graph_store          one chunk's entities and relations (or its error), replacing earlier ones
--   5. ai.graph_search         chunks by the entities a query names and their neighbourhood
--   6. ai.graph_errors         error counts per indexed source (GET graph-enrichment/errors)
--   7. ai.request_graph_enrichment   POST graph-enrichment/run: 400 off graph_index, the job queued
--   8. ai.kb_graph_entity_summaries   an entity's many descriptions summarised (ai.graph_store_summary);
--                                     ai.graph_entities reads them
--
-- Entities are matched across chunks and sources by `name_key` (the name,
-- lower-cased, spaces collapsed); rows go with their chunk.

create table ai.kb_graph_entities (
  id bigint generated always as identity primary key,
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  item_id uuid not null references ai.kb_items on delete cascade,
  name text not null,
  name_key text not null,
  type text not null,
  description text not null default ''
);
create index kb_graph_entities_key on ai.kb_graph_entities (kb_id, name_key);
create index kb_graph_entities_item on ai.kb_graph_entities (item_id);

create table ai.kb_graph_relations (
  id bigint generated always as identity primary key,
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  item_id uuid not null references ai.kb_items on delete cascade,
  source_key text not null,
  target_key text not null,
  description text not null default '',
  keywords text not null default '',
  weight real not null default 1 check (weight > 0)
);
create index kb_graph_relations_source on ai.kb_graph_relations (kb_id, source_key);
create index kb_graph_relations_target on ai.kb_graph_relations (kb_id, target_key);
create index kb_graph_relations_item on ai.kb_graph_relations (item_id);

create table ai.kb_graph_errors (
  item_id uuid primary key references ai.kb_items on delete cascade,
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  kb_source_id uuid not null references ai.kb_sources on delete cascade,
  error text not null,
  created_at timestamptz not null default now()
);

alter table ai.kb_graph_entities enable row level security;
alter table ai.kb_graph_relations enable row level security;
alter table ai.kb_graph_errors enable row level security;
create policy kb_graph_entities_read on ai.kb_graph_entities for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
create policy kb_graph_relations_read on ai.kb_graph_relations for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
create policy kb_graph_errors_read on ai.kb_graph_errors for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
grant select on ai.kb_graph_entities, ai.kb_graph_relations, ai.kb_graph_errors to authenticated;
grant select, insert, update, delete on ai.kb_graph_entities, ai.kb_graph_relations, ai.kb_graph_errors to service_role;

create or replace function ai.graph_key(p_name text) returns text
language sql immutable
set search_path = ''
as $$ select lower(regexp_replace(trim(p_name), '\s+', ' ', 'g')) $$;
revoke execute on function ai.graph_key(text) from public;
grant execute on function ai.graph_key(text) to authenticated, service_role;

-- p_entities: [{name, type, description}], p_relations: [{source, target,
-- description, keywords, weight}]; or p_error when extraction failed.
-- Earlier rows of the chunk are replaced. False when the chunk is gone.
create or replace function ai.graph_store(p_item uuid, p_entities jsonb, p_relations jsonb, p_error text) returns boolean
language plpgsql volatile
set search_path = ''
as $$
declare
  i ai.kb_items;
begin
  select * into i from ai.kb_items where id = p_item;
  if not found then return false; end if;
  delete from ai.kb_graph_entities where item_id = p_item;
  delete from ai.kb_graph_relations where item_id = p_item;
  delete from ai.kb_graph_errors where item_id = p_item;
  if p_error is not null then
    insert into ai.kb_graph_errors (item_id, kb_id, kb_source_id, error) values (p_item, i.kb_id, i.kb_source_id, p_error);
    return true;
  end if;
  insert into ai.kb_graph_entities (kb_id, item_id, name, name_key, type, description)
  select i.kb_id, p_item, trim(e ->> 'name'), ai.graph_key(e ->> 'name'), coalesce(nullif(trim(e ->> 'type'), ''), 'concept'), coalesce(e ->> 'description', '')
    from jsonb_array_elements(coalesce(p_entities, '[]')) e where coalesce(trim(e ->> 'name'), '') <> '';
  insert into ai.kb_graph_relations (kb_id, item_id, source_key, target_key, description, keywords, weight)
  select i.kb_id, p_item, ai.graph_key(r ->> 'source'), ai.graph_key(r ->> 'target'), coalesce(r ->> 'description', ''), coalesce(r ->> 'keywords', ''),
         greatest(coalesce((r ->> 'weight')::real, 1), 0.01)
    from jsonb_array_elements(coalesce(p_relations, '[]')) r
   where coalesce(trim(r ->> 'source'), '') <> '' and coalesce(trim(r ->> 'target'), '') <> '' and jsonb_typeof(coalesce(r -> 'weight', '1')) = 'number';
  return true;
end
$$;
revoke execute on function ai.graph_store(uuid, jsonb, jsonb, text) from public;
grant execute on function ai.graph_store(uuid, jsonb, jsonb, text) to service_role;

-- The entities a query names (its words in an entity's name or description,
-- a name it contains outright counting most), the ten best; their
-- neighbours one relation away (a quarter of the score, by the relation's
-- weight out of 10); then the chunks that mention any of them, and those
-- stating a relation that touches a named one (half its score, by weight).
-- Answers each chunk's score and the entities that brought it.
create or replace function ai.graph_search(p_kb uuid, p_query text, p_limit int, p_filter jsonb)
returns table (item_id uuid, score float8, entities text[])
language plpgsql stable security definer
set search_path = ''
as $$
begin
  perform ai.kb_readable(p_kb);
  return query
    with q as materialized (
      select to_tsquery('simple', coalesce(string_agg(quote_literal(l.lexeme), ' | '), '''''')) as tq from unnest(to_tsvector('simple', p_query)) l),
    named as materialized (
      select e.name_key,
             max(ts_rank_cd(to_tsvector('simple', e.name || ' ' || e.description), q.tq)
                 + case when position(e.name_key in ai.graph_key(p_query)) > 0 then 1 else 0 end)::float8 as s
        from ai.kb_graph_entities e cross join q
       where e.kb_id = p_kb and (to_tsvector('simple', e.name || ' ' || e.description) @@ q.tq or position(e.name_key in ai.graph_key(p_query)) > 0)
       group by e.name_key order by s desc, e.name_key limit 10),
    touching as materialized (
      select r.item_id, r.source_key, r.target_key, least(r.weight, 10) / 10.0 as w, a.s as source_s, b.s as target_s
        from ai.kb_graph_relations r left join named a on a.name_key = r.source_key left join named b on b.name_key = r.target_key
       where r.kb_id = p_kb and (a.name_key is not null or b.name_key is not null)),
    neighbours as (
      select case when t.source_s is not null then t.target_key else t.source_key end as name_key, max(0.25 * t.w * coalesce(t.source_s, t.target_s)) as s
        from touching t group by 1),
    ents as (
      select n.name_key, n.s from named n
      union all
      select x.name_key, x.s from neighbours x where not exists (select 1 from named n where n.name_key = x.name_key)),
    hits as (
      select e.item_id, x.s, e.name from ai.kb_graph_entities e join ents x on x.name_key = e.name_key where e.kb_id = p_kb
      union all
      select t.item_id, 0.5 * t.w * (coalesce(t.source_s, 0) + coalesce(t.target_s, 0)), null from touching t)
    select h.item_id, sum(h.s)::float8, coalesce(array_agg(distinct h.name) filter (where h.name is not null), '{}')
      from hits h join ai.kb_items i on i.id = h.item_id join ai.sources src on src.id = i.source_id
     where ai.kb_filter_ok(i.enrichment || i.meta, src.metadata, p_filter)
     group by h.item_id order by 2 desc, h.item_id limit p_limit;
end
$$;
revoke execute on function ai.graph_search(uuid, text, int, jsonb) from public;
grant execute on function ai.graph_search(uuid, text, int, jsonb) to authenticated, service_role;

create or replace function ai.kb_is_graph(p_kb uuid) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if (select strategy from ai.knowledge_bases where id = p_kb) is distinct from 'graph_index' then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'Graph enrichment is only for knowledge bases with the graph_index strategy');
  end if;
end
$$;
revoke execute on function ai.kb_is_graph(uuid) from public;
grant execute on function ai.kb_is_graph(uuid) to authenticated, service_role;

-- GET graph-enrichment/errors: per indexed source, its chunks whose extraction failed.
create or replace function ai.graph_errors(p_kb uuid) returns jsonb
language plpgsql stable security definer
set search_path = ''
as $$
begin
  perform ai.kb_readable(p_kb);
  perform ai.kb_is_graph(p_kb);
  return coalesce((
    select jsonb_agg(jsonb_build_object('indexed_source_id', k.id, 'source_id', k.source_id, 'source_name', s.name,
                     'error_count', (select count(*) from ai.kb_graph_errors g where g.kb_source_id = k.id),
                     'chunk_count', (select count(*) from ai.kb_items i where i.kb_source_id = k.id),
                     'last_error', (select g.error from ai.kb_graph_errors g where g.kb_source_id = k.id order by g.created_at desc limit 1))
                     order by s.name, k.id)
      from ai.kb_sources k join ai.sources s on s.id = k.source_id where k.kb_id = p_kb), '[]');
end
$$;
revoke execute on function ai.graph_errors(uuid) from public;
grant execute on function ai.graph_errors(uuid) to authenticated, service_role;

-- POST graph-enrichment/run: entities and relations extracted again for one
-- indexed source (or all), every chunk or only those that failed.
create or replace function ai.request_graph_enrichment(p_kb uuid, p_kb_source uuid, p_retry_failed boolean) returns bigint
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_job bigint;
begin
  if not ai.may_change_kb(p_kb) then perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found'); end if;
  perform ai.kb_is_graph(p_kb);
  if p_kb_source is not null and not exists (select 1 from ai.kb_sources where id = p_kb_source and kb_id = p_kb) then
    perform auth.raise_error(404, 'NOT_FOUND', 'Indexed source not found in this knowledge base');
  end if;
  select j.id into v_job from graphile_worker.add_job('ai_kb_graph', json_build_object('knowledge_base_id', p_kb, 'indexed_source_id', p_kb_source, 'retry_failed', coalesce(p_retry_failed, false)),
    job_key := 'graph:' || p_kb::text || ':' || coalesce(p_kb_source::text, 'all'), job_key_mode := 'replace', max_attempts := 2) j;
  return v_job;
end
$$;
revoke execute on function ai.request_graph_enrichment(uuid, uuid, boolean) from public;
grant execute on function ai.request_graph_enrichment(uuid, uuid, boolean) to authenticated, service_role;

-- An entity described in several chunks, its descriptions summarised (by
-- GRAPHINDEX_MODEL, to GRAPHINDEX_SUMMARY_MAX_TOKENS) once together they run
-- long; shorter ones are joined when read (ai.graph_entities).
create table ai.kb_graph_entity_summaries (
  kb_id uuid not null references ai.knowledge_bases on delete cascade,
  name_key text not null,
  summary text not null,
  -- How many descriptions it summarised: a new mention makes it stale.
  mentions int not null,
  updated_at timestamptz not null default now(),
  primary key (kb_id, name_key)
);
alter table ai.kb_graph_entity_summaries enable row level security;
create policy kb_graph_entity_summaries_read on ai.kb_graph_entity_summaries for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
grant select on ai.kb_graph_entity_summaries to authenticated;
grant select, insert, update, delete on ai.kb_graph_entity_summaries to service_role;

-- Entities of a knowledge base by key: name, type, the description (the
-- summary while it is current, else the distinct descriptions joined), how
-- many chunks mention it.
create or replace function ai.graph_entities(p_kb uuid, p_keys text[]) returns jsonb
language plpgsql stable security definer
set search_path = ''
as $$
begin
  perform ai.kb_readable(p_kb);
  return coalesce((
    select jsonb_agg(jsonb_build_object('name', g.name, 'type', g.type, 'description', coalesce(sm.summary, g.joined), 'mentions', g.mentions) order by array_position(p_keys, g.name_key))
      from (select e.name_key, max(e.name) as name, mode() within group (order by e.type) as type, count(*)::int as mentions,
                   string_agg(distinct nullif(e.description, ''), ' ') as joined
              from ai.kb_graph_entities e where e.kb_id = p_kb and e.name_key = any (p_keys) group by e.name_key) g
      left join ai.kb_graph_entity_summaries sm on sm.kb_id = p_kb and sm.name_key = g.name_key and sm.mentions = g.mentions), '[]');
end
$$;
revoke execute on function ai.graph_entities(uuid, text[]) from public;
grant execute on function ai.graph_entities(uuid, text[]) to authenticated, service_role;

-- Entities whose joined descriptions run past p_chars and have no current
-- summary: what the extraction job summarises next.
create or replace function ai.graph_entities_to_summarise(p_kb uuid, p_chars int)
returns table (name_key text, name text, mentions int, descriptions text[])
language sql stable
set search_path = ''
as $$
  with g as (
    select e.name_key, max(e.name) as name, count(*)::int as mentions, array_agg(distinct e.description) filter (where e.description <> '') as descriptions
      from ai.kb_graph_entities e
     where e.kb_id = p_kb
     group by e.name_key
    having count(*) > 1 and sum(length(e.description)) > p_chars)
  select g.name_key, g.name, g.mentions, g.descriptions from g
   where not exists (select 1 from ai.kb_graph_entity_summaries s where s.kb_id = p_kb and s.name_key = g.name_key and s.mentions = g.mentions)
$$;
revoke execute on function ai.graph_entities_to_summarise(uuid, int) from public;
grant execute on function ai.graph_entities_to_summarise(uuid, int) to service_role;

-- The summary of an entity's descriptions, as of p_mentions mentions.
create or replace function ai.graph_store_summary(p_kb uuid, p_name_key text, p_summary text, p_mentions int) returns void
language sql volatile
set search_path = ''
as $$
  insert into ai.kb_graph_entity_summaries (kb_id, name_key, summary, mentions) values (p_kb, p_name_key, p_summary, p_mentions)
  on conflict (kb_id, name_key) do update set summary = excluded.summary, mentions = excluded.mentions, updated_at = now()
$$;
revoke execute on function ai.graph_store_summary(uuid, text, text, int) from public;
grant execute on function ai.graph_store_summary(uuid, text, text, int) to service_role;
