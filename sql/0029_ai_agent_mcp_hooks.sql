-- AI surface: an agent's MCP servers and hooks (spec 2.3b, 4.9).
--
--   1. ai.agent_mcp_servers   url, transport, name, enabled; headers encrypted at rest
--   2. ai.put_mcp_headers     stores a server's headers (encrypted) and their masked copy
--   3. ai.agent_hooks         event, type, config, matcher, enabled, position; immutable
--
-- Both are read and changed as their agent is (the access model through the agent).

-- Whether the caller may change this agent's attachments.
create or replace function ai.owns_agent(p_agent uuid) returns boolean
language sql stable
set search_path = ''
as $$ select exists (select 1 from ai.agents a where a.id = p_agent and ai.owns(a.owner_id)) $$;
revoke execute on function ai.owns_agent(uuid) from public;
grant execute on function ai.owns_agent(uuid) to authenticated, service_role;

create table ai.agent_mcp_servers (
  id uuid primary key default gen_random_uuid(),
  agent_id uuid not null references ai.agents on delete cascade,
  name text not null check (name <> '' and length(name) <= 200),
  url text not null check (url ~ '^https?://' and length(url) <= 2048),
  transport text not null default 'streamable_http' check (transport in ('streamable_http', 'sse')),
  -- Headers often carry credentials: stored encrypted with AI_MASTER_KEY;
  -- responses show headers_masked (each value masked with ai.mask).
  headers_encrypted bytea,
  headers_masked jsonb not null default '{}' check (jsonb_typeof(headers_masked) = 'object'),
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (agent_id, name)
);
alter table ai.agent_mcp_servers enable row level security;
create policy agent_mcp_servers_read on ai.agent_mcp_servers for select to authenticated using (exists (select 1 from ai.agents a where a.id = agent_id));
create policy agent_mcp_servers_write on ai.agent_mcp_servers for all to authenticated
  using (ai.owns_agent(agent_id)) with check (ai.owns_agent(agent_id));
-- headers_encrypted is written only through ai.put_mcp_headers, and read only by the server.
grant select (id, agent_id, name, url, transport, headers_masked, enabled, created_at, updated_at) on ai.agent_mcp_servers to authenticated;
grant insert (id, agent_id, name, url, transport, enabled), update (name, url, transport, enabled), delete on ai.agent_mcp_servers to authenticated;
grant select, insert, update, delete on ai.agent_mcp_servers to service_role;
create trigger agent_mcp_servers_touch before update on ai.agent_mcp_servers for each row execute function ai.touch();

-- Sets a server's headers (an object of string values): encrypted, and masked
-- for display. Runs as its owner to write the encrypted column, so it checks
-- the caller's right to change the server itself.
create or replace function ai.put_mcp_headers(p_server uuid, p_headers jsonb, p_master_key text) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  h record;
  masked jsonb := '{}';
begin
  if jsonb_typeof(p_headers) <> 'object' then
    perform auth.raise_error(400, 'VALIDATION_ERROR', 'headers must be an object of header names to string values');
  end if;
  for h in select e.key, e.value from jsonb_each(p_headers) e loop
    if h.key !~ '^[!#$%&''*+.^_`|~0-9A-Za-z-]+$' or jsonb_typeof(h.value) <> 'string' or (h.value #>> '{}') ~ '[\r\n]' then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('Invalid header %s: names are tokens and values single-line strings', h.key));
    end if;
    masked := masked || jsonb_build_object(h.key, ai.mask(h.value #>> '{}'));
  end loop;
  update ai.agent_mcp_servers s
     set headers_encrypted = case when p_headers = '{}' then null else ai.encrypt(p_headers::text, p_master_key) end,
         headers_masked = masked
   where s.id = p_server
     and (auth.role() = 'service_role' or ai.owns_agent(s.agent_id));
  if not found then perform auth.raise_error(404, 'NOT_FOUND', 'MCP server not found'); end if;
end
$$;
revoke execute on function ai.put_mcp_headers(uuid, jsonb, text) from public;
grant execute on function ai.put_mcp_headers(uuid, jsonb, text) to authenticated, service_role;

create table ai.agent_hooks (
  id uuid primary key default gen_random_uuid(),
  agent_id uuid not null references ai.agents on delete cascade,
  -- Neither event nor type is checked on save (spec 2.3b): an unknown event is kept and never fires.
  event text not null check (event <> '' and length(event) <= 100),
  type text not null check (type <> '' and length(type) <= 50),
  config jsonb not null default '{}' check (jsonb_typeof(config) = 'object'),
  matcher text,
  enabled boolean not null default true,
  position int not null default 0,
  created_at timestamptz not null default now()
);
create index agent_hooks_order on ai.agent_hooks (agent_id, position, created_at);
alter table ai.agent_hooks enable row level security;
create policy agent_hooks_read on ai.agent_hooks for select to authenticated using (exists (select 1 from ai.agents a where a.id = agent_id));
create policy agent_hooks_insert on ai.agent_hooks for insert to authenticated with check (ai.owns_agent(agent_id));
create policy agent_hooks_delete on ai.agent_hooks for delete to authenticated using (ai.owns_agent(agent_id));
-- Hooks are immutable (no update endpoint): nobody is granted update.
grant select, insert, delete on ai.agent_hooks to authenticated, service_role;
