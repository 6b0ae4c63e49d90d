-- A source's metadata is kept through indexing (AI conformance issue, item 3;
-- spec 4.12 "kept through indexing").
--
-- Every item of every strategy carries its source's metadata in its `meta`,
-- under the key `source_metadata`, next to page and element provenance:
-- written there when the item is indexed, and read as the source's metadata
-- is now wherever items are answered (search results, retrieved context,
-- the items listing), so PATCH /api/sources/{id} reaches them at once, with
-- no reindex. filter_metadata already reads the source's metadata as it is
-- now (ai.kb_filter_ok, 0043).
--   1. ai.item_meta    an item's meta with its source's current metadata
--   2. ai.kb_results   restated (0043) to answer ai.item_meta

-- 1 ---------------------------------------------------------------------------
create or replace function ai.item_meta(p_meta jsonb, p_source_metadata jsonb) returns jsonb
language sql immutable
set search_path = ''
as $$ select coalesce(p_meta, '{}') || jsonb_build_object('source_metadata', coalesce(p_source_metadata, '{}')) $$;
grant execute on function ai.item_meta(jsonb, jsonb) to authenticated, service_role;

-- 2 ---------------------------------------------------------------------------
create or replace function ai.kb_results(p_kb uuid, p_items uuid[]) returns table (
  id uuid, text text, meta jsonb, extras jsonb, kind text, "position" int, token_count int, source_id uuid, source_name text,
  knowledge_base_id uuid, kb_name text, indexing_strategy text)
language plpgsql stable security definer
set search_path = ''
as $$
begin
  perform ai.kb_readable(p_kb);
  return query
    select i.id, i.text, ai.item_meta(i.meta, s.metadata), i.extras, i.kind, i.position, i.token_count, i.source_id, s.name, k.id, k.name, k.strategy
      from ai.kb_items i join ai.sources s on s.id = i.source_id join ai.knowledge_bases k on k.id = i.kb_id
     where i.kb_id = p_kb and i.id = any (p_items);
end
$$;
revoke execute on function ai.kb_results(uuid, uuid[]) from public;
grant execute on function ai.kb_results(uuid, uuid[]) to authenticated, service_role;
