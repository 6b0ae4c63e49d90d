-- Storage operations as SQL functions. All but the two lookups marked
-- `security definer` run as the caller (security invoker), so the caller's
-- RLS policies on storage.buckets and storage.objects decide. Errors are
-- raised with auth.raise_error (SQLSTATE 'PT' || status, the storage error
-- name in HINT) and reach the client as {statusCode, error, message}.

-- auth.raise_error only raises; the storage functions run as the API roles
-- and raise through it.
grant execute on function auth.raise_error(int, text, text) to anon, authenticated, service_role;

-- A bucket's upload rules whatever the caller may see: an upload is checked
-- against them before its bytes are streamed, as Supabase Storage does.
create or replace function storage.bucket_rules(bucket text)
returns table (id text, public boolean, file_size_limit bigint, allowed_mime_types text[])
language sql stable security definer
set search_path = ''
as $$
  select b.id, b.public, b.file_size_limit, b.allowed_mime_types from storage.buckets b where b.id = bucket
$$;

-- Whether a bucket holds any object, including objects the caller cannot see:
-- a bucket is only deleted empty.
create or replace function storage.bucket_is_empty(bucket text) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select not exists (select 1 from storage.objects o where o.bucket_id = bucket)
$$;

-- The allow-list: exact types, 'type/*' wildcards and '*/*'; null or empty allows any.
create or replace function storage.mime_allowed(allowed text[], mime text) returns boolean
language sql immutable
set search_path = ''
as $$
  select allowed is null or cardinality(allowed) = 0 or exists (
    select 1 from unnest(allowed) a
     where lower(trim(a)) in ('*/*', lower(trim(split_part(mime, ';', 1))))
        or (trim(a) like '%/*' and lower(split_part(trim(a), '/', 1)) = lower(split_part(trim(mime), '/', 1))))
$$;

-- Object names are stored verbatim, but some are refused: empty, over 1024
-- bytes, control characters, a leading slash, '.' or '..' segments.
create or replace function storage.valid_object_name(name text) returns boolean
language sql immutable
set search_path = ''
as $$
  select name is not null and name <> '' and octet_length(name) <= 1024
     and name !~ '[\x01-\x1f\x7f]' and left(name, 1) <> '/'
     and not (string_to_array(name, '/') && array['.', '..'])
$$;

-- A bucket's settings, however it is written (API or SQL), with errors a
-- client can act on: the id format, a positive size limit, well-formed types.
create or replace function storage.check_bucket() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.id is null or new.id !~ '^[a-z0-9][a-z0-9.-]{0,62}$' then
    perform auth.raise_error(400, 'InvalidBucketName',
      'Bucket id must be 1 to 63 lowercase letters, digits, dashes or dots, starting with a letter or digit');
  end if;
  -- These words are routes under /object/: a bucket so named could not be reached by all of them.
  if new.id in ('list', 'copy', 'move', 'sign', 'info', 'public', 'authenticated', 'upload') then
    perform auth.raise_error(400, 'InvalidBucketName', 'Bucket id ' || new.id || ' is reserved');
  end if;
  if new.file_size_limit is not null and new.file_size_limit <= 0 then
    perform auth.raise_error(400, 'InvalidRequest', 'file_size_limit must be a positive number of bytes');
  end if;
  if exists (select 1 from unnest(new.allowed_mime_types) t where t is null or t !~ '^[A-Za-z0-9.+*_-]+/[A-Za-z0-9.+*_-]+$') then
    perform auth.raise_error(400, 'InvalidRequest', 'allowed_mime_types must hold types such as "image/png" or "image/*"');
  end if;
  return new;
end
$$;

drop trigger if exists buckets_check on storage.buckets;
create trigger buckets_check before insert or update on storage.buckets
  for each row execute function storage.check_bucket();

create or replace function storage.create_bucket(p_id text, p_name text default null, p_public boolean default false,
  p_file_size_limit bigint default null, p_allowed_mime_types text[] default null)
returns storage.buckets
language plpgsql
set search_path = ''
as $$
declare
  created storage.buckets;
begin
  insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types)
  values (p_id, coalesce(p_name, p_id), auth.uid(), auth.jwt() ->> 'sub', coalesce(p_public, false), p_file_size_limit, p_allowed_mime_types)
  returning * into created;
  return created;
exception when unique_violation then
  perform auth.raise_error(409, 'Duplicate', 'The resource already exists');
end
$$;

-- Changes only the fields present in `changes` (public, file_size_limit, allowed_mime_types).
create or replace function storage.update_bucket(p_id text, changes jsonb) returns storage.buckets
language plpgsql
set search_path = ''
as $$
declare
  updated storage.buckets;
begin
  update storage.buckets b set
    public = case when changes ? 'public' then coalesce((changes ->> 'public')::boolean, false) else b.public end,
    file_size_limit = case when changes ? 'file_size_limit' then (changes ->> 'file_size_limit')::bigint else b.file_size_limit end,
    allowed_mime_types = case when changes ? 'allowed_mime_types'
      then (select array_agg(t) from jsonb_array_elements_text(nullif(changes -> 'allowed_mime_types', 'null'::jsonb)) t)
      else b.allowed_mime_types end,
    updated_at = now()
  where b.id = p_id
  returning * into updated;
  if not found then
    perform auth.raise_error(404, 'Bucket not found', 'Bucket not found');
  end if;
  return updated;
