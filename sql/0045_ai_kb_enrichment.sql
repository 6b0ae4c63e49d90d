-- AI surface: metadata enrichment of a knowledge base's items (spec 2.11,
-- 3.3, 4.13): a model fills typed fields per item; the values live in a
-- table made for the knowledge base, which a DBA can read and query.
--
--   1. ai.kb_enrichments            the config, its state and run
--   2. ai.check_enrichment_fields   the field rules of 2.11 (400 naming the rule)
--   3. the metadata table           ai.kb_meta_<knowledge base id>: item_id, item_type, one typed
--                                   column per field, enriched_at, _enrichment_error, _attempted_at;
--                                   ai.create_enrichment_table / ai.drop_enrichment_table
--   4. the state machine (3.3)      idle -> enriching -> completed | completed_with_errors | failed,
--                                   guarded by the run:
--        ai.put_enrichment          PUT: create, or change by the rules of 4.13 (409 while enriching)
--        ai.delete_enrichment       DELETE: config and table (409 while enriching)
--        ai.request_enrichment      POST run: enriching, a new run, its job queued (409 while enriching)
--        ai.enrichment_targets      the next items a run enriches (all, incremental, retry_failed)
--        ai.continue_enrichment     the run's next job (METADATA_ENRICHMENT_BATCH_SIZE items a job)
--        ai.store_enrichment        one item's values or error, while the run holds
--        ai.finish_enrichment       the run's end
--   5. ai.enrichment_view           the config as GET shows it (counts, table name)

-- 1. The config -------------------------------------------------------------------------------

create table ai.kb_enrichments (
  kb_id uuid primary key references ai.knowledge_bases on delete cascade,
  fields jsonb not null check (jsonb_typeof(fields) = 'array'),
  llm_model text not null,
  max_tokens int not null check (max_tokens between 1 and 100000),
  use_multimodal boolean not null default false,
  status text not null default 'idle' check (status in ('idle', 'enriching', 'completed', 'completed_with_errors', 'failed')),
  run int not null default 0,
  error_message text,
  table_name text not null,
  started_at timestamptz,
  finished_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table ai.kb_enrichments enable row level security;
create policy kb_enrichments_read on ai.kb_enrichments for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = kb_id));
grant select on ai.kb_enrichments to authenticated;
grant select, insert, update, delete on ai.kb_enrichments to service_role;
create trigger kb_enrichments_touch before update on ai.kb_enrichments for each row execute function ai.touch();

-- 2. Field rules ---------------------------------------------------------------------------------

-- A non-empty array of {name, description, type, enum_values}: name of
-- letters, digits and underscores starting with a letter, at most 63
-- characters, unique, not a reserved column; type text, boolean, number or
-- enum; an enum with at least 2 distinct string values. Answers the fields
-- as stored (description '' when absent, enum_values only on enums).
create or replace function ai.check_enrichment_fields(p_fields jsonb) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
declare
  f jsonb;
  n int := 0;
  out jsonb := '[]';
  names text[] := '{}';
begin
  if jsonb_typeof(p_fields) is distinct from 'array' or jsonb_array_length(p_fields) = 0 then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'fields must be a non-empty array of {name, description, type, enum_values}');
  end if;
  for f in select value from jsonb_array_elements(p_fields) loop
    n := n + 1;
    if jsonb_typeof(f) <> 'object' or jsonb_typeof(f -> 'name') is distinct from 'string' then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('fields[%s].name is required', n - 1));
    elsif f ->> 'name' !~ '^[A-Za-z][A-Za-z0-9_]*$' or length(f ->> 'name') > 63 then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('fields[%s].name %s must be letters, digits and underscores, starting with a letter (at most 63)', n - 1, f -> 'name'));
    elsif lower(f ->> 'name') in ('id', 'item_id', 'item_type', 'enriched_at', '_enrichment_error') then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('fields[%s].name %s is reserved (id, item_id, item_type, enriched_at, _enrichment_error)', n - 1, f -> 'name'));
    elsif lower(f ->> 'name') = any (names) then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('fields[%s].name %s is used twice', n - 1, f -> 'name'));
    elsif coalesce(f ->> 'type', '') not in ('text', 'boolean', 'number', 'enum') then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('fields[%s].type must be text, boolean, number or enum', n - 1));
    elsif f ->> 'type' = 'enum' and (jsonb_typeof(f -> 'enum_values') is distinct from 'array'
          or (select count(distinct e) from jsonb_array_elements(f -> 'enum_values') e where jsonb_typeof(e) = 'string') < 2
          or exists (select 1 from jsonb_array_elements(f -> 'enum_values') e where jsonb_typeof(e) <> 'string')) then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('fields[%s] is an enum: enum_values needs at least 2 distinct strings', n - 1));
    elsif f ? 'description' and jsonb_typeof(f -> 'description') not in ('string', 'null') then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('fields[%s].description must be a string', n - 1));
    end if;
    names := names || lower(f ->> 'name');
    out := out || jsonb_build_array(jsonb_build_object('name', f ->> 'name', 'description', coalesce(f ->> 'description', ''), 'type', f ->> 'type')
      || case when f ->> 'type' = 'enum' then jsonb_build_object('enum_values', (select jsonb_agg(x.e order by x.o) from (select t.e, min(t.o) as o from jsonb_array_elements(f -> 'enum_values') with ordinality as t(e, o) group by t.e) x)) else '{}' end);
  end loop;
  return out;
