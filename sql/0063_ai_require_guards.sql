-- One guard per resource: the "not found unless you may change it" check
-- that a dozen functions repeated inline now lives in ai.require_kb_change
-- and ai.require_source_change (sql/CONVENTIONS.md: a function that refuses
-- is require_<thing>). Behaviour is unchanged: the same 404 and message, the
-- same rule (ai.may_change_kb, ai.may_change_source). Reading a knowledge
-- base is guarded by ai.kb_readable (0043), already one function.
--
-- Contents
--   1. the guards
--   2. the functions that used the inline check, restated whole with the
--      guard (this file is now their owner; see sql/CONVENTIONS.md)

-- 1. The guards --------------------------------------------------------------------------------------

-- 404 unless the caller owns the knowledge base (or is the service role).
create or replace function ai.require_kb_change(p_kb uuid) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if not ai.may_change_kb(p_kb) then perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found'); end if;
end
$$;
revoke execute on function ai.require_kb_change(uuid) from public;
grant execute on function ai.require_kb_change(uuid) to authenticated, service_role;

-- 404 unless the caller owns the source (or is the service role).
create or replace function ai.require_source_change(p_source uuid) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if not ai.may_change_source(p_source) then perform auth.raise_error(404, 'NOT_FOUND', 'Source not found'); end if;
end
$$;
revoke execute on function ai.require_source_change(uuid) from public;
grant execute on function ai.require_source_change(uuid) to authenticated, service_role;

-- 2. The functions that check through them -----------------------------------------------------------

-- ai.add_kb_source (was 0050_ai_kb_indexing_wakeup.sql)
create or replace function ai.add_kb_source(p_kb uuid, p_source uuid) returns ai.kb_sources
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  k ai.kb_sources;
begin
  perform ai.require_kb_change(p_kb);
  -- The source row first (see above).
  perform 1 from ai.sources s where s.id = p_source and (ai.can_read(s.owner_id) or auth.role() = 'service_role') for share;
  if not found then
    perform auth.raise_error(404, 'NOT_FOUND', 'Source not found');
  end if;
  insert into ai.kb_sources (kb_id, source_id) values (p_kb, p_source) on conflict (kb_id, source_id) do nothing returning * into k;
  if not found then perform auth.raise_error(409, 'CONFLICT', 'This source is already in the knowledge base: reindex it instead'); end if;
  perform ai.start_indexing(k.id);
  select * into k from ai.kb_sources where id = k.id;
  return k;
end
$$;

-- ai.cancel_kb_source (was 0042_ai_kb_indexing.sql)
create or replace function ai.cancel_kb_source(p_kb uuid, p_id uuid) returns ai.kb_sources
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  k ai.kb_sources;
begin
  perform ai.require_kb_change(p_kb);
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

-- ai.reindex_kb_sources (was 0050_ai_kb_indexing_wakeup.sql)
create or replace function ai.reindex_kb_sources(p_kb uuid, p_ids uuid[], p_failed_only boolean) returns int
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_ids uuid[];
  v_missing uuid;
begin
  perform ai.require_kb_change(p_kb);
  if p_ids is not null then
    select i into v_missing from unnest(p_ids) i where not exists (select 1 from ai.kb_sources k where k.id = i and k.kb_id = p_kb) limit 1;
    if v_missing is not null then perform auth.raise_error(404, 'NOT_FOUND', format('Indexed source %s not found in this knowledge base', v_missing)); end if;
  end if;
  -- The chosen rows' source rows first (see above), in one order.
  perform 1 from ai.sources s
   where s.id in (select k.source_id from ai.kb_sources k
                   where k.kb_id = p_kb
                     and case when p_ids is not null then k.id = any (p_ids) when p_failed_only then k.index_status = 'failed' else true end)
   order by s.id
     for share;
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

-- ai.remove_kb_source (was 0042_ai_kb_indexing.sql)
create or replace function ai.remove_kb_source(p_kb uuid, p_id uuid) returns boolean
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  perform ai.require_kb_change(p_kb);
  perform graphile_worker.remove_job('kb-source:' || p_id::text);
  delete from ai.kb_sources where id = p_id and kb_id = p_kb;
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'Indexed source not found in this knowledge base'); end if;
  return true;
end
$$;

-- ai.request_bm25_build (was 0043_ai_kb_search.sql)
create or replace function ai.request_bm25_build(p_kb uuid) returns text
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_method text;
  v_job bigint;
begin
  perform ai.require_kb_change(p_kb);
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

-- ai.request_enrichment (was 0045_ai_kb_enrichment.sql)
create or replace function ai.request_enrichment(p_kb uuid, p_incremental boolean, p_retry_failed boolean) returns jsonb
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  e ai.kb_enrichments;
  v_run int;
begin
  perform ai.require_kb_change(p_kb);
  select * into e from ai.kb_enrichments where kb_id = p_kb for update;
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'This knowledge base has no enrichment config'); end if;
  if e.status = 'enriching' then perform auth.raise_error(409, 'CONFLICT', 'An enrichment run is already active'); end if;
  v_run := ai.queue_enrichment(p_kb, coalesce(p_incremental, false), coalesce(p_retry_failed, false));
  return jsonb_build_object('status', 'enriching', 'run', v_run, 'knowledge_base_id', p_kb);
end
$$;