end
$$;

-- The bucket, if the caller may see it; 404 otherwise.
create or replace function storage.require_bucket(p_id text) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if not exists (select 1 from storage.buckets b where b.id = p_id) then
    perform auth.raise_error(404, 'Bucket not found', 'Bucket not found');
  end if;
end
$$;

create or replace function storage.delete_bucket(p_id text) returns void
language plpgsql
set search_path = ''
as $$
begin
  perform storage.require_bucket(p_id);
  if not storage.bucket_is_empty(p_id) then
    perform auth.raise_error(409, 'not_empty', 'The bucket you tried to delete is not empty');
  end if;
  delete from storage.buckets b where b.id = p_id;
  if not found then
    perform auth.raise_error(403, 'Unauthorized', 'You may not delete this bucket');
  end if;
end
$$;

-- Removes the objects of a bucket the caller may delete; returns their byte keys.
create or replace function storage.empty_bucket(p_id text) returns setof text
language plpgsql
set search_path = ''
as $$
begin
  perform storage.require_bucket(p_id);
  return query delete from storage.objects o where o.bucket_id = p_id returning o.version;
end
$$;

-- Records a write of an object whose bytes are stored under p_version.
-- Without upsert an existing name is a 409; with it the row is updated (the
-- caller needs an UPDATE policy) and the replaced byte key is returned so its
-- bytes can go once this commits. The bucket's allow-list holds against the
-- declared type (metadata.mimetype, when known) and against p_sniffed_type,
-- the type the first bytes show, so HTML labelled image/png is refused.
create or replace function storage.put_object(p_bucket text, p_name text, p_version text, p_metadata jsonb,
  p_upsert boolean default false, p_user_metadata jsonb default null, p_sniffed_type text default null)
returns table (object_id uuid, replaced_version text)
language plpgsql
set search_path = ''
as $$
declare
  rules record;
  existing record;
  created uuid;
begin
  if not storage.valid_object_name(p_name) then
    perform auth.raise_error(400, 'InvalidKey', 'Invalid key: ' || coalesce(p_name, ''));
  end if;
  select * into rules from storage.bucket_rules(p_bucket);
  if not found then
    perform auth.raise_error(404, 'Bucket not found', 'Bucket not found');
  end if;
  if rules.file_size_limit is not null and coalesce((p_metadata ->> 'size')::bigint, 0) > rules.file_size_limit then
    perform auth.raise_error(413, 'Payload too large', 'The object exceeded the maximum allowed size');
  end if;
  if p_metadata ? 'mimetype' and not storage.mime_allowed(rules.allowed_mime_types, p_metadata ->> 'mimetype') then
    perform auth.raise_error(415, 'invalid_mime_type', 'mime type ' || coalesce(p_metadata ->> 'mimetype', '') || ' is not supported');
  end if;
  if p_sniffed_type is not null and not storage.mime_allowed(rules.allowed_mime_types, p_sniffed_type) then
    perform auth.raise_error(415, 'invalid_mime_type', 'the content is ' || p_sniffed_type || ', which is not allowed in this bucket');
  end if;
  if p_upsert then
    select o.id, o.version into existing from storage.objects o where o.bucket_id = p_bucket and o.name = p_name for update;
    if found then
      update storage.objects o set
        version = p_version, metadata = p_metadata, user_metadata = coalesce(p_user_metadata, o.user_metadata),
        owner = auth.uid(), owner_id = auth.jwt() ->> 'sub', updated_at = now(), last_accessed_at = now()
      where o.id = existing.id;
      return query select existing.id, existing.version;
      return;
    end if;
  end if;
  insert into storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
  values (p_bucket, p_name, auth.uid(), auth.jwt() ->> 'sub', p_metadata, p_user_metadata, p_version)
  returning id into created;
  return query select created, null::text;
exception when unique_violation then
  perform auth.raise_error(409, 'Duplicate', 'The resource already exists');
end
$$;

-- Whether the caller may write this name now (policies, bucket, name rules,
-- duplicates), answered by trying the write and undoing it: the check a signed
-- upload URL is minted after. The type and size rules wait for the bytes.
create or replace function storage.can_upload(p_bucket text, p_name text, p_upsert boolean default false) returns void
language plpgsql
set search_path = ''
as $$
begin
  perform storage.put_object(p_bucket, p_name, gen_random_uuid()::text, '{"size": 0}'::jsonb, p_upsert);
  raise exception using errcode = 'PT299', message = 'undo the trial write';
exception when sqlstate 'PT299' then
  return;
end
$$;

-- Copies an object's row to a new name (and bucket) under a new byte key; the
-- caller copies the bytes from source_version before committing.
create or replace function storage.copy_object(p_bucket text, p_source text, p_dest_bucket text, p_dest text, p_version text,
  p_upsert boolean default false)
