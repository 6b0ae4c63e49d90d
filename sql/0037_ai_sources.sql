-- AI surface: sources and their extraction (spec 2.8, 3.1, 4.12).
--
--   1. ai.ensure_source_bucket    the private storage bucket ai-sources (originals and
--                                 derivatives), made when the first source is stored
--   2. ai.sources                 a document: name, metadata, origin, extraction state and progress
--   3. ai.source_derivatives      what extraction made: markdown, text, page_text, image, elements
--   4. the state machine          guarded statements, each keyed by the extraction run:
--        ai.queue_extraction      (new, or reextract) -> pending, a job queued
--        ai.begin_extraction      pending -> extracting
--        ai.extraction_progress   pages done of total, while extracting
--        ai.finish_extraction     extracting -> extracted | attention_required | failed
--        ai.cancel_source         pending | extracting -> cancelled; 409 from the others
--
-- `extraction_run` counts extractions: a job carries the run it was queued
-- for, and every step is guarded on it, so a job left over from an earlier
-- run (re-extracted or cancelled since) changes nothing.

-- The bytes live in storage, as every other file does. No policy lets users at
-- this bucket: the API reads and writes it for them after checking the source.
-- Made on first use, so projects that never store a source do not list it.
create or replace function ai.ensure_source_bucket() returns void
language sql volatile
set search_path = ''
as $$ insert into storage.buckets (id, name, public) values ('ai-sources', 'ai-sources', false) on conflict (id) do nothing $$;
revoke execute on function ai.ensure_source_bucket() from public;
grant execute on function ai.ensure_source_bucket() to service_role;

