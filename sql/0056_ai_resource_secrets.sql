-- Secrets inside project resources are masked (containment item 6).
--
-- A custom tool's config.headers (typically a vendor's API key) and an HTTP
-- hook's came back in clear to every signed-in user who could read the
-- resource (project tools and hooks: everyone). Now, as MCP headers already
-- are (0029):
--   1. columns            headers_encrypted (the values, encrypted with the
--                         server's master key; never granted to API users)
--                         and headers_unsealed (written, not yet sealed) on
--                         ai.tools, ai.agent_hooks and ai.orchestration_hooks
--   2. ai.sealed_headers  the sealing rule: header names are tokens and
--                         values single-line strings; a value sent back equal
--                         to its stored mask keeps the stored secret; answers
--                         the encrypted values and their masks
--   3. ai.seal_headers    seals one row the caller just wrote (same
--                         transaction): config.headers becomes the masks
--   4. triggers           a write that brings headers marks the row
--                         unsealed; at commit an unsealed row is refused, so
--                         no path can store a header in clear
--   5. ai.seal_all_headers  the server seals rows written before this
--                         migration, at start (it alone holds the key)
-- Only the runner decrypts (server/ai/tools/secrets.ts); the service role may
-- read the values through the API, everyone else reads the masks.

-- 1 ---------------------------------------------------------------------------
alter table ai.tools add column headers_encrypted bytea, add column headers_unsealed boolean not null default false;
alter table ai.agent_hooks add column headers_encrypted bytea, add column headers_unsealed boolean not null default false;
alter table ai.orchestration_hooks add column headers_encrypted bytea, add column headers_unsealed boolean not null default false;

revoke select, insert, update on ai.tools from authenticated;
grant select (id, owner_id, name, description, type, input_schema, config, created_at, updated_at, headers_unsealed) on ai.tools to authenticated;
grant insert (name, description, type, input_schema, config) on ai.tools to authenticated;
grant update (name, description, type, input_schema, config, updated_at) on ai.tools to authenticated;
revoke select, insert on ai.agent_hooks from authenticated;
grant select (id, agent_id, event, type, config, matcher, enabled, position, created_at, headers_unsealed) on ai.agent_hooks to authenticated;
grant insert (agent_id, event, type, config, matcher, enabled, position) on ai.agent_hooks to authenticated;
revoke select, insert on ai.orchestration_hooks from authenticated;
grant select (id, orchestration_id, event, type, config, matcher, enabled, position, created_at, headers_unsealed) on ai.orchestration_hooks to authenticated;
grant insert (orchestration_id, event, type, config, matcher, enabled, position) on ai.orchestration_hooks to authenticated;

-- Rows written before this migration are sealed by the server at its next start.
update ai.tools set headers_unsealed = true where config ? 'headers';
update ai.agent_hooks set headers_unsealed = true where config ? 'headers';
update ai.orchestration_hooks set headers_unsealed = true where config ? 'headers';

-- 2 ---------------------------------------------------------------------------
create or replace function ai.sealed_headers(p_headers jsonb, p_stored bytea, p_master_key text, out encrypted bytea, out masked jsonb)
language plpgsql volatile
set search_path = ''
as $$
declare
  h record;
  stored jsonb := case when p_stored is null then '{}' else ai.decrypt(p_stored, p_master_key)::jsonb end;
  plain jsonb := '{}';
  value text;
begin
  if jsonb_typeof(p_headers) is distinct from 'object' then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'config.headers must be an object of header names to string values');
  end if;
  masked := '{}';
  for h in select e.key, e.value from jsonb_each(p_headers) e loop
    if h.key !~ '^[!#$%&''*+.^_`|~0-9A-Za-z-]+$' or jsonb_typeof(h.value) <> 'string' or (h.value #>> '{}') ~ '[\r\n]' then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('Invalid header %s: names are tokens and values single-line strings', h.key));
    end if;
    value := h.value #>> '{}';
    -- The mask sent back (a client saving what it read) keeps the secret it stands for.
    if stored ? h.key and value = ai.mask(stored ->> h.key) then value := stored ->> h.key; end if;
    plain := plain || jsonb_build_object(h.key, value);
    masked := masked || jsonb_build_object(h.key, ai.mask(value));
  end loop;
  encrypted := case when plain = '{}' then null else ai.encrypt(plain::text, p_master_key) end;
end
$$;
revoke execute on function ai.sealed_headers(jsonb, bytea, text) from public;

-- 3 ---------------------------------------------------------------------------
-- Seals the row `p_id` of `p_table` if it is unsealed. Only rows written in
-- the caller's own transaction can be unsealed (4 refuses them at commit),
-- so no ownership check is needed beyond the write RLS already allowed.
create or replace function ai.seal_headers(p_table regclass, p_id uuid, p_master_key text) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  row_config jsonb;
  row_stored bytea;
  sealed record;
begin
  if p_table not in ('ai.tools'::regclass, 'ai.agent_hooks'::regclass, 'ai.orchestration_hooks'::regclass) then
    raise exception 'ai.seal_headers: % holds no sealed headers', p_table;
  end if;
  execute format('select config, headers_encrypted from %s where id = $1 and headers_unsealed', p_table) into row_config, row_stored using p_id;
  if row_config is null then return; end if;
  select * into sealed from ai.sealed_headers(row_config -> 'headers', row_stored, p_master_key);
  execute format('update %s set config = jsonb_set(config, ''{headers}'', $2), headers_encrypted = $3, headers_unsealed = false where id = $1', p_table)
    using p_id, sealed.masked, sealed.encrypted;
end
$$;
revoke execute on function ai.seal_headers(regclass, uuid, text) from public;
grant execute on function ai.seal_headers(regclass, uuid, text) to authenticated, service_role;

-- 4 ---------------------------------------------------------------------------
create or replace function ai.mark_unsealed_headers() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  -- ai.seal_headers itself: unsealed -> sealed.
  if tg_op = 'UPDATE' and old.headers_unsealed and not new.headers_unsealed then return new; end if;
  if new.config ? 'headers' then
    if tg_op = 'INSERT' or new.config -> 'headers' is distinct from old.config -> 'headers' then new.headers_unsealed := true; end if;
  else
    new.headers_encrypted := null;
    new.headers_unsealed := false;
  end if;
  return new;
end
$$;

create or replace function ai.require_sealed_headers() returns trigger
language plpgsql security definer
set search_path = ''
as $$
declare
  unsealed boolean;
begin
  execute format('select headers_unsealed from %s where id = $1', tg_relid::regclass) into unsealed using new.id;
  if unsealed then
    perform auth.raise_error(500, 'HEADERS_NOT_SEALED', 'Headers must be sealed by the server before they are stored (ai.seal_headers)');
  end if;
  return null;
end
$$;

create trigger tools_mark_headers before insert or update on ai.tools for each row execute function ai.mark_unsealed_headers();
create trigger agent_hooks_mark_headers before insert or update on ai.agent_hooks for each row execute function ai.mark_unsealed_headers();
create trigger orchestration_hooks_mark_headers before insert or update on ai.orchestration_hooks for each row execute function ai.mark_unsealed_headers();
create constraint trigger tools_sealed_headers after insert or update on ai.tools deferrable initially deferred for each row execute function ai.require_sealed_headers();
create constraint trigger agent_hooks_sealed_headers after insert or update on ai.agent_hooks deferrable initially deferred for each row execute function ai.require_sealed_headers();
create constraint trigger orchestration_hooks_sealed_headers after insert or update on ai.orchestration_hooks deferrable initially deferred for each row execute function ai.require_sealed_headers();

-- 5 ---------------------------------------------------------------------------
create or replace function ai.seal_all_headers(p_master_key text) returns int
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  t regclass;
  r record;
  n int := 0;
begin
  foreach t in array array['ai.tools'::regclass, 'ai.agent_hooks'::regclass, 'ai.orchestration_hooks'::regclass] loop
    for r in execute format('select id from %s where headers_unsealed', t) loop
      perform ai.seal_headers(t, r.id, p_master_key);
      n := n + 1;
    end loop;
  end loop;
  return n;
end
$$;
revoke execute on function ai.seal_all_headers(text) from public;
grant execute on function ai.seal_all_headers(text) to service_role;
