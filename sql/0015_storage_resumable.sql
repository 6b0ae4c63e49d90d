-- Storage, second part: resumable (TUS) uploads, the bucket opt-in to serve
-- active content (HTML, SVG) inline, and what the sweepers of unfinished and
-- orphaned bytes ask the database.

-- ---- active content --------------------------------------------------------

-- HTML, SVG and XML are sent as attachments (a browser would run them on the
-- project's origin) unless the bucket says its files are meant to be shown.
alter table storage.buckets add column if not exists inline_active_content boolean not null default false;

drop function if exists storage.bucket_rules(text);
create function storage.bucket_rules(bucket text)
returns table (id text, public boolean, file_size_limit bigint, allowed_mime_types text[], inline_active_content boolean)
language sql stable security definer
set search_path = ''
as $$
  select b.id, b.public, b.file_size_limit, b.allowed_mime_types, b.inline_active_content from storage.buckets b where b.id = bucket
$$;
grant execute on function storage.bucket_rules(text) to anon, authenticated, service_role;

drop function if exists storage.create_bucket(text, text, boolean, bigint, text[]);
create function storage.create_bucket(p_id text, p_name text default null, p_public boolean default false,
  p_file_size_limit bigint default null, p_allowed_mime_types text[] default null, p_inline_active_content boolean default false)
returns storage.buckets
language plpgsql
set search_path = ''
as $$
declare
  created storage.buckets;
begin
  insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types, inline_active_content)
  values (p_id, coalesce(p_name, p_id), auth.uid(), auth.jwt() ->> 'sub', coalesce(p_public, false), p_file_size_limit, p_allowed_mime_types,
    coalesce(p_inline_active_content, false))
  returning * into created;
  return created;
exception when unique_violation then
  perform auth.raise_error(409, 'Duplicate', 'The resource already exists');
end
$$;
grant execute on function storage.create_bucket(text, text, boolean, bigint, text[], boolean) to anon, authenticated, service_role;

-- Changes only the fields present in `changes` (public, file_size_limit,
-- allowed_mime_types, inline_active_content).
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
    inline_active_content = case when changes ? 'inline_active_content'
      then coalesce((changes ->> 'inline_active_content')::boolean, false) else b.inline_active_content end,
    updated_at = now()
  where b.id = p_id
  returning * into updated;
  if not found then
    perform auth.raise_error(404, 'Bucket not found', 'Bucket not found');
  end if;
  return updated;
end
$$;

-- ---- resumable uploads -----------------------------------------------------

-- One row per unfinished TUS upload. Its id is also the byte version the
-- finished object will have, so the bytes are written where they will stay.
-- The row is the upload's authorisation (decided at creation, as the caller)
-- and its deadline; the worker deletes expired ones with their bytes.
create table if not exists storage.resumable_uploads (
  id uuid primary key,
  bucket_id text not null references storage.buckets (id) on delete cascade,
  name text not null,
  owner_id text,
  upsert boolean not null default false,
  upload_length bigint not null check (upload_length >= 0),
  content_type text not null,
  cache_control text not null,
  user_metadata jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index if not exists resumable_uploads_expires_at on storage.resumable_uploads (expires_at);

alter table storage.resumable_uploads enable row level security;
-- update: finishing locks the row (select ... for update).
grant select, insert, update, delete on storage.resumable_uploads to anon, authenticated, service_role;
-- An upload is continued, finished or cancelled only by whoever started it
-- (anonymous uploads by anonymous callers); the service role bypasses this.
drop policy if exists "resumable uploads are their creator's" on storage.resumable_uploads;
create policy "resumable uploads are their creator's" on storage.resumable_uploads for all to anon, authenticated
  using (owner_id is not distinct from (auth.jwt() ->> 'sub'))
  with check (owner_id is not distinct from (auth.jwt() ->> 'sub'));

-- Starts a resumable upload as the caller: the bucket's size limit (and the
-- server's resumable ceiling p_max_size) against the announced length, the
-- allow-list against the declared type, and the caller's INSERT (and, with
-- upsert, UPDATE) policies by a trial write, all before any byte is stored.
create or replace function storage.begin_resumable(p_id uuid, p_bucket text, p_name text, p_upsert boolean, p_length bigint,
  p_content_type text, p_cache_control text, p_user_metadata jsonb, p_max_size bigint, p_expires_in int)
returns storage.resumable_uploads
language plpgsql
set search_path = ''
as $$
declare
  rules record;
  started storage.resumable_uploads;
