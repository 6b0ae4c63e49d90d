-- AI surface: a knowledge base's indexed sources and what indexing makes
-- (spec 2.7, 3.2, 4.13).
--
--   1. ai.kb_sources                a source in a knowledge base: index state, run, progress, stats
--   2. ai.kb_items, ai.kb_vectors   what indexing made (chunks, documents, ...) and their embeddings
--   3. the state machine            guarded statements, each keyed by the index run:
--        ai.add_kb_source           new -> pending; the job queued now, or when extraction ends
--        ai.queue_waiting_indexing  extraction ended -> the sources waiting on it queued (or failed)
--        ai.begin_indexing          pending -> indexing (the run's earlier items removed)
--        ai.indexing_progress       steps done of total, while indexing
--        ai.finish_indexing         indexing -> indexed | failed
--        ai.cancel_kb_source        pending | indexing -> cancelled; 409 from the others
--        ai.reindex_kb_sources      the chosen ones -> pending, a new run each
--        ai.remove_kb_source        the row and everything derived from it; its job revoked
--   4. ai.kb_source_list            the list of 4.13: filter, sort, page, total; ai.kb_status for GET
--
-- `index_run` counts indexings of a row: a job carries the run it was queued
-- for and every step is guarded on it, so a job left over from an earlier run
-- (cancelled, re-indexed) changes nothing.

-- 1. Indexed sources ----------------------------------------------------------------------------

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

-- 2. Items and vectors ----------------------------------------------------------------------------

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
  -- base's metadata table, sql/0045), so filter_metadata can read them.
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

-- 3. The state machine ------------------------------------------------------------------------------

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

-- 4. The list of 4.13 ---------------------------------------------------------------------------------

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