-- ai.put_enrichment (was 0045_ai_kb_enrichment.sql)
create or replace function ai.put_enrichment(p_kb uuid, p_fields jsonb, p_model text, p_max_tokens int, p_multimodal boolean) returns jsonb
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  e ai.kb_enrichments;
  v_fields jsonb;
  v_model text := coalesce(p_model, ai.setting_json('METADATA_ENRICHMENT_MODEL') #>> '{}');
  v_tokens int := coalesce(p_max_tokens, (ai.setting_json('METADATA_ENRICHMENT_MAX_TOKENS') #>> '{}')::int);
  v_multimodal boolean := coalesce(p_multimodal, false);
  v_redo boolean := false;
begin
  perform ai.require_kb_change(p_kb);
  v_fields := ai.check_enrichment_fields(p_fields);
  if v_tokens is null or v_tokens not between 1 and 100000 then perform auth.raise_error(400, 'VALIDATION_ERROR', 'max_tokens must be from 1 to 100000'); end if;
  select * into e from ai.kb_enrichments where kb_id = p_kb for update;
  if not found then
    insert into ai.kb_enrichments (kb_id, fields, llm_model, max_tokens, use_multimodal, table_name)
    values (p_kb, v_fields, v_model, v_tokens, v_multimodal, ai.enrichment_table_name(p_kb));
    perform ai.create_enrichment_table(p_kb, v_fields);
    v_redo := true;
  elsif e.fields is distinct from v_fields or e.llm_model is distinct from v_model then
    if e.status = 'enriching' then perform auth.raise_error(409, 'CONFLICT', 'An enrichment run is active: wait for it to end before changing fields or llm_model'); end if;
    perform ai.drop_enrichment_table(p_kb);
    perform ai.create_enrichment_table(p_kb, v_fields);
    update ai.kb_enrichments set fields = v_fields, llm_model = v_model, max_tokens = v_tokens, use_multimodal = v_multimodal where kb_id = p_kb;
    v_redo := true;
  elsif e.use_multimodal is distinct from v_multimodal then
    if e.status = 'enriching' then perform auth.raise_error(409, 'CONFLICT', 'An enrichment run is active: wait for it to end before changing use_multimodal'); end if;
    update ai.kb_enrichments set use_multimodal = v_multimodal, max_tokens = v_tokens where kb_id = p_kb;
    v_redo := true;
  elsif e.max_tokens is distinct from v_tokens then
    update ai.kb_enrichments set max_tokens = v_tokens where kb_id = p_kb;
  end if;
  if v_redo then perform ai.queue_enrichment(p_kb, false, false); end if;
  return jsonb_build_object('config', ai.enrichment_view(p_kb), 're_enrichment_triggered', v_redo);
end
$$;

-- ai.delete_enrichment (was 0045_ai_kb_enrichment.sql)
create or replace function ai.delete_enrichment(p_kb uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  e ai.kb_enrichments;
begin
  perform ai.require_kb_change(p_kb);
  select * into e from ai.kb_enrichments where kb_id = p_kb for update;
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'This knowledge base has no enrichment config'); end if;
  if e.status = 'enriching' then perform auth.raise_error(409, 'CONFLICT', 'An enrichment run is active: wait for it to end before deleting the config'); end if;
  perform ai.drop_enrichment_table(p_kb);
  delete from ai.kb_enrichments where kb_id = p_kb;
end
$$;

-- ai.request_graph_enrichment (was 0047_ai_kb_graph.sql)
create or replace function ai.request_graph_enrichment(p_kb uuid, p_kb_source uuid, p_retry_failed boolean) returns bigint
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_job bigint;
begin
  perform ai.require_kb_change(p_kb);
  perform ai.kb_is_graph(p_kb);
  if p_kb_source is not null and not exists (select 1 from ai.kb_sources where id = p_kb_source and kb_id = p_kb) then
    perform auth.raise_error(404, 'NOT_FOUND', 'Indexed source not found in this knowledge base');
  end if;
  select j.id into v_job from graphile_worker.add_job('ai_kb_graph', json_build_object('knowledge_base_id', p_kb, 'indexed_source_id', p_kb_source, 'retry_failed', coalesce(p_retry_failed, false)),
    job_key := 'graph:' || p_kb::text || ':' || coalesce(p_kb_source::text, 'all'), job_key_mode := 'replace', max_attempts := 2) j;
  return v_job;
end
$$;

-- ai.cancel_source (was 0037_ai_sources.sql)
create or replace function ai.cancel_source(p_source uuid) returns ai.sources
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  s ai.sources;
begin
  perform ai.require_source_change(p_source);
  update ai.sources x set extraction_status = 'cancelled', extraction_message = 'Cancelled'
   where x.id = p_source and x.extraction_status in ('pending', 'extracting')
  returning x.* into s;
  if not found then
    select x.* into s from ai.sources x where x.id = p_source;
    perform auth.raise_error(409, 'CONFLICT', format('Only a pending or extracting source can be cancelled; this one is %s', s.extraction_status));
  end if;
  return s;
end
$$;

-- ai.queue_extraction (was 0040_ai_run_totals.sql)
create or replace function ai.queue_extraction(p_source uuid, p_model text) returns int
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_run int;
begin
  perform ai.require_source_change(p_source);
  perform ai.check_extraction_model(p_model);
  update ai.sources s
     set extraction_status = 'pending', extraction_run = s.extraction_run + case when s.extraction_status = 'pending' and s.extraction_started_at is null then 0 else 1 end,
         extraction_model = coalesce(p_model, s.extraction_model), extraction_message = null, extraction_engine = null,
         pages_total = null, pages_done = 0, extraction_started_at = null, extracted_at = null
   where s.id = p_source
  returning s.extraction_run into v_run;
  perform graphile_worker.add_job('ai_source_extract', json_build_object('source_id', p_source, 'run', v_run),
    job_key := 'source:' || p_source::text, job_key_mode := 'replace', max_attempts := 3);
  return v_run;
end
$$;
