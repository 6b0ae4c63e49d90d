-- AI surface: vector_search through pgvector when the database has it (the
-- knowledge-base issue: "when the vector extension exists, use it with an
-- HNSW index"). Without the extension nothing here changes anything: search
-- keeps to sign-bit candidates (0043), which need no extension.
--
--   1. ai.float32le_reals          an embedding's stored bytes (little-endian float32) as real[]
--   2. ai.pgvector_schema          where the vector extension is installed (null: not installed)
--      ai.pgvector_in_use          whether ai.kb_vectors has its pgvector column (`ann`)
--      ai.pgvector_enable          create the extension if available, add `ann`, filled by a
--                                  trigger from `embedding`, backfill, index what is stored
--      ai.pgvector_disable         undo, before dropping the extension
--   3. ai.kb_vector_indexes        one HNSW index per (model, dims), partial and on an
--                                  expression, since one column holds every model's vectors
--      ai.kb_vector_index_ensure   made before the first vector of a pair is stored
--   4. ai.store_kb_items           as in 0043, ensuring the pair's index first
--   5. ai.kb_nearest_vectors       search candidates: pgvector's nearest where the pair is
--                                  indexed, else the sign-bit candidates
--
-- Enabling runs at the end of this file. A database that gets the extension
-- later (or a role allowed to create it) enables it by hand:
--   select ai.pgvector_enable();
-- which locks ai.kb_vectors while it backfills and builds indexes.

-- 1. Decoding stored embeddings -------------------------------------------------------------------

-- IEEE 754 single precision from four little-endian bytes, exactly (the
-- product of the significand and a power of two is exact in float8).
-- Embeddings are unit vectors: no infinities or NaNs reach here.
create or replace function ai.float32le_reals(b bytea) returns real[]
language sql immutable strict parallel safe
set search_path = ''
as $$
  select pg_catalog.array_agg(
           (case when e = 0 then (1 - 2 * s) * m * 1.401298464324817e-45::float8
                 else (1 - 2 * s) * (8388608 + m) * 2.0::float8 ^ (e - 150) end)::real)
    from (select pg_catalog.get_byte(b, i + 3) >> 7 as s,
                 ((pg_catalog.get_byte(b, i + 3) & 127) << 1) | (pg_catalog.get_byte(b, i + 2) >> 7) as e,
                 ((pg_catalog.get_byte(b, i + 2) & 127) << 16) | (pg_catalog.get_byte(b, i + 1) << 8) | pg_catalog.get_byte(b, i) as m
            from pg_catalog.generate_series(0, pg_catalog.length(b) - 4, 4) as i) as bytes
$$;
revoke execute on function ai.float32le_reals(bytea) from public;
grant execute on function ai.float32le_reals(bytea) to service_role;

-- 2. Enabling ----------------------------------------------------------------------------------------

create or replace function ai.pgvector_schema() returns text
language sql stable
set search_path = ''
as $$
  select n.nspname::text from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace where e.extname = 'vector'
$$;
revoke execute on function ai.pgvector_schema() from public;
grant execute on function ai.pgvector_schema() to service_role;

-- The installed version at least major.minor (HNSW came in 0.5, halfvec in
-- 0.7, iterative index scans in 0.8).
create or replace function ai.pgvector_at_least(p_major int, p_minor int) returns boolean
language sql stable
set search_path = ''
as $$
  select coalesce((select (pg_catalog.string_to_array(pg_catalog.split_part(e.extversion, '-', 1), '.')::int[])[1:2] >= array[p_major, p_minor]
                     from pg_catalog.pg_extension e where e.extname = 'vector'), false)
$$;
revoke execute on function ai.pgvector_at_least(int, int) from public;
grant execute on function ai.pgvector_at_least(int, int) to service_role;

create or replace function ai.pgvector_in_use() returns boolean
language sql stable
set search_path = ''
as $$
  select exists (select 1 from pg_catalog.pg_attribute a
                  where a.attrelid = 'ai.kb_vectors'::regclass and a.attname = 'ann' and not a.attisdropped)
$$;
revoke execute on function ai.pgvector_in_use() from public;
grant execute on function ai.pgvector_in_use() to service_role;

-- One HNSW index per (model, dims). index_name null: this pair cannot be
-- indexed (over 4,000 dimensions, or a pgvector without HNSW) and the sign
-- bits serve it.
create table ai.kb_vector_indexes (
  model text not null,
  dims int not null check (dims > 0),
  index_name text,
  created_at timestamptz not null default now(),
  primary key (model, dims)
);
alter table ai.kb_vector_indexes enable row level security;
grant select on ai.kb_vector_indexes to service_role;

-- 3. An index per (model, dims) -------------------------------------------------------------------------

-- Made when the pair is first stored, so the build is of an empty partial
-- index (one scan of ai.kb_vectors, writes waiting meanwhile) and later
-- vectors are added one by one as they are inserted. Two indexing jobs
-- meeting here for one pair are serialised by the registry's primary key:
-- the second waits, then finds it.
-- Up to 2,000 dimensions the index is of `vector`, up to 4,000 of `halfvec`.
create or replace function ai.kb_vector_index_ensure(p_model text, p_dims int) returns text
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  ext text := ai.pgvector_schema();
  existing ai.kb_vector_indexes;
  name text;
  kind text;
begin
  if ext is null or not ai.pgvector_in_use() then return null; end if;
  select * into existing from ai.kb_vector_indexes where model = p_model and dims = p_dims;
  if found then return existing.index_name; end if;
  kind := case when p_dims <= 2000 and ai.pgvector_at_least(0, 5) then 'vector'
               when p_dims <= 4000 and ai.pgvector_at_least(0, 7) then 'halfvec' end;
  name := case when kind is not null then 'kb_vectors_hnsw_' || left(md5(p_model || '/' || p_dims), 16) end;
  insert into ai.kb_vector_indexes (model, dims, index_name) values (p_model, p_dims, name) on conflict do nothing;
  if not found then
    return (select x.index_name from ai.kb_vector_indexes x where x.model = p_model and x.dims = p_dims);
  end if;
  if name is not null then
    -- Taken before the build's own share lock: two jobs making indexes for
    -- two new pairs would otherwise each hold a share lock the other's
    -- insert waits for. This one queues them instead.
    lock table ai.kb_vectors in share row exclusive mode;
    execute format('create index %I on ai.kb_vectors using hnsw ((ann::%I.%s(%s)) %I.%s_cosine_ops) where model = %L and dims = %s',
                   name, ext, kind, p_dims, ext, kind, p_model, p_dims);
  end if;
  return name;
end
$$;
revoke execute on function ai.kb_vector_index_ensure(text, int) from public;
grant execute on function ai.kb_vector_index_ensure(text, int) to service_role;

create or replace function ai.pgvector_enable() returns boolean
language plpgsql volatile
set search_path = ''
as $$
declare
  ext text := ai.pgvector_schema();
  pairs jsonb;
  pair record;
begin
  if ext is null then
    if not exists (select 1 from pg_catalog.pg_available_extensions where name = 'vector') then return false; end if;
    begin
      create extension if not exists vector with schema extensions;
    exception when insufficient_privilege then
      raise notice 'pgvector is available but this role may not create it: run "create extension vector with schema extensions" as a superuser, then "select ai.pgvector_enable()"';
      return false;
    end;
    ext := ai.pgvector_schema();
  end if;
  if not ai.pgvector_in_use() then
    execute format('alter table ai.kb_vectors add column ann %I.vector', ext);
  end if;
  -- The trigger's body names the extension's schema, so it is written here.
  execute format($body$
    create or replace function ai.kb_vectors_fill_ann() returns trigger
    language plpgsql
    set search_path = ''
    as $fill$
    begin
      new.ann := ai.float32le_reals(new.embedding)::%I.vector;
      return new;
    end
    $fill$ $body$, ext);
  revoke execute on function ai.kb_vectors_fill_ann() from public;
  drop trigger if exists kb_vectors_fill_ann on ai.kb_vectors;
  create trigger kb_vectors_fill_ann before insert or update of embedding on ai.kb_vectors
    for each row execute function ai.kb_vectors_fill_ann();
  -- `|| ''` detoasts each stored value once rather than at every byte read.
  execute format($sql$update ai.kb_vectors set ann = ai.float32le_reals(embedding || '\x'::bytea)::%I.vector where ann is null$sql$, ext);
  -- The pairs are read first: an index cannot be made while a loop's query still reads the table.
  select coalesce(jsonb_agg(distinct jsonb_build_array(v.model, v.dims)), '[]') into pairs from ai.kb_vectors v;
  for pair in select p ->> 0 as model, (p ->> 1)::int as dims from jsonb_array_elements(pairs) p loop
    perform ai.kb_vector_index_ensure(pair.model, pair.dims);
  end loop;
  return true;
end
$$;
revoke execute on function ai.pgvector_enable() from public;

-- Before `drop extension vector`: back to sign bits only.
create or replace function ai.pgvector_disable() returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  idx text;
begin
  drop trigger if exists kb_vectors_fill_ann on ai.kb_vectors;
  drop function if exists ai.kb_vectors_fill_ann();
  for idx in select x.index_name from ai.kb_vector_indexes x where x.index_name is not null loop
    execute format('drop index if exists ai.%I', idx);
  end loop;
  delete from ai.kb_vector_indexes;
  alter table ai.kb_vectors drop column if exists ann;
end
$$;
revoke execute on function ai.pgvector_disable() from public;

-- 4. Storing: as 0043, the pair's index made first ---------------------------------------------------------

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
  -- Before the insert below: an index cannot be made on a table a running statement writes.
  if ai.pgvector_in_use() then
    perform ai.kb_vector_index_ensure(pair.model, pair.dims)
       from (select distinct x->>'embedding_model' as model, length(x->>'code') as dims
               from jsonb_array_elements(p_items) x where x->>'code' is not null) pair;
  end if;
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

-- 5. Search candidates ---------------------------------------------------------------------------------------

-- The p_limit items nearest the query (p_query: its float32 bytes; p_code:
-- its sign bits) and `via`, which way they were found:
--   'pgvector'   where the pair has an HNSW index: each with its cosine
--                similarity (`score`, from the full-precision column even
--                where the index is of halfvec), no embedding to send. The
--                planner may still scan a small knowledge base exactly,
--                which is better. The statement names the model and
--                dimensions as literals so the planner can match the partial
--                index; iterative scans (pgvector 0.8) keep a filtered
--                search from coming back short.
--   'sign_bits'  otherwise: each with its embedding, for the caller's exact
--                rescoring, and no score.
create or replace function ai.kb_nearest_vectors(p_kb uuid, p_model text, p_code bit varying, p_query bytea, p_limit int, p_filter jsonb)
returns table (item_id uuid, embedding bytea, score float8, via text)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  ext text := ai.pgvector_schema();
  dims int := bit_length(p_code);
  index_name text;
  kind text;
  filtered boolean := p_filter is not null and p_filter <> '{}';
begin
  perform ai.kb_readable(p_kb);
  if ext is not null and length(p_query) = 4 * dims and ai.pgvector_in_use() then
    select x.index_name into index_name from ai.kb_vector_indexes x where x.model = p_model and x.dims = bit_length(p_code);
  end if;
  if index_name is null then
    return query select c.item_id, c.embedding, null::float8, 'sign_bits'::text
                   from ai.kb_vector_candidates(p_kb, p_model, p_code, p_limit, p_filter) c;
    return;
  end if;
  kind := case when dims <= 2000 then 'vector' else 'halfvec' end;
  perform set_config('hnsw.ef_search', least(1000, greatest(40, p_limit))::text, true);
  if ai.pgvector_at_least(0, 8) then
    perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
  end if;
  return query execute format(
    'select v.item_id, null::bytea, 1 - (v.ann operator(%1$I.<=>) ai.float32le_reals($2)::%1$I.vector), %2$L::text
       from ai.kb_vectors v %3$s
      where v.model = %4$L and v.dims = %5$s and v.kb_id = $1 %6$s
      order by v.ann::%1$I.%7$s(%5$s) operator(%1$I.<=>) ai.float32le_reals($2)::%1$I.%7$s(%5$s)
      limit $3',
    ext, 'pgvector',
    case when filtered then 'join ai.kb_items i on i.id = v.item_id join ai.sources src on src.id = i.source_id' else '' end,
    p_model, dims,
    case when filtered then 'and ai.kb_filter_ok(i.enrichment || i.meta, src.metadata, $4)' else '' end,
    kind)
  using p_kb, p_query, p_limit, p_filter;
end
$$;
revoke execute on function ai.kb_nearest_vectors(uuid, text, bit varying, bytea, int, jsonb) from public;
grant execute on function ai.kb_nearest_vectors(uuid, text, bit varying, bytea, int, jsonb) to authenticated, service_role;

-- Where the database has pgvector, use it from the start.
select ai.pgvector_enable();