end
$$;
revoke execute on function ai.check_enrichment_fields(jsonb) from public;
grant execute on function ai.check_enrichment_fields(jsonb) to authenticated, service_role;

-- 3. The metadata table --------------------------------------------------------------------------

create or replace function ai.enrichment_table_name(p_kb uuid) returns text
language sql immutable
set search_path = ''
as $$ select 'kb_meta_' || replace(p_kb::text, '-', '') $$;
revoke execute on function ai.enrichment_table_name(uuid) from public;
grant execute on function ai.enrichment_table_name(uuid) to authenticated, service_role;

-- Read where the knowledge base may be read; written only by ai.store_enrichment.
create or replace function ai.create_enrichment_table(p_kb uuid, p_fields jsonb) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  t text := ai.enrichment_table_name(p_kb);
  cols text;
begin
  select string_agg(format('%I %s', f ->> 'name', case f ->> 'type' when 'text' then 'text' when 'boolean' then 'boolean' when 'number' then 'double precision'
                       else format('text check (%I in (%s))', f ->> 'name', (select string_agg(quote_literal(e #>> '{}'), ', ') from jsonb_array_elements(f -> 'enum_values') e)) end), ', ')
    into cols from jsonb_array_elements(p_fields) f;
  execute format('create table ai.%I (item_id uuid primary key references ai.kb_items on delete cascade, item_type text not null, %s, enriched_at timestamptz, _enrichment_error text, _attempted_at timestamptz not null default now())', t, cols);
  execute format('alter table ai.%I enable row level security', t);
  execute format('create policy read on ai.%I for select to authenticated using (exists (select 1 from ai.knowledge_bases k where k.id = %L))', t, p_kb);
  execute format('grant select on ai.%I to authenticated, service_role', t);
end
$$;
revoke execute on function ai.create_enrichment_table(uuid, jsonb) from public;

create or replace function ai.drop_enrichment_table(p_kb uuid) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  execute format('drop table if exists ai.%I', ai.enrichment_table_name(p_kb));
  update ai.kb_items set enrichment = '{}' where kb_id = p_kb and enrichment <> '{}';
end
$$;
revoke execute on function ai.drop_enrichment_table(uuid) from public;

-- A knowledge base's metadata table goes with it.
create or replace function ai.drop_enrichment_on_delete() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  execute format('drop table if exists ai.%I', ai.enrichment_table_name(old.id));
  return old;
end
$$;
revoke execute on function ai.drop_enrichment_on_delete() from public, anon, authenticated, service_role;
create trigger knowledge_bases_drop_enrichment after delete on ai.knowledge_bases for each row execute function ai.drop_enrichment_on_delete();

-- 4. The state machine ----------------------------------------------------------------------------

create or replace function ai.queue_enrichment(p_kb uuid, p_incremental boolean, p_retry_failed boolean) returns int
language plpgsql volatile
set search_path = ''
as $$
declare
  v_run int;
begin
  update ai.kb_enrichments set status = 'enriching', run = run + 1, error_message = null, started_at = now(), finished_at = null
   where kb_id = p_kb returning run into v_run;
  perform graphile_worker.add_job('ai_kb_enrich', json_build_object('knowledge_base_id', p_kb, 'run', v_run, 'incremental', p_incremental, 'retry_failed', p_retry_failed),
    job_key := 'enrich:' || p_kb::text, job_key_mode := 'replace', max_attempts := 3);
  return v_run;
end
$$;
revoke execute on function ai.queue_enrichment(uuid, boolean, boolean) from public;

-- PUT /enrichment (4.13): a first config makes the table and enriches every
-- item; a change of fields or llm_model drops and remakes the table and
-- re-enriches (409 while a run is active); toggling use_multimodal re-enriches
-- (409 while active); max_tokens alone only updates; the same body is a
-- no-op. Answers {config, re_enrichment_triggered}.
create or replace function ai.put_enrichment(p_kb uuid, p_fields jsonb, p_model text, p_max_tokens int, p_multimodal boolean) returns jsonb
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  e ai.kb_enrichments;
  v_fields jsonb;
  v_model text := coalesce(p_model, ai.setting_json('METADATA_ENRICHMENT_MODEL') #>> '{}');
  v_tokens int := coalesce(p_max_tokens, (ai.setting_json('METADATA_ENRICHMENT_MAX_TOKENS') #>> '{}')::int);
  v_multimodal boolean := coalesce(p_multimodal, false);
  v_redo boolean := false;
begin
  if not ai.may_change_kb(p_kb) then perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found'); end if;
  v_fields := ai.check_enrichment_fields(p_fields);
  if v_tokens is null or v_tokens not between 1 and 100000 then perform auth.raise_error(400, 'VALIDATION_ERROR', 'max_tokens must be from 1 to 100000'); end if;
  select * into e from ai.kb_enrichments where kb_id = p_kb for update;
  if not found then
    insert into ai.kb_enrichments (kb_id, fields, llm_model, max_tokens, use_multimodal, table_name)
    values (p_kb, v_fields, v_model, v_tokens, v_multimodal, ai.enrichment_table_name(p_kb));
    perform ai.create_enrichment_table(p_kb, v_fields);
    v_redo := true;
  elsif e.fields is distinct from v_fields or e.llm_model is distinct from v_model then
    if e.status = 'enriching' then perform auth.raise_error(409, 'CONFLICT', 'An enrichment run is active: wait for it to end before changing fields or llm_model'); end if;
    perform ai.drop_enrichment_table(p_kb);
    perform ai.create_enrichment_table(p_kb, v_fields);
    update ai.kb_enrichments set fields = v_fields, llm_model = v_model, max_tokens = v_tokens, use_multimodal = v_multimodal where kb_id = p_kb;
    v_redo := true;
  elsif e.use_multimodal is distinct from v_multimodal then
    if e.status = 'enriching' then perform auth.raise_error(409, 'CONFLICT', 'An enrichment run is active: wait for it to end before changing use_multimodal'); end if;
    update ai.kb_enrichments set use_multimodal = v_multimodal, max_tokens = v_tokens where kb_id = p_kb;
    v_redo := true;
  elsif e.max_tokens is distinct from v_tokens then
    update ai.kb_enrichments set max_tokens = v_tokens where kb_id = p_kb;
  end if;
  if v_redo then perform ai.queue_enrichment(p_kb, false, false); end if;
  return jsonb_build_object('config', ai.enrichment_view(p_kb), 're_enrichment_triggered', v_redo);
end
$$;
revoke execute on function ai.put_enrichment(uuid, jsonb, text, int, boolean) from public;
grant execute on function ai.put_enrichment(uuid, jsonb, text, int, boolean) to authenticated, service_role;

create or replace function ai.delete_enrichment(p_kb uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  e ai.kb_enrichments;
begin
  if not ai.may_change_kb(p_kb) then perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found'); end if;
  select * into e from ai.kb_enrichments where kb_id = p_kb for update;
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'This knowledge base has no enrichment config'); end if;
  if e.status = 'enriching' then perform auth.raise_error(409, 'CONFLICT', 'An enrichment run is active: wait for it to end before deleting the config'); end if;
  perform ai.drop_enrichment_table(p_kb);
  delete from ai.kb_enrichments where kb_id = p_kb;
end
$$;
revoke execute on function ai.delete_enrichment(uuid) from public;
grant execute on function ai.delete_enrichment(uuid) to authenticated, service_role;

-- POST /enrichment/run: 404 without a config, 409 while a run is active.
create or replace function ai.request_enrichment(p_kb uuid, p_incremental boolean, p_retry_failed boolean) returns jsonb
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  e ai.kb_enrichments;
  v_run int;
begin
  if not ai.may_change_kb(p_kb) then perform auth.raise_error(404, 'NOT_FOUND', 'Knowledge base not found'); end if;
  select * into e from ai.kb_enrichments where kb_id = p_kb for update;
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'This knowledge base has no enrichment config'); end if;
  if e.status = 'enriching' then perform auth.raise_error(409, 'CONFLICT', 'An enrichment run is already active'); end if;
  v_run := ai.queue_enrichment(p_kb, coalesce(p_incremental, false), coalesce(p_retry_failed, false));
  return jsonb_build_object('status', 'enriching', 'run', v_run, 'knowledge_base_id', p_kb);
end
$$;
revoke execute on function ai.request_enrichment(uuid, boolean, boolean) from public;
grant execute on function ai.request_enrichment(uuid, boolean, boolean) to authenticated, service_role;

-- The next p_limit items a run enriches, in order: every item; with
-- incremental those without a row yet; with retry_failed those whose row
-- holds an error; never one this run has already tried (its row's
-- _attempted_at is after the run started), so each job of a run takes the
-- next batch.
create or replace function ai.enrichment_targets(p_kb uuid, p_incremental boolean, p_retry_failed boolean, p_limit int)
returns table (item_id uuid, kind text, text text, source_id uuid, page int, source_name text)
language plpgsql stable
set search_path = ''
as $$
declare
  t text := ai.enrichment_table_name(p_kb);
  v_started timestamptz := (select e.started_at from ai.kb_enrichments e where e.kb_id = p_kb);
begin
  return query execute format(
    'select i.id, i.kind, i.text, i.source_id, (i.meta ->> ''page'')::int, s.name from ai.kb_items i join ai.sources s on s.id = i.source_id
      where i.kb_id = $1 and case when $2 then not exists (select 1 from ai.%1$I m where m.item_id = i.id)
                                  when $3 then exists (select 1 from ai.%1$I m where m.item_id = i.id and m._enrichment_error is not null)
                                  else true end
        and not exists (select 1 from ai.%1$I m where m.item_id = i.id and m._attempted_at >= $4)
      order by i.source_id, i.position limit $5', t) using p_kb, coalesce(p_incremental, false), coalesce(p_retry_failed, false), v_started, p_limit;
end
$$;
revoke execute on function ai.enrichment_targets(uuid, boolean, boolean, int) from public;
grant execute on function ai.enrichment_targets(uuid, boolean, boolean, int) to service_role;

-- A run's next job, while the run holds: a batch done, more to do.
create or replace function ai.continue_enrichment(p_kb uuid, p_run int, p_incremental boolean, p_retry_failed boolean) returns boolean
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  if not exists (select 1 from ai.kb_enrichments where kb_id = p_kb and run = p_run and status = 'enriching') then return false; end if;
  perform graphile_worker.add_job('ai_kb_enrich', json_build_object('knowledge_base_id', p_kb, 'run', p_run, 'incremental', p_incremental, 'retry_failed', p_retry_failed),
    job_key := 'enrich:' || p_kb::text, job_key_mode := 'replace', max_attempts := 3);
  return true;
end
$$;
revoke execute on function ai.continue_enrichment(uuid, int, boolean, boolean) from public;
grant execute on function ai.continue_enrichment(uuid, int, boolean, boolean) to service_role;

-- One item's values (p_values: {field: value}, cast to the column types) or
-- its error, while the run holds; the values are copied to the item for
-- filter_metadata. False when the run no longer holds (the job stops).
create or replace function ai.store_enrichment(p_kb uuid, p_run int, p_item uuid, p_values jsonb, p_error text) returns boolean
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  e ai.kb_enrichments;
  cols text;
  vals text;
begin
  select * into e from ai.kb_enrichments where kb_id = p_kb and run = p_run and status = 'enriching';
  if not found then return false; end if;
  select string_agg(format('%I', f ->> 'name'), ', '),
         string_agg(format('($4 ->> %L)::%s', f ->> 'name', case f ->> 'type' when 'boolean' then 'boolean' when 'number' then 'double precision' else 'text' end), ', ')
    into cols, vals from jsonb_array_elements(e.fields) f;
  execute format('insert into ai.%I as m (item_id, item_type, %s, enriched_at, _enrichment_error)
                  select i.id, i.kind, %s, case when $3 is null then now() end, $3 from ai.kb_items i where i.id = $2 and i.kb_id = $1
                  on conflict (item_id) do update set (%s, enriched_at, _enrichment_error, _attempted_at) = (select %s, case when $3 is null then now() end, $3, now())',
                 e.table_name, cols, vals, cols, vals)
    using p_kb, p_item, p_error, coalesce(p_values, '{}');
  update ai.kb_items set enrichment = case when p_error is null then coalesce(p_values, '{}') else '{}' end where id = p_item and kb_id = p_kb;
  return true;
end
$$;
revoke execute on function ai.store_enrichment(uuid, int, uuid, jsonb, text) from public;
grant execute on function ai.store_enrichment(uuid, int, uuid, jsonb, text) to service_role;

-- enriching -> completed (no item holds an error), completed_with_errors, or
-- failed (p_error: the run itself failed).
create or replace function ai.finish_enrichment(p_kb uuid, p_run int, p_error text) returns boolean
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_errors int;
begin
  execute format('select count(*) from ai.%I where _enrichment_error is not null', ai.enrichment_table_name(p_kb)) into v_errors;
  update ai.kb_enrichments
     set status = case when p_error is not null then 'failed' when v_errors > 0 then 'completed_with_errors' else 'completed' end,
         error_message = p_error, finished_at = now()
   where kb_id = p_kb and run = p_run and status = 'enriching';
  return found;
end
$$;
revoke execute on function ai.finish_enrichment(uuid, int, text) from public;
grant execute on function ai.finish_enrichment(uuid, int, text) to service_role;

-- 5. The config as GET shows it ----------------------------------------------------------------------

create or replace function ai.enrichment_view(p_kb uuid) returns jsonb
language plpgsql stable security definer
set search_path = ''
as $$
declare
  e ai.kb_enrichments;
  v_enriched int;
begin
  perform ai.kb_readable(p_kb);
  select * into e from ai.kb_enrichments where kb_id = p_kb;
  if not found then return null; end if;
  execute format('select count(*) from ai.%I where _enrichment_error is null', e.table_name) into v_enriched;
  return jsonb_build_object('fields', e.fields, 'llm_model', e.llm_model, 'max_tokens', e.max_tokens, 'use_multimodal', e.use_multimodal,
    'status', e.status, 'enriched_count', v_enriched, 'total_count', (select count(*) from ai.kb_items i where i.kb_id = p_kb),
    'metadata_table_name', 'ai.' || e.table_name, 'error_message', e.error_message, 'run', e.run,
    'started_at', e.started_at, 'finished_at', e.finished_at, 'updated_at', e.updated_at);
end
$$;
revoke execute on function ai.enrichment_view(uuid) from public;
grant execute on function ai.enrichment_view(uuid) to authenticated, service_role;

-- GET /enrichment/results: the values of the given items ({item_id,
-- item_type, enriched_at, values}) and, apart, the items whose enrichment
-- failed ({item_id, error}). 404 without a config.
create or replace function ai.enrichment_results(p_kb uuid, p_items uuid[]) returns jsonb
language plpgsql stable security definer
set search_path = ''
as $$
declare
  e ai.kb_enrichments;
  out jsonb;
begin
  perform ai.kb_readable(p_kb);
  select * into e from ai.kb_enrichments where kb_id = p_kb;
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'This knowledge base has no enrichment config'); end if;
  execute format(
    'select jsonb_build_object(
       ''results'', coalesce(jsonb_agg(jsonb_build_object(''item_id'', m.item_id, ''item_type'', m.item_type, ''enriched_at'', m.enriched_at,
                     ''values'', (select jsonb_object_agg(f ->> ''name'', to_jsonb(m) -> (f ->> ''name'')) from jsonb_array_elements($2) f))
                     order by array_position($1, m.item_id)) filter (where m._enrichment_error is null), ''[]''),
       ''item_errors'', coalesce(jsonb_agg(jsonb_build_object(''item_id'', m.item_id, ''error'', m._enrichment_error)
                     order by array_position($1, m.item_id)) filter (where m._enrichment_error is not null), ''[]''))
       from ai.%I m where m.item_id = any ($1)', e.table_name) into out using p_items, e.fields;
  return out;
end
$$;
revoke execute on function ai.enrichment_results(uuid, uuid[]) from public;
grant execute on function ai.enrichment_results(uuid, uuid[]) to authenticated, service_role;
