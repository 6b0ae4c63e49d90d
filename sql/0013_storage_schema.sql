-- Object storage metadata with Supabase Storage's names, so existing storage
-- policies port unchanged. Bytes live in a backend (local files or S3) keyed
-- by `version`, never by the object's name; these rows decide who may do what.
-- Every object and bucket operation runs as the caller's role with the
-- caller's claims: RLS on these tables is the whole access model (the service
-- role bypasses it).

create table if not exists storage.buckets (
  id text primary key,
  name text not null,
  owner uuid,
  owner_id text,
  public boolean not null default false,
  avif_autodetection boolean not null default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  created_at timestamptz not null default now(),
  -- id format, size limit and type list are checked by storage.check_bucket() (0014).
  updated_at timestamptz not null default now()
);
create unique index if not exists buckets_name_key on storage.buckets (name);

create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text not null references storage.buckets (id),
  name text not null,
  owner uuid,
  owner_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_accessed_at timestamptz not null default now(),
  metadata jsonb,
  user_metadata jsonb,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  -- The key of the object's bytes in the backend: a new one for every write.
  version text,
  constraint objects_bucket_name_key unique (bucket_id, name)
);
create index if not exists objects_bucket_name_pattern on storage.objects (bucket_id, name text_pattern_ops);

alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;

grant select, insert, update, delete on storage.buckets, storage.objects to anon, authenticated, service_role;

-- Path helpers, as Supabase defines them: 'a/b/c.png' has folders {a,b},
-- file name 'c.png' and extension 'png'.
create or replace function storage.foldername(name text) returns text[]
language sql immutable
set search_path = ''
as $$
  select (string_to_array(name, '/'))[1:greatest(cardinality(string_to_array(name, '/')) - 1, 0)]
$$;

create or replace function storage.filename(name text) returns text
language sql immutable
set search_path = ''
as $$
  select (string_to_array(name, '/'))[cardinality(string_to_array(name, '/'))]
$$;

create or replace function storage.extension(name text) returns text
language sql immutable
set search_path = ''
as $$
  select case when storage.filename(name) like '%.%'
    then (string_to_array(storage.filename(name), '.'))[cardinality(string_to_array(storage.filename(name), '.'))]
    else '' end
$$;

grant execute on function storage.foldername(text), storage.filename(text), storage.extension(text) to anon, authenticated, service_role;