create table ai.sources (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  name text not null check (name <> '' and length(name) <= 500),
  metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  -- Where it came from: upload {filename}, storage {bucket, path} or url {url}.
  origin text not null check (origin in ('upload', 'storage', 'url')),
  origin_detail jsonb not null default '{}' check (jsonb_typeof(origin_detail) = 'object'),
  extension text not null check (extension in ('pdf', 'txt', 'md', 'docx', 'xlsx', 'xls', 'pptx', 'png', 'jpg', 'jpeg', 'webp', 'gif', 'tiff', 'html')),
  content_type text not null,
  size_bytes bigint not null check (size_bytes >= 0),
  -- The original in bucket ai-sources.
  object_path text not null,
  extraction_model text not null default 'auto' references ai.extraction_methods (name),
  extraction_status text not null default 'pending'
    check (extraction_status in ('pending', 'extracting', 'extracted', 'attention_required', 'failed', 'cancelled')),
  extraction_run int not null default 1,
  -- Why it needs attention or failed, in words for the user.
  extraction_message text,
  -- The engine that made the derivatives.
  extraction_engine text,
  pages_total int,
  pages_done int not null default 0,
  extraction_started_at timestamptz,
  extracted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index sources_owner on ai.sources (owner_id, created_at desc);
create index sources_status on ai.sources (extraction_status);
alter table ai.sources enable row level security;
create policy sources_read on ai.sources for select to authenticated using (ai.can_read(owner_id));
create policy sources_insert on ai.sources for insert to authenticated with check (ai.owns(owner_id));
create policy sources_update on ai.sources for update to authenticated using (ai.owns(owner_id)) with check (ai.owns(owner_id));
create policy sources_delete on ai.sources for delete to authenticated using (ai.owns(owner_id));
-- Users set what they own about a source; its state moves only through the functions below.
grant select, delete on ai.sources to authenticated;
grant insert (id, name, metadata, origin, origin_detail, extension, content_type, size_bytes, object_path, extraction_model) on ai.sources to authenticated;
grant update (name, metadata) on ai.sources to authenticated;
grant select, insert, update, delete on ai.sources to service_role;
create trigger sources_touch before update on ai.sources for each row execute function ai.touch();

create table ai.source_derivatives (
  source_id uuid not null references ai.sources on delete cascade,
  kind text not null check (kind in ('markdown', 'text', 'page_text', 'image', 'elements')),
  -- 0-based, per kind: page_text i is page i + 1; image i is the i-th image.
  idx int not null default 0 check (idx >= 0),
  object_path text not null,
  content_type text not null,
  size_bytes bigint not null,
  -- The page it belongs to, where it has one.
  page int,
  created_at timestamptz not null default now(),
  primary key (source_id, kind, idx)
);
alter table ai.source_derivatives enable row level security;
create policy source_derivatives_read on ai.source_derivatives for select to authenticated
  using (exists (select 1 from ai.sources s where s.id = source_id));
grant select on ai.source_derivatives to authenticated;
grant select, insert, update, delete on ai.source_derivatives to service_role;

-- Whether the caller may change this source (its owner, or the service role).
create or replace function ai.may_change_source(p_source uuid) returns boolean
language sql stable
set search_path = ''
as $$ select exists (select 1 from ai.sources s where s.id = p_source and (auth.role() = 'service_role' or ai.owns(s.owner_id))) $$;
revoke execute on function ai.may_change_source(uuid) from public;
grant execute on function ai.may_change_source(uuid) to authenticated, service_role;

-- (Re)starts extraction: a new run, pending, its job queued (keyed by the
-- source, so a waiting job is replaced rather than doubled). A new model may
-- be given. Answers the run. 404 unless the caller may change the source.
create or replace function ai.queue_extraction(p_source uuid, p_model text) returns int
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_run int;
begin
  if not ai.may_change_source(p_source) then perform auth.raise_error(404, 'NOT_FOUND', 'Source not found'); end if;
  if p_model is not null and not exists (select 1 from ai.extraction_methods m where m.name = p_model) then
    perform auth.raise_error(400, 'VALIDATION_ERROR', format('Invalid extraction_model %s: use one of %s', p_model,
      (select string_agg(m.name, ', ' order by m.position) from ai.extraction_methods m)));
  end if;
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
revoke execute on function ai.queue_extraction(uuid, text) from public;
grant execute on function ai.queue_extraction(uuid, text) to authenticated, service_role;

-- The job takes its run: pending -> extracting. False when the run is stale
-- or not pending (cancelled, re-queued): the job then does nothing. A retry
-- of a job that crashed mid-run finds it extracting and takes it again.
create or replace function ai.begin_extraction(p_source uuid, p_run int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update ai.sources set extraction_status = 'extracting', extraction_started_at = now(), pages_done = 0
   where id = p_source and extraction_run = p_run and extraction_status in ('pending', 'extracting');
  return found;
end
$$;
revoke execute on function ai.begin_extraction(uuid, int) from public;
grant execute on function ai.begin_extraction(uuid, int) to service_role;

-- Progress goes out on the realtime bus too, after commit: a broadcast on the
-- private channel `source:<id>` (event extraction_progress or
-- extraction_finished), which clients receive where realtime.messages
-- policies let them.
create or replace function ai.announce_extraction(p_source uuid, p_event text) returns void
language sql volatile
set search_path = ''
as $$
  select realtime.send(jsonb_build_object('source_id', s.id, 'extraction_status', s.extraction_status, 'pages_done', s.pages_done,
                                          'pages_total', s.pages_total, 'message', s.extraction_message),
                       p_event, 'source:' || s.id::text, true)
    from ai.sources s where s.id = p_source;
$$;
revoke execute on function ai.announce_extraction(uuid, text) from public;
grant execute on function ai.announce_extraction(uuid, text) to service_role;

-- Pages done of total while the run extracts. False when it should stop (cancelled, re-queued).
create or replace function ai.extraction_progress(p_source uuid, p_run int, p_done int, p_total int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  update ai.sources set pages_done = p_done, pages_total = p_total
   where id = p_source and extraction_run = p_run and extraction_status = 'extracting';
  if not found then return false; end if;
  perform ai.announce_extraction(p_source, 'extraction_progress');
  return true;
end
$$;
revoke execute on function ai.extraction_progress(uuid, int, int, int) from public;
grant execute on function ai.extraction_progress(uuid, int, int, int) to service_role;

create or replace function ai.finish_extraction(p_source uuid, p_run int, p_status text, p_message text, p_engine text, p_pages int) returns boolean
language plpgsql volatile
set search_path = ''
as $$
begin
  if p_status not in ('extracted', 'attention_required', 'failed') then
    raise exception 'an extraction ends extracted, attention_required or failed, not %', p_status;
  end if;
  update ai.sources
     set extraction_status = p_status, extraction_message = p_message, extraction_engine = p_engine,
         pages_total = coalesce(p_pages, pages_total), pages_done = coalesce(p_pages, pages_done),
         extracted_at = case when p_status = 'failed' then null else now() end
   where id = p_source and extraction_run = p_run and extraction_status = 'extracting';
  if not found then return false; end if;
  perform ai.announce_extraction(p_source, 'extraction_finished');
  return true;
end
$$;
revoke execute on function ai.finish_extraction(uuid, int, text, text, text, int) from public;
grant execute on function ai.finish_extraction(uuid, int, text, text, text, int) to service_role;

-- POST /api/sources/{id}/cancel (spec 3.1).
create or replace function ai.cancel_source(p_source uuid) returns ai.sources
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  s ai.sources;
begin
  if not ai.may_change_source(p_source) then perform auth.raise_error(404, 'NOT_FOUND', 'Source not found'); end if;
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
revoke execute on function ai.cancel_source(uuid) from public;
grant execute on function ai.cancel_source(uuid) to authenticated, service_role;
