-- AI surface: the settings registry (spec 2.13, 4.17).
--
--   1. ai.setting_categories, ai.settings_registry   what can be set (seeded in 0021)
--   2. ai.setting_overrides                           what has been set; secrets encrypted
--   3. ai.setting_error                               one validation rule per type
--   4. ai.settings_list                               GET: every key, masked
--   5. ai.put_settings                                PUT: all or nothing, per-key details
--   6. ai.delete_setting, ai.reset_category           back to the defaults
--   7. ai.setting_value                               what a feature reads, on each use
--
-- Values persist as strings. Project-wide: written with the service-role key
-- only, read (masked) by signed-in users.

-- 1. The registry ---------------------------------------------------------------

create table ai.setting_categories (
  name text primary key,
  label text not null,
  description text not null,
  position int not null
);

create table ai.settings_registry (
  key text primary key,
  category text not null references ai.setting_categories,
  type text not null check (type in ('string', 'integer', 'number', 'boolean', 'enum', 'secret', 'model')),
  default_value text not null,
  min_value numeric,
  max_value numeric,
  options text[],
  pattern text,
  description text not null,
  position int not null,
  check (type <> 'enum' or cardinality(options) >= 2)
);

alter table ai.setting_categories enable row level security;
alter table ai.settings_registry enable row level security;
create policy categories_read on ai.setting_categories for select to authenticated using (true);
create policy registry_read on ai.settings_registry for select to authenticated using (true);
grant select on ai.setting_categories, ai.settings_registry to authenticated, service_role;

-- 2. Overrides --------------------------------------------------------------------

-- A secret's value is only in `secret` (encrypted with the server's master
-- key) and `masked`; `value` holds every other type's value.
create table ai.setting_overrides (
  key text primary key references ai.settings_registry on delete cascade,
  value text,
  secret bytea,
  masked text,
  updated_at timestamptz not null default now(),
  updated_by uuid,
  check ((value is null) <> (secret is null))
);
alter table ai.setting_overrides enable row level security;
create policy overrides_read on ai.setting_overrides for select to authenticated using (true);
-- Signed-in users read overrides without the encrypted column.
grant select (key, value, masked, updated_at) on ai.setting_overrides to authenticated;
grant select, insert, update, delete on ai.setting_overrides to service_role;

-- 3. Validation -------------------------------------------------------------------

-- Why `value` is not a valid value for `key` (null when it is). One rule per type.
create or replace function ai.setting_error(p_key text, p_value text) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  r ai.settings_registry;
  n numeric;
begin
  select * into r from ai.settings_registry where key = p_key;
  if not found then return 'unknown setting'; end if;
  if p_value is null then return 'a value is required (a string)'; end if;
  case r.type
    when 'integer', 'number' then
      if r.type = 'integer' and p_value !~ '^-?[0-9]+$' then return 'must be a whole number'; end if;
      if r.type = 'number' and p_value !~ '^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$' then return 'must be a number'; end if;
      n := p_value::numeric;
      if r.min_value is not null and n < r.min_value then return 'must be at least ' || r.min_value; end if;
      if r.max_value is not null and n > r.max_value then return 'must be at most ' || r.max_value; end if;
    when 'boolean' then
      if p_value not in ('true', 'false') then return 'must be true or false'; end if;
    when 'enum' then
      if not p_value = any (r.options) then return 'must be one of ' || array_to_string(r.options, ', '); end if;
    when 'model' then
      if p_value !~ '^([A-Za-z0-9][A-Za-z0-9._:-]*|gemini/[A-Za-z0-9][A-Za-z0-9._:-]*|openrouter/[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._:-]*)$' then
        return 'must be a model id: <model> (OpenAI, or claude-* for Anthropic), gemini/<model> or openrouter/<org>/<model>';
      end if;
    when 'secret' then
      if length(p_value) > 4096 then return 'must be at most 4096 characters'; end if;
    when 'string' then
      if length(p_value) > 2000 then return 'must be at most 2000 characters'; end if;
      if r.pattern is not null and p_value !~ r.pattern then return 'must match ' || r.pattern; end if;
  end case;
  return null;
end
$$;

-- 4. Reading ----------------------------------------------------------------------