begin
  select * into rules from storage.bucket_rules(p_bucket);
  if not found then
    perform auth.raise_error(404, 'Bucket not found', 'Bucket not found');
  end if;
  if p_length is null or p_length < 0 then
    perform auth.raise_error(400, 'InvalidRequest', 'Upload-Length must be given: deferred lengths are not supported');
  end if;
  if p_length > least(p_max_size, coalesce(rules.file_size_limit, p_max_size)) then
    perform auth.raise_error(413, 'Payload too large', 'The object exceeded the maximum allowed size');
  end if;
  if not storage.mime_allowed(rules.allowed_mime_types, p_content_type) then
    perform auth.raise_error(415, 'invalid_mime_type', 'mime type ' || p_content_type || ' is not supported');
  end if;
  perform storage.can_upload(p_bucket, p_name, p_upsert);
  insert into storage.resumable_uploads (id, bucket_id, name, owner_id, upsert, upload_length, content_type, cache_control, user_metadata, expires_at)
  values (p_id, p_bucket, p_name, auth.jwt() ->> 'sub', p_upsert, p_length, p_content_type, p_cache_control, p_user_metadata,
    now() + make_interval(secs => p_expires_in))
  returning * into started;
  return started;
end
$$;

-- Whether the caller may continue (HEAD, PATCH) or cancel this upload.
create or replace function storage.require_resumable(p_id uuid) returns storage.resumable_uploads
language plpgsql stable
set search_path = ''
as $$
declare
  found_upload storage.resumable_uploads;
begin
  select * into found_upload from storage.resumable_uploads r where r.id = p_id and r.expires_at > now();
  if not found then
    perform auth.raise_error(404, 'not_found', 'Upload not found');
  end if;
  return found_upload;
end
$$;

-- Records the finished upload as an object, as the caller (policies are
-- checked again: they may have changed since the start) and ends the upload.
-- p_metadata carries what the bytes showed: size, eTag; p_sniffed_type the
-- type of the first bytes. Returns put_object's result.
create or replace function storage.finish_resumable(p_id uuid, p_metadata jsonb, p_sniffed_type text)
returns table (object_id uuid, bucket_id text, name text, replaced_version text)
language plpgsql
set search_path = ''
as $$
declare
  u storage.resumable_uploads;
  written record;
begin
  select * into u from storage.resumable_uploads r where r.id = p_id for update;
  if not found then
    perform auth.raise_error(404, 'not_found', 'Upload not found');
  end if;
  if (p_metadata ->> 'size')::bigint is distinct from u.upload_length then
    perform auth.raise_error(400, 'InvalidRequest', 'The upload is not complete');
  end if;
  select * into written from storage.put_object(u.bucket_id, u.name, u.id::text,
    p_metadata || jsonb_build_object('mimetype', u.content_type, 'cacheControl', u.cache_control, 'lastModified', to_jsonb(now()),
      'contentLength', p_metadata -> 'size', 'httpStatusCode', 200),
    u.upsert, u.user_metadata, p_sniffed_type);
  delete from storage.resumable_uploads r where r.id = p_id;
  return query select written.object_id, u.bucket_id, u.name, written.replaced_version;
end
$$;

-- Ends an upload without an object (cancelled, or refused when finishing).
create or replace function storage.cancel_resumable(p_id uuid) returns boolean
language sql
set search_path = ''
as $$
  with gone as (delete from storage.resumable_uploads r where r.id = p_id returning 1) select exists (select 1 from gone)
$$;

grant execute on function storage.begin_resumable(uuid, text, text, boolean, bigint, text, text, jsonb, bigint, int),
  storage.require_resumable(uuid), storage.finish_resumable(uuid, jsonb, text), storage.cancel_resumable(uuid)
  to anon, authenticated, service_role;

-- ---- sweepers (run by the worker, as the platform's own role) -------------

-- Takes the expired unfinished uploads off the books and returns their ids,
-- whose bytes the worker then deletes.
create or replace function storage.expire_resumable_uploads(p_limit int default 1000) returns setof uuid
language sql
set search_path = ''
as $$
  delete from storage.resumable_uploads r
  where r.id in (select e.id from storage.resumable_uploads e where e.expires_at <= now() order by e.expires_at limit p_limit for update skip locked)
  returning r.id
$$;

-- Of the byte keys found in the backend, those no object and no unfinished
-- upload refers to: the leftovers of a crash between storing bytes and
-- recording them. The worker only asks about keys older than a grace period,
-- so an upload in flight (bytes stored, row not yet committed) is never one.
create or replace function storage.orphaned_versions(p_keys text[]) returns setof text
language sql stable
set search_path = ''
as $$
  select k from unnest(p_keys) k
  where not exists (select 1 from storage.objects o where o.version = split_part(k, '.', 1))
    and not exists (select 1 from storage.resumable_uploads r where r.id::text = split_part(k, '.', 1))
$$;
revoke execute on function storage.expire_resumable_uploads(int), storage.orphaned_versions(text[]) from public;

-- The sweeper looks objects up by byte key.
create index if not exists objects_version on storage.objects (version);