returns table (object_id uuid, source_version text, replaced_version text)
language plpgsql
set search_path = ''
as $$
declare
  source record;
  written record;
begin
  select o.version, o.metadata, o.user_metadata into source from storage.objects o where o.bucket_id = p_bucket and o.name = p_source;
  if not found then
    perform auth.raise_error(404, 'not_found', 'Object not found');
  end if;
  select * into written from storage.put_object(coalesce(p_dest_bucket, p_bucket), p_dest, p_version,
    coalesce(source.metadata, '{}'::jsonb) || jsonb_build_object('lastModified', to_jsonb(now())), p_upsert, source.user_metadata);
  return query select written.object_id, source.version, written.replaced_version;
end
$$;

-- Renames an object (also across buckets); its bytes keep their key.
create or replace function storage.move_object(p_bucket text, p_source text, p_dest_bucket text, p_dest text) returns uuid
language plpgsql
set search_path = ''
as $$
declare
  moved uuid;
begin
  if not storage.valid_object_name(p_dest) then
    perform auth.raise_error(400, 'InvalidKey', 'Invalid key: ' || coalesce(p_dest, ''));
  end if;
  if not exists (select 1 from storage.bucket_rules(coalesce(p_dest_bucket, p_bucket))) then
    perform auth.raise_error(404, 'Bucket not found', 'Bucket not found');
  end if;
  update storage.objects o set bucket_id = coalesce(p_dest_bucket, p_bucket), name = p_dest, updated_at = now()
   where o.bucket_id = p_bucket and o.name = p_source
  returning o.id into moved;
  if moved is null then
    perform auth.raise_error(404, 'not_found', 'Object not found');
  end if;
  return moved;
exception when unique_violation then
  perform auth.raise_error(409, 'Duplicate', 'The resource already exists');
end
$$;

-- One level of a bucket under a prefix, as Supabase Storage lists it: names
-- with more segments below the prefix show as one folder entry (id null).
-- `search` is a case-insensitive substring of the entry's name.
create or replace function storage.list_objects(p_bucket text, p_prefix text default '', p_limit int default 100, p_offset int default 0,
  p_search text default '', p_sort_column text default 'name', p_sort_order text default 'asc')
returns table (name text, id uuid, updated_at timestamptz, created_at timestamptz, last_accessed_at timestamptz, metadata jsonb)
language plpgsql stable
set search_path = ''
as $$
declare
  prefix text := coalesce(p_prefix, '');
  depth int;
  pattern text;
  needle text;
begin
  if not exists (select 1 from storage.bucket_rules(p_bucket)) then
    perform auth.raise_error(404, 'Bucket not found', 'Bucket not found');
  end if;
  if coalesce(p_sort_column, 'name') not in ('name', 'created_at', 'updated_at', 'last_accessed_at') then
    perform auth.raise_error(400, 'InvalidRequest', 'sortBy.column must be name, created_at, updated_at or last_accessed_at');
  end if;
  if lower(coalesce(p_sort_order, 'asc')) not in ('asc', 'desc') then
    perform auth.raise_error(400, 'InvalidRequest', 'sortBy.order must be asc or desc');
  end if;
  if coalesce(p_limit, 100) < 0 or coalesce(p_offset, 0) < 0 then
    perform auth.raise_error(400, 'InvalidRequest', 'limit and offset must not be negative');
  end if;
  if prefix <> '' and right(prefix, 1) <> '/' then
    prefix := prefix || '/';
  end if;
  depth := case when prefix = '' then 1 else cardinality(string_to_array(prefix, '/')) end;
  pattern := replace(replace(replace(prefix, '\', '\\'), '%', '\%'), '_', '\_') || '%';
  needle := '%' || replace(replace(replace(coalesce(p_search, ''), '\', '\\'), '%', '\%'), '_', '\_') || '%';
  return query execute format($q$
    select e.name, e.id, e.updated_at, e.created_at, e.last_accessed_at, e.metadata from (
      select distinct o.path_tokens[%1$s] as name, null::uuid as id, null::timestamptz as updated_at, null::timestamptz as created_at,
             null::timestamptz as last_accessed_at, null::jsonb as metadata
        from storage.objects o
       where o.bucket_id = $1 and o.name like $2 and cardinality(o.path_tokens) > %1$s
      union all
      select o.path_tokens[%1$s], o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata
        from storage.objects o
       where o.bucket_id = $1 and o.name like $2 and cardinality(o.path_tokens) = %1$s
    ) e
    where e.name ilike $3
    order by e.%2$I %3$s nulls first, e.name
    limit $4 offset $5$q$, depth, coalesce(p_sort_column, 'name'), lower(coalesce(p_sort_order, 'asc')))
  using p_bucket, pattern, needle, coalesce(p_limit, 100), coalesce(p_offset, 0);
end
$$;

-- Removes the named objects the caller may delete; returns the removed rows.
create or replace function storage.remove_objects(p_bucket text, p_names text[]) returns setof storage.objects
language sql
set search_path = ''
as $$
  delete from storage.objects o where o.bucket_id = p_bucket and o.name = any(p_names) returning o.*
$$;

grant execute on all functions in schema storage to anon, authenticated, service_role;