-- Every key for GET /api/settings: default, override and the value in force,
-- secrets masked (a secret's default is empty).
create or replace function ai.settings_list()
returns table (key text, category text, type text, default_value text, override text, value text, description text,
               min_value numeric, max_value numeric, options text[], updated_at timestamptz)
language sql stable
set search_path = ''
as $$
  select r.key, r.category, r.type, r.default_value,
         case when r.type = 'secret' then o.masked else o.value end,
         coalesce(case when r.type = 'secret' then o.masked else o.value end, r.default_value),
         r.description, r.min_value, r.max_value, r.options, o.updated_at
    from ai.settings_registry r left join ai.setting_overrides o on o.key = r.key
   order by (select c.position from ai.setting_categories c where c.name = r.category), r.position
$$;

-- 5. Writing ----------------------------------------------------------------------

-- Sets every key of p_settings ({key: string}) or none: any invalid value
-- raises 400 with {key: reason} for each as the error's detail. A secret
-- sent back as its mask is left as it is; an empty secret clears it.
create or replace function ai.put_settings(p_settings jsonb, p_master_key text) returns setof text
language plpgsql
set search_path = ''
as $$
declare
  errors jsonb := '{}';
  item record;
  r ai.settings_registry;
  current_mask text;
  reason text;
begin
  if jsonb_typeof(p_settings) is distinct from 'object' then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'settings must be an object of {key: string value}');
  end if;
  for item in select e.key, e.value from jsonb_each(p_settings) e loop
    reason := case when jsonb_typeof(item.value) <> 'string' then 'must be a string'
                   else ai.setting_error(item.key, item.value #>> '{}') end;
    if reason is not null then errors := errors || jsonb_build_object(item.key, reason); end if;
  end loop;
  if errors <> '{}' then
    raise exception using errcode = 'PT400', message = 'Invalid settings', hint = 'VALIDATION_ERROR', detail = errors::text;
  end if;
  for item in select e.key, e.value #>> '{}' as value from jsonb_each(p_settings) e loop
    select * into r from ai.settings_registry where key = item.key;
    if r.type = 'secret' then
      select o.masked into current_mask from ai.setting_overrides o where o.key = item.key;
      continue when item.value = current_mask;
      if item.value = '' then
        delete from ai.setting_overrides where key = item.key;
      else
        insert into ai.setting_overrides (key, secret, masked, updated_by)
        values (item.key, ai.encrypt(item.value, p_master_key), ai.mask(item.value), auth.uid())
        on conflict (key) do update set value = null, secret = excluded.secret, masked = excluded.masked, updated_at = now(), updated_by = excluded.updated_by;
      end if;
    else
      insert into ai.setting_overrides (key, value, updated_by) values (item.key, item.value, auth.uid())
      on conflict (key) do update set value = excluded.value, secret = null, masked = null, updated_at = now(), updated_by = excluded.updated_by;
    end if;
    return next item.key;
  end loop;
end
$$;

-- 6. Back to defaults ---------------------------------------------------------------

-- Removes a key's override; answers the key and its default ('' for a secret). 404 for an unknown key.
create or replace function ai.delete_setting(p_key text) returns table (key text, default_value text)
language plpgsql
set search_path = ''
as $$
declare
  r ai.settings_registry;
begin
  select * into r from ai.settings_registry s where s.key = p_key;
  if not found then perform auth.raise_error(404, 'SETTING_NOT_FOUND', 'Unknown setting: ' || coalesce(p_key, '')); end if;
  delete from ai.setting_overrides o where o.key = p_key;
  return query select r.key, case when r.type = 'secret' then '' else r.default_value end;
end
$$;

-- Removes every override in a category; answers the keys reset. 400 for an unknown category.
create or replace function ai.reset_category(p_category text) returns setof text
language plpgsql
set search_path = ''
as $$
begin
  if p_category is null or p_category = '' then perform auth.raise_error(400, 'VALIDATION_ERROR', 'category is required'); end if;
  if not exists (select 1 from ai.setting_categories c where c.name = p_category) then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'Unknown category: ' || p_category);
  end if;
  delete from ai.setting_overrides o using ai.settings_registry r where r.key = o.key and r.category = p_category;
  return query select r.key from ai.settings_registry r where r.category = p_category order by r.position;
end
$$;

-- 7. What features read ---------------------------------------------------------------

-- The value in force for a key, a secret decrypted: for the server's own
-- use (features read settings on each use, so a change applies at once).
create or replace function ai.setting_value(p_key text, p_master_key text) returns table (key text, type text, value text)
language sql stable
set search_path = ''
as $$
  select r.key, r.type, coalesce(case when r.type = 'secret' then ai.decrypt(o.secret, p_master_key) else o.value end, r.default_value)
    from ai.settings_registry r left join ai.setting_overrides o on o.key = r.key
   where r.key = p_key
$$;

revoke execute on function ai.setting_error(text, text), ai.settings_list(), ai.put_settings(jsonb, text), ai.delete_setting(text),
  ai.reset_category(text), ai.setting_value(text, text) from public;
grant execute on function ai.setting_error(text, text), ai.settings_list() to authenticated, service_role;
grant execute on function ai.put_settings(jsonb, text), ai.delete_setting(text), ai.reset_category(text), ai.setting_value(text, text) to service_role;
