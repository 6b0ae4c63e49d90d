-- Storage as Supabase Storage answers it (storage fidelity issue).
--
--   1. storage.content_may_be   whether bytes of the sniffed type may be the
--                               declared type: active content (HTML, SVG) only
--                               as itself, a zip as any zip-based format (DOCX,
--                               XLSX, PPTX, ODF, EPUB, JAR, APK), others within
--                               their family (image as image, PDF as PDF)
--   2. storage.put_object       restated (0014): the sniff vetoes only what 1 refuses
--   3. storage.check_bucket     restated (0014): list-v2 and the other route
--                               words are reserved bucket ids
--   4. storage.put_signed_object  restated (0017), with storage.spend_upload_token_once: a URL minted with upsert
--                               overwrites until it expires; a plain one uploads
--                               once, a second upload is 409 Duplicate
--   5. storage.list_objects_v2  POST /object/list-v2/{bucket}: {hasNext,
--                               nextCursor, folders, objects}, delimiter folders,
--                               cursor paging, sort by name, created_at, updated_at

-- 1 ---------------------------------------------------------------------------
create or replace function storage.content_may_be(p_declared text, p_sniffed text) returns boolean
language sql immutable
set search_path = ''
as $$
  select case
    when p_sniffed is null or p_declared is null then false
    when p_sniffed in ('text/html', 'image/svg+xml') then lower(p_declared) = p_sniffed
    when p_sniffed = 'application/zip' then lower(p_declared) ~ ('^application/(zip|x-zip-compressed|epub\+zip|java-archive|vnd\.android\.package-archive'
      || '|vnd\.openxmlformats-officedocument\.[a-z.]+|vnd\.oasis\.opendocument\.[a-z.-]+|vnd\.ms-[a-z]+\.[a-z.]*macroenabled[a-z.0-9]*)$')
    when p_sniffed = 'application/pdf' then lower(p_declared) in ('application/pdf', 'application/x-pdf')
    else split_part(lower(p_declared), '/', 1) = split_part(p_sniffed, '/', 1) and lower(p_declared) not in ('image/svg+xml')
  end
$$;
grant execute on function storage.content_may_be(text, text) to anon, authenticated, service_role;

-- 2 ---------------------------------------------------------------------------
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
  -- The bytes veto the declared type only when they are active content (HTML, SVG) or of a family the
  -- declared type cannot be (PDF bytes labelled image/png); a .docx is a zip, and may be declared as itself.
  if p_sniffed_type is not null and not storage.mime_allowed(rules.allowed_mime_types, p_sniffed_type)
     and not storage.content_may_be(p_metadata ->> 'mimetype', p_sniffed_type) then
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

-- 3 ---------------------------------------------------------------------------
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
  if new.id in ('list', 'list-v2', 'copy', 'move', 'sign', 'info', 'public', 'authenticated', 'upload', 'render', 'image', 'bucket', 'object', 'upload-sign', 'search') then
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

-- 4 ---------------------------------------------------------------------------
-- Marks a plain signed upload token used; a second use meets the object the
-- first made: 409 Duplicate. Definer: no API role reads spent tokens.
create or replace function storage.spend_upload_token_once(p_jti uuid, p_expires_at timestamptz) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from storage.spent_upload_tokens t where t.expires_at < now() - interval '1 minute';
  insert into storage.spent_upload_tokens (jti, expires_at) values (p_jti, p_expires_at) on conflict (jti) do nothing;
  if not found then
    perform auth.raise_error(409, 'Duplicate', 'The resource already exists');
  end if;
end
$$;
revoke execute on function storage.spend_upload_token_once(uuid, timestamptz) from public;
grant execute on function storage.spend_upload_token_once(uuid, timestamptz) to anon, authenticated, service_role;

create or replace function storage.put_signed_object(p_jti uuid, p_expires_at timestamptz, p_bucket text, p_name text, p_version text,
  p_metadata jsonb, p_upsert boolean default false, p_user_metadata jsonb default null, p_sniffed_type text default null)
returns table (object_id uuid, replaced_version text)
language plpgsql
set search_path = ''
as $$
begin
  -- Minted with upsert: it may overwrite until it expires, as Supabase's are. Without: one upload, and a
  -- second meets the object the first made (409 Duplicate, which clients read as "already uploaded").
  if not p_upsert then
    perform storage.spend_upload_token_once(p_jti, p_expires_at);
  end if;
  return query select * from storage.put_object(p_bucket, p_name, p_version, p_metadata, p_upsert, p_user_metadata, p_sniffed_type);
end
$$;

-- 5 ---------------------------------------------------------------------------
-- Entries after the cursor in the sort order: (sort value, key), the value a
-- date for created_at and updated_at (folders, which have none, sort first
-- ascending), nothing for name. The cursor is that pair, base64url JSON.
create or replace function storage.list_objects_v2(p_bucket text, p_prefix text default '', p_limit int default 1000, p_cursor text default null,
  p_with_delimiter boolean default false, p_sort_column text default 'name', p_sort_order text default 'asc')
returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  prefix text := coalesce(p_prefix, '');
  pattern text := replace(replace(replace(coalesce(p_prefix, ''), '\', '\\'), '%', '\%'), '_', '\_') || '%';
  lim int := coalesce(p_limit, 1000);
  col text := coalesce(p_sort_column, 'name');
  descending boolean := lower(coalesce(p_sort_order, 'asc')) = 'desc';
  after jsonb;
  after_key text;
  after_at timestamptz;
  picked jsonb;
  n int;
begin
  if not exists (select 1 from storage.bucket_rules(p_bucket)) then
    perform auth.raise_error(404, 'Bucket not found', 'Bucket not found');
  end if;
  if col not in ('name', 'created_at', 'updated_at') then
    perform auth.raise_error(400, 'InvalidRequest', 'sortBy.column must be name, created_at or updated_at');
  end if;
  if lower(coalesce(p_sort_order, 'asc')) not in ('asc', 'desc') then
    perform auth.raise_error(400, 'InvalidRequest', 'sortBy.order must be asc or desc');
  end if;
  if lim < 1 or lim > 1000 then
    perform auth.raise_error(400, 'InvalidRequest', 'limit must be from 1 to 1000');
  end if;
  if coalesce(p_cursor, '') <> '' then
    begin
      after := convert_from(decode(translate(p_cursor, '-_', '+/') || repeat('=', (4 - length(p_cursor) % 4) % 4), 'base64'), 'utf8')::jsonb;
      after_key := after ->> 'k';
      after_at := coalesce((after ->> 't')::timestamptz, '-infinity');
    exception when others then
      perform auth.raise_error(400, 'InvalidRequest', 'cursor is not one this listing gave');
    end;
  end if;
  with entries as (
    select o.name as key, substr(o.name, length(prefix) + 1) as rest, false as folder, o.id, o.created_at, o.updated_at, o.last_accessed_at, o.metadata
      from storage.objects o
     where o.bucket_id = p_bucket and o.name like pattern
       and (not coalesce(p_with_delimiter, false) or position('/' in substr(o.name, length(prefix) + 1)) = 0)
    union all
    select distinct prefix || split_part(substr(o.name, length(prefix) + 1), '/', 1) || '/', split_part(substr(o.name, length(prefix) + 1), '/', 1),
           true, null::uuid, null::timestamptz, null::timestamptz, null::timestamptz, null::jsonb
      from storage.objects o
     where coalesce(p_with_delimiter, false) and o.bucket_id = p_bucket and o.name like pattern and position('/' in substr(o.name, length(prefix) + 1)) > 0
  ), keyed as (
    select e.*, coalesce(case col when 'created_at' then e.created_at when 'updated_at' then e.updated_at end, '-infinity'::timestamptz) as at from entries e
  ), page as (
    select k.* from keyed k
     where after_key is null
        or (not descending and (k.at, k.key) > (after_at, after_key))
        or (descending and (k.at, k.key) < (after_at, after_key))
     order by case when not descending then k.at end asc, case when not descending then k.key end asc,
              case when descending then k.at end desc, case when descending then k.key end desc
     limit lim + 1
  ), numbered as (
    select p.*, row_number() over (order by case when not descending then p.at end asc, case when not descending then p.key end asc,
                                            case when descending then p.at end desc, case when descending then p.key end desc) as n
      from page p
  )
  select count(*)::int,
         jsonb_build_object(
           'folders', coalesce(jsonb_agg(jsonb_build_object('name', x.rest, 'key', x.key) order by x.n) filter (where x.folder and x.n <= lim), '[]'),
           'objects', coalesce(jsonb_agg(jsonb_build_object('name', x.rest, 'key', x.key, 'id', x.id, 'created_at', x.created_at, 'updated_at', x.updated_at,
                                                            'last_accessed_at', x.last_accessed_at, 'metadata', x.metadata) order by x.n) filter (where not x.folder and x.n <= lim), '[]'),
           'last', (select jsonb_build_object('k', y.key, 't', case when col = 'name' then null else y.at end) from numbered y where y.n = lim))
    into n, picked
    from numbered x;
  return jsonb_build_object('hasNext', n > lim, 'folders', picked -> 'folders', 'objects', picked -> 'objects')
      || case when n > lim then jsonb_build_object('nextCursor', translate(rtrim(encode(convert_to((picked -> 'last')::text, 'utf8'), 'base64'), '='), '+/' || chr(10), '-_')) else '{}' end;
end
$$;
grant execute on function storage.list_objects_v2(text, text, int, text, boolean, text, text) to anon, authenticated, service_role;
