-- AI surface: saving and reading a workflow's draft graph (spec 2.4, 4.7).
--
--   1. ai.graph_json   {blocks, edges} of a workflow, in the order they were saved
--   2. ai.put_graph    replaces the whole graph, or changes nothing: every rule
--                      checked, each refusal a 400 VALIDATION_ERROR naming the
--                      block or edge at fault

-- 1. Reading ---------------------------------------------------------------------------

create or replace function ai.graph_json(p_workflow uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  select jsonb_build_object(
    'blocks', coalesce((select jsonb_agg(jsonb_build_object('id', b.id, 'type', b.type, 'config', b.config, 'position', b.position) order by b.ordinal)
                          from ai.workflow_blocks b where b.workflow_id = p_workflow), '[]'),
    'edges', coalesce((select jsonb_agg(jsonb_build_object('source', e.source, 'target', e.target) order by e.ordinal)
                         from ai.workflow_edges e where e.workflow_id = p_workflow), '[]'))
$$;

-- 2. Writing ---------------------------------------------------------------------------

-- Rules, in the order they are checked:
--   blocks is an array of objects, each with a string `id` and `type`;
--   `type` is a registered type or an alias (stored as its canonical type);
--   ids are unique; `config` is an object; `position` an object whose x and y are numbers;
--   a webhook block gets a webhook_id (UUID) and webhook_secret when it has none;
--   edges is an array (or absent) of objects with string `source` and `target`
--   naming blocks of this graph, each pair once;
--   no cycle except through a split block.
create or replace function ai.put_graph(p_workflow uuid, p_blocks jsonb, p_edges jsonb) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  wf ai.workflows;
  b record;
  e record;
  ids text[] := '{}';
  canonical text;
  v_config jsonb;
  v_pos jsonb;
  loop_at text;
begin
  select * into wf from ai.workflows w where w.id = p_workflow;
  if not found then perform auth.raise_error(404, 'WORKFLOW_NOT_FOUND', 'Workflow not found'); end if;
  if auth.role() is distinct from 'service_role' and not ai.owns(wf.owner_id) then
    perform auth.raise_error(403, 'FORBIDDEN', 'You can only change your own workflows');
  end if;
  if jsonb_typeof(p_blocks) is distinct from 'array' then perform auth.raise_error(400, 'VALIDATION_ERROR', 'blocks must be an array'); end if;
  if p_edges is not null and jsonb_typeof(p_edges) not in ('array', 'null') then perform auth.raise_error(400, 'VALIDATION_ERROR', 'edges must be an array'); end if;

  delete from ai.workflow_blocks wb where wb.workflow_id = p_workflow;

  for b in select x.value as block, x.ordinality as n from jsonb_array_elements(p_blocks) with ordinality x loop
    if jsonb_typeof(b.block) <> 'object' then perform auth.raise_error(400, 'VALIDATION_ERROR', format('blocks[%s] must be an object', b.n - 1)); end if;
    if jsonb_typeof(b.block -> 'id') is distinct from 'string' or b.block ->> 'id' = '' then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('blocks[%s]: missing id', b.n - 1));
    end if;
    if jsonb_typeof(b.block -> 'type') is distinct from 'string' then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('Block "%s": missing type', b.block ->> 'id'));
    end if;
    select coalesce((select t.name from ai.block_types t where t.name = b.block ->> 'type'),
                    (select a.type from ai.block_type_aliases a where a.alias = b.block ->> 'type')) into canonical;
    if canonical is null then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('Unknown block type "%s" (block "%s")', b.block ->> 'type', b.block ->> 'id'));
    end if;
    if b.block ->> 'id' = any (ids) then perform auth.raise_error(400, 'VALIDATION_ERROR', format('Duplicate block id "%s"', b.block ->> 'id')); end if;
    ids := ids || (b.block ->> 'id');
    v_config := coalesce(b.block -> 'config', '{}');
    if jsonb_typeof(v_config) <> 'object' then perform auth.raise_error(400, 'VALIDATION_ERROR', format('Block "%s": config must be an object', b.block ->> 'id')); end if;
    v_pos := coalesce(b.block -> 'position', '{"x": 0, "y": 0}');
    if jsonb_typeof(v_pos) <> 'object' or jsonb_typeof(coalesce(v_pos -> 'x', '0')) <> 'number' or jsonb_typeof(coalesce(v_pos -> 'y', '0')) <> 'number' then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('Block "%s": position must be {x, y} with numbers', b.block ->> 'id'));
    end if;
    if canonical = 'webhook' then
      if v_config ? 'webhook_id' and (jsonb_typeof(v_config -> 'webhook_id') <> 'string'
          or v_config ->> 'webhook_id' !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$') then
        perform auth.raise_error(400, 'VALIDATION_ERROR', format('Block "%s": webhook_id must be a UUID', b.block ->> 'id'));
      end if;
      v_config := v_config || jsonb_build_object(
        'webhook_id', coalesce(lower(v_config ->> 'webhook_id'), gen_random_uuid()::text),
        'webhook_secret', coalesce(nullif(v_config ->> 'webhook_secret', ''), encode(extensions.gen_random_bytes(24), 'hex')));
    end if;
    insert into ai.workflow_blocks (workflow_id, id, type, config, position, ordinal) values (p_workflow, b.block ->> 'id', canonical, v_config, v_pos, b.n);
  end loop;

  for e in select x.value as edge, x.ordinality as n from jsonb_array_elements(coalesce(nullif(p_edges, 'null'), '[]')) with ordinality x loop
    if jsonb_typeof(e.edge) <> 'object' or jsonb_typeof(e.edge -> 'source') is distinct from 'string' or jsonb_typeof(e.edge -> 'target') is distinct from 'string' then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('edges[%s]: each edge needs a source and a target (block ids)', e.n - 1));
    end if;
    if not (e.edge ->> 'source' = any (ids)) or not (e.edge ->> 'target' = any (ids)) then
      perform auth.raise_error(400, 'VALIDATION_ERROR', format('Edge %s -> %s: no block "%s" in this graph', e.edge ->> 'source', e.edge ->> 'target',
        case when e.edge ->> 'source' = any (ids) then e.edge ->> 'target' else e.edge ->> 'source' end));
    end if;
    insert into ai.workflow_edges (workflow_id, source, target, ordinal) values (p_workflow, e.edge ->> 'source', e.edge ->> 'target', e.n)
    on conflict do nothing;
    if not found then perform auth.raise_error(400, 'VALIDATION_ERROR', format('Edge %s -> %s appears twice', e.edge ->> 'source', e.edge ->> 'target')); end if;
  end loop;

  -- A cycle among the blocks that are not splits (a split may lead back to itself).
  with recursive plain as (
    select we.source, we.target from ai.workflow_edges we
      join ai.workflow_blocks s on s.workflow_id = we.workflow_id and s.id = we.source and s.type <> 'split'
      join ai.workflow_blocks t on t.workflow_id = we.workflow_id and t.id = we.target and t.type <> 'split'
     where we.workflow_id = p_workflow
  ), walk (start, node) as (
    select p.source, p.target from plain p
    union all
    select w.start, p.target from walk w join plain p on p.source = w.node where w.node <> w.start
  ) cycle node set looped using trail
  select w.start into loop_at from walk w where w.node = w.start limit 1;
  if loop_at is not null then
    perform auth.raise_error(400, 'VALIDATION_ERROR', format('Block "%s" is on a cycle; only a split may lead back', loop_at));
  end if;

  update ai.workflows w set updated_at = now() where w.id = p_workflow;
  return ai.graph_json(p_workflow);
end
$$;

revoke execute on function ai.graph_json(uuid), ai.put_graph(uuid, jsonb, jsonb) from public;
grant execute on function ai.graph_json(uuid), ai.put_graph(uuid, jsonb, jsonb) to authenticated, service_role;
