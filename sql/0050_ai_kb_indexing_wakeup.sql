-- AI surface: no indexed source left waiting for an extraction that already
-- ended. Adding (or re-indexing) a source while its extraction finishes
-- could lose the wake-up: the extraction's trigger (ai.queue_waiting_indexing)
-- ran before the new row committed, and ai.start_indexing read the source
-- as still extracting, so the row stayed pending with no job.
--
-- The rule now: a transaction that writes a source's indexing rows locks the
-- source row first (for share), as the extraction's own update does (for
-- update). Whichever comes second waits for the first to commit and then
-- sees what it did; both take the source first, so they cannot deadlock.
-- Restated from 0042: ai.start_indexing, ai.add_kb_source, ai.reindex_kb_sources.

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
  -- Waits for an extraction ending now, then reads how it ended.
  select s.extraction_status into v_status from ai.sources s where s.id = k.source_id for share;
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
revoke execute on function ai.add_kb_source(uuid, uuid) from public;
grant execute on function ai.add_kb_source(uuid, uuid) to authenticated, service_role;

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
revoke execute on function ai.reindex_kb_sources(uuid, uuid[], boolean) from public;
grant execute on function ai.reindex_kb_sources(uuid, uuid[], boolean) to authenticated, service_role;
