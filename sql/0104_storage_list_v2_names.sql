-- Storage: listV2 names each object by its whole path (issue 47, item 9).
--
-- POST /object/list-v2/{bucket} ({prefix: "testpath"}) answers an object's
-- `name` as its full path ("testpath/f.jpg"), as Supabase Storage does, not
-- the part after the prefix; `key` stays the same path, and a folder's
-- `name` stays the part after the prefix (its `key` the whole).
--
--   storage.list_objects_v2   restated (sql/0060): objects named by their path

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
           'objects', coalesce(jsonb_agg(jsonb_build_object('name', x.key, 'key', x.key, 'id', x.id, 'created_at', x.created_at, 'updated_at', x.updated_at,
                                                            'last_accessed_at', x.last_accessed_at, 'metadata', x.metadata) order by x.n) filter (where not x.folder and x.n <= lim), '[]'),
           'last', (select jsonb_build_object('k', y.key, 't', case when col = 'name' then null else y.at end) from numbered y where y.n = lim))
    into n, picked
    from numbered x;
  return jsonb_build_object('hasNext', n > lim, 'folders', picked -> 'folders', 'objects', picked -> 'objects')
      || case when n > lim then jsonb_build_object('nextCursor', translate(rtrim(encode(convert_to((picked -> 'last')::text, 'utf8'), 'base64'), '='), '+/' || chr(10), '-_')) else '{}' end;
end
$$;
grant execute on function storage.list_objects_v2(text, text, int, text, boolean, text, text) to anon, authenticated, service_role;
