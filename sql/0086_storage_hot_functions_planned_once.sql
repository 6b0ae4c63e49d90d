-- Storage: the SQL functions of every upload and download, in plpgsql,
-- planned once per connection instead of on every call (why: sql/0083,
-- sql/CONVENTIONS.md "Security"). A 1 KB upload calls storage.bucket_rules
-- and storage.mime_allowed twice each (the rules checked before any byte is
-- stored, then again as the row is recorded) and storage.valid_object_name
-- once; a download calls storage.bucket_rules. As `language sql` with a SET
-- clause they cost about 0.35 ms of PostgreSQL's time an upload under load
-- (`pg_stat_user_functions`, bench:storage). Same arguments, same answers;
-- privileges stay as they were (create or replace keeps them).

-- A bucket's limits, looked up past the caller's policies (they may not see the bucket row).
create or replace function storage.bucket_rules(bucket text)
returns table (id text, public boolean, file_size_limit bigint, allowed_mime_types text[], inline_active_content boolean)
language plpgsql stable security definer
set search_path = ''
as $$
begin
  return query
  select b.id, b.public, b.file_size_limit, b.allowed_mime_types, b.inline_active_content from storage.buckets b where b.id = bucket;
end
$$;

-- Whether a bucket's allowed types take this one: none listed takes all; `image/*` takes any image; parameters are ignored.
create or replace function storage.mime_allowed(allowed text[], mime text) returns boolean
language plpgsql immutable
set search_path = ''
as $$
begin
  return allowed is null or cardinality(allowed) = 0 or exists (
    select 1 from unnest(allowed) a
     where lower(trim(a)) in ('*/*', lower(trim(split_part(mime, ';', 1))))
        or (trim(a) like '%/*' and lower(split_part(trim(a), '/', 1)) = lower(split_part(trim(mime), '/', 1))));
end
$$;

-- An object name Supabase Storage would take: not empty, at most 1024 bytes, no control characters,
-- no backslash, no leading slash, no `.` or `..` segment.
create or replace function storage.valid_object_name(name text) returns boolean
language plpgsql immutable
set search_path = ''
as $$
begin
  return name is not null and name <> '' and octet_length(name) <= 1024
     and name !~ '[\x01-\x1f\x7f\\]' and left(name, 1) <> '/'
     and not (string_to_array(name, '/') && array['.', '..']);
end
$$;
