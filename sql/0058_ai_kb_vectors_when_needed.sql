-- A knowledge base embeds its chunks only when its retrieval method reads
-- vectors (AI conformance issue, item 6).
--
-- A chunk_embed knowledge base searched by full_text embedded every chunk
-- with the default embedding model all the same, so with no provider key its
-- indexing failed and full_text, which needs no model, could not be used
-- offline. Now:
--   1. ai.kb_retrievers.uses_vectors   which methods read vectors
--                                      (vector_search, hybrid)
--   2. ai.kb_uses_vectors              whether the method in force does: the
--                                      indexing job embeds only then
--   3. ai.kb_lacks_vectors             a knowledge base with items but no
--                                      vector from the model: a vector search
--                                      then answers 400 naming the reindex
--                                      that embeds them (switching the method
--                                      embeds nothing by itself)

-- 1 ---------------------------------------------------------------------------
alter table ai.kb_retrievers add column uses_vectors boolean not null default false;
update ai.kb_retrievers set uses_vectors = true where name in ('vector_search', 'hybrid');

-- 2 ---------------------------------------------------------------------------
-- The method's `vector` alias (accepted on input) counts as vector_search.
create or replace function ai.kb_uses_vectors(p_kb uuid) returns boolean
language sql stable
set search_path = ''
as $$
  select coalesce((select r.uses_vectors from ai.kb_retrievers r
                    where r.name = case ai.kb_retrieval_config(p_kb) ->> 'method' when 'vector' then 'vector_search' else ai.kb_retrieval_config(p_kb) ->> 'method' end), false)
$$;
revoke execute on function ai.kb_uses_vectors(uuid) from public;
grant execute on function ai.kb_uses_vectors(uuid) to authenticated, service_role;

-- 3 ---------------------------------------------------------------------------
-- Security definer: one check that the caller can read the knowledge base,
-- then two index probes without per-row policies.
create or replace function ai.kb_lacks_vectors(p_kb uuid, p_model text) returns boolean
language plpgsql stable security definer
set search_path = ''
as $$
begin
  perform ai.kb_readable(p_kb);
  return exists (select 1 from ai.kb_items i where i.kb_id = p_kb)
     and not exists (select 1 from ai.kb_vectors v where v.kb_id = p_kb and v.model = p_model);
end
$$;
revoke execute on function ai.kb_lacks_vectors(uuid, text) from public;
grant execute on function ai.kb_lacks_vectors(uuid, text) to authenticated, service_role;
