-- AI surface: workflows, their graphs, the block registry, versions and the
-- webhook's activation (spec 2.4, 3.4, 4.7).
--
--   1. ai.block_types, ai.block_type_aliases   what a block may be (function -> code, api_call -> general_api)
--   2. ai.workflows                            owned per the access model; deploy and arm state
--   3. ai.workflow_blocks, ai.workflow_edges   the draft graph: types registered and edges
--                                              within one graph, by foreign keys
--   4. ai.put_graph                            the whole graph replaced or nothing, with a
--                                              400 naming the offending block or edge
--   5. ai.workflow_versions, ai.deploy_workflow, ai.activate_version, ai.undeploy_workflow
--   6. ai.arm_workflow, ai.consume_arm         a 10-minute window that exactly one call uses

-- 1. The block registry ---------------------------------------------------------------

create table ai.block_types (
  name text primary key,
  label text not null,
  description text not null,
  -- JSON Schema of the block's config, and examples (what the copilot shows a model).
  config_schema jsonb not null default '{"type": "object"}',
  examples jsonb not null default '[]',
  -- Whether a run may start here.
  is_trigger boolean not null default false,
  position int not null
);

create table ai.block_type_aliases (
  alias text primary key,
  type text not null references ai.block_types
);

alter table ai.block_types enable row level security;
alter table ai.block_type_aliases enable row level security;
create policy block_types_read on ai.block_types for select to authenticated using (true);
create policy block_aliases_read on ai.block_type_aliases for select to authenticated using (true);
grant select on ai.block_types, ai.block_type_aliases to authenticated, service_role;

insert into ai.block_types (name, label, description, is_trigger, position, config_schema, examples) values
  ('starter', 'Start', 'Where a run begins; its output is the run''s input variables', true, 1, '{"type": "object"}', '[{}]'),
  ('webhook', 'Webhook', 'A run triggered by POST /api/webhooks/{webhook_id}; the JSON body becomes the variables', true, 2,
   '{"type": "object", "properties": {"webhook_id": {"type": "string", "format": "uuid"}, "webhook_secret": {"type": "string"}}}', '[{}]'),
  ('agent', 'Agent', 'Runs an agent on a message built from references', false, 3,
   '{"type": "object", "properties": {"agent_id": {"type": "string"}, "message": {"type": "string"}}, "required": ["agent_id"]}', '[{"agent_id": "<agent uuid>", "message": "<variables.question>"}]'),
  ('orchestration', 'Orchestration', 'Runs an orchestration of agents on a message', false, 4,
   '{"type": "object", "properties": {"orchestration_id": {"type": "string"}, "message": {"type": "string"}}, "required": ["orchestration_id"]}', '[{"orchestration_id": "<uuid>", "message": "<start.topic>"}]'),
  ('code', 'Code', 'JavaScript run in a sandbox with variables and upstream outputs in scope; returns JSON', false, 5,
   '{"type": "object", "properties": {"code": {"type": "string"}, "timeout_ms": {"type": "integer"}}, "required": ["code"]}', '[{"code": "return { total: variables.a + variables.b };"}]'),
  ('condition', 'Condition', 'Takes the first branch whose expression is true, else the else branch; the others are skipped', false, 6,
   '{"type": "object", "properties": {"conditions": {"type": "array", "items": {"type": "object", "properties": {"expression": {"type": "string"}, "target": {"type": "string"}}}}, "else": {"type": "string"}}}',
   '[{"conditions": [{"expression": "variables.score > 0.5", "target": "accept"}], "else": "reject"}]'),
  ('general_api', 'HTTP request', 'Calls an HTTP API (private addresses refused unless allowed)', false, 7,
   '{"type": "object", "properties": {"method": {"type": "string"}, "url": {"type": "string"}, "headers": {"type": "object"}, "query": {"type": "object"}, "body": {}, "timeout_ms": {"type": "integer"}}, "required": ["url"]}',
   '[{"method": "GET", "url": "https://api.example.com/items/<variables.id>"}]'),
  ('platform_api', 'Project data', 'Reads or writes this project''s tables and storage as the running user (RLS applies)', false, 8,
   '{"type": "object", "properties": {"operation": {"type": "string"}, "table": {"type": "string"}}}', '[{"operation": "select", "table": "orders", "filters": {"status": "eq.open"}}]'),
  ('response', 'Response', 'Shapes the run''s output', false, 9, '{"type": "object", "properties": {"output": {}}}', '[{"output": {"answer": "<agent1.content>"}}]'),
  ('split', 'Split', 'Runs its downstream path once per item of an array, gathering outputs in order', false, 10,
   '{"type": "object", "properties": {"items": {}, "concurrency": {"type": "integer"}}, "required": ["items"]}', '[{"items": "<variables.urls>", "concurrency": 4}]');

insert into ai.block_type_aliases (alias, type) values ('function', 'code'), ('api_call', 'general_api');

-- 2. Workflows ----------------------------------------------------------------------------

create table ai.workflows (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid() references auth.users on delete cascade,
  name text not null check (name <> ''),
  description text,
  deployed boolean not null default false,
  active_version int,
  armed_until timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index workflows_owner on ai.workflows (owner_id);
alter table ai.workflows enable row level security;
create policy workflows_read on ai.workflows for select to authenticated using (ai.can_read(owner_id));
create policy workflows_insert on ai.workflows for insert to authenticated with check (ai.owns(owner_id));
create policy workflows_update on ai.workflows for update to authenticated using (ai.owns(owner_id)) with check (ai.owns(owner_id));
create policy workflows_delete on ai.workflows for delete to authenticated using (ai.owns(owner_id));
grant select, insert, update, delete on ai.workflows to authenticated, service_role;
create trigger workflows_touch before update on ai.workflows for each row execute function ai.touch();

-- 3. The draft graph ------------------------------------------------------------------------

create table ai.workflow_blocks (
  workflow_id uuid not null references ai.workflows on delete cascade,
  id text not null check (id <> ''),
  type text not null references ai.block_types,
  config jsonb not null default '{}' check (jsonb_typeof(config) = 'object'),
  position jsonb not null default '{"x": 0, "y": 0}',
  ordinal int not null,
  primary key (workflow_id, id)
);
-- A webhook block's id is what POST /api/webhooks/{webhook_id} looks up.
create unique index workflow_blocks_webhook on ai.workflow_blocks ((config ->> 'webhook_id')) where type = 'webhook';

create table ai.workflow_edges (
  workflow_id uuid not null,
  source text not null,
  target text not null,
  ordinal int not null,
  primary key (workflow_id, source, target),
  foreign key (workflow_id, source) references ai.workflow_blocks (workflow_id, id) on delete cascade,
  foreign key (workflow_id, target) references ai.workflow_blocks (workflow_id, id) on delete cascade
);

-- Blocks and edges are read and written as their workflow is.
alter table ai.workflow_blocks enable row level security;
alter table ai.workflow_edges enable row level security;
create policy blocks_read on ai.workflow_blocks for select to authenticated using (exists (select 1 from ai.workflows w where w.id = workflow_id));
create policy blocks_write on ai.workflow_blocks for all to authenticated
  using (exists (select 1 from ai.workflows w where w.id = workflow_id and ai.owns(w.owner_id)))
  with check (exists (select 1 from ai.workflows w where w.id = workflow_id and ai.owns(w.owner_id)));
create policy edges_read on ai.workflow_edges for select to authenticated using (exists (select 1 from ai.workflows w where w.id = workflow_id));
create policy edges_write on ai.workflow_edges for all to authenticated
  using (exists (select 1 from ai.workflows w where w.id = workflow_id and ai.owns(w.owner_id)))
  with check (exists (select 1 from ai.workflows w where w.id = workflow_id and ai.owns(w.owner_id)));
grant select, insert, update, delete on ai.workflow_blocks, ai.workflow_edges to authenticated, service_role;
