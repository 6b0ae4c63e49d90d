-- Saving a workflow graph in time linear in its size (containment item 3).
--
-- ai.put_graph (0025) found cycles by walking every path from every block: a
-- two-wide "ladder" doubled its time per layer, so an 80-block body pinned a
-- backend for years. It also checked ids and edges against an array, which
-- is quadratic. Restated whole here; 0025's rules and messages are kept.
--
--   1. ai.graph_limit        the size limits, a DBA-changeable setting each:
--                              ai.max_graph_blocks (default 10000)
--                              ai.max_graph_edges  (default 50000)
--                            e.g. alter database postgres set ai.max_graph_blocks = 20000;
--   2. ai.graph_cycle_block  a block on a cycle among non-split blocks, or
--                            null: Kahn's topological sort over the edges,
--                            then a walk back through unsorted predecessors
--                            (every unsorted block has one), O(blocks + edges)
--   3. ai.put_graph          set-based checks (the first offending block or
--                            edge in body order), one insert for the blocks,
--                            one for the edges, then ai.graph_cycle_block

-- Deleting a block cascades to the edges into it: without this index every
-- deleted block scanned all of the graph's edges.
create index if not exists workflow_edges_target on ai.workflow_edges (workflow_id, target);

-- 1 ---------------------------------------------------------------------------
create or replace function ai.graph_limit(p_name text) returns int
language sql stable
set search_path = ''
as $$
  select coalesce(nullif(current_setting('ai.' || p_name, true), '')::int,
                  case p_name when 'max_graph_blocks' then 10000 when 'max_graph_edges' then 50000 end)
$$;

-- 2 ---------------------------------------------------------------------------
-- Blocks are numbered by their ordinal (1..n, as saved). Edges touching a
-- split are left out: a split may lead back to itself.
create or replace function ai.graph_cycle_block(p_workflow uuid) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  n int;
  out_to int[];      -- successors, grouped by source (compressed rows)
  out_start int[];   -- out_to[out_start[v] .. out_start[v + 1] - 1] are v's successors
  in_from int[];     -- predecessors, grouped by target
  in_start int[];
  indegree int[];
  queue int[];
  head int := 1;
  tail int := 0;
  v int;
  k int;
  seen boolean[];
begin
  select count(*) into n from ai.workflow_blocks b where b.workflow_id = p_workflow;
  if n = 0 then return null; end if;
  with plain as (
    select s.ordinal::int as src, t.ordinal::int as dst
      from ai.workflow_edges e
      join ai.workflow_blocks s on s.workflow_id = e.workflow_id and s.id = e.source and s.type <> 'split'
      join ai.workflow_blocks t on t.workflow_id = e.workflow_id and t.id = e.target and t.type <> 'split'
     where e.workflow_id = p_workflow
  ), outs as (
    select p.src as v, count(*)::int as c from plain p group by p.src
  ), ins as (
    select p.dst as v, count(*)::int as c from plain p group by p.dst
  ), counts as (
    select g as v, coalesce(o.c, 0) as outs, coalesce(i.c, 0) as ins
      from generate_series(1, n) g left join outs o on o.v = g left join ins i on i.v = g
  ), starts as (
    select c.v, c.ins,
           1 + coalesce(sum(c.outs) over w, 0)::int as out_first,
           1 + coalesce(sum(c.ins) over w, 0)::int as in_first
      from counts c window w as (order by c.v rows between unbounded preceding and 1 preceding)
  )
  select coalesce((select array_agg(p.dst order by p.src, p.dst) from plain p), '{}'),
         coalesce((select array_agg(p.src order by p.dst, p.src) from plain p), '{}'),
         (select array_agg(s.ins order by s.v) from starts s),
         (select array_agg(s.out_first order by s.v) from starts s),
         (select array_agg(s.in_first order by s.v) from starts s)
    into out_to, in_from, indegree, out_start, in_start;
  out_start := out_start || (cardinality(out_to) + 1);
  in_start := in_start || (cardinality(in_from) + 1);

  queue := array_fill(0, array[n]);
  for v in 1 .. n loop
    if indegree[v] = 0 then tail := tail + 1; queue[tail] := v; end if;
  end loop;
  while head <= tail loop
    v := queue[head];
    head := head + 1;
    for k in out_start[v] .. out_start[v + 1] - 1 loop
      indegree[out_to[k]] := indegree[out_to[k]] - 1;
      if indegree[out_to[k]] = 0 then tail := tail + 1; queue[tail] := out_to[k]; end if;
    end loop;
  end loop;
  if tail = n then return null; end if;

  -- Unsorted blocks each keep an unsorted predecessor: walking back through
  -- them must come round to a block already seen, which is on a cycle.
  seen := array_fill(false, array[n]);
  v := 1;
  while indegree[v] = 0 loop v := v + 1; end loop;
  while not seen[v] loop
    seen[v] := true;
    for k in in_start[v] .. in_start[v + 1] - 1 loop
      if indegree[in_from[k]] > 0 then v := in_from[k]; exit; end if;
    end loop;
  end loop;
  return (select b.id from ai.workflow_blocks b where b.workflow_id = p_workflow and b.ordinal = v);
end
$$;

-- 3 ---------------------------------------------------------------------------
-- Rules, in the order they are checked (as 0025):
--   blocks is an array of objects (at most ai.max_graph_blocks), each with a
--   string `id` and `type`; `type` is a registered type or an alias (stored as
--   its canonical type); ids are unique; `config` is an object; `position` an
--   object whose x and y are numbers; a webhook block gets a webhook_id (UUID)
--   and webhook_secret when it has none; edges is an array (or absent, at most
--   ai.max_graph_edges) of objects with string `source` and `target` naming
--   blocks of this graph, each pair once; no cycle except through a split.
create or replace function ai.put_graph(p_workflow uuid, p_blocks jsonb, p_edges jsonb) returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  wf ai.workflows;
  problem text;
  loop_at text;
  max_blocks int := ai.graph_limit('max_graph_blocks');
  max_edges int := ai.graph_limit('max_graph_edges');
begin
  select * into wf from ai.workflows w where w.id = p_workflow;
  if not found then perform auth.raise_error(404, 'WORKFLOW_NOT_FOUND', 'Workflow not found'); end if;
  if auth.role() is distinct from 'service_role' and not ai.owns(wf.owner_id) then
    perform auth.raise_error(403, 'FORBIDDEN', 'You can only change your own workflows');
  end if;
  if jsonb_typeof(p_blocks) is distinct from 'array' then perform auth.raise_error(400, 'VALIDATION_ERROR', 'blocks must be an array'); end if;
  if p_edges is not null and jsonb_typeof(p_edges) not in ('array', 'null') then perform auth.raise_error(400, 'VALIDATION_ERROR', 'edges must be an array'); end if;
  if jsonb_array_length(p_blocks) > max_blocks then
    perform auth.raise_error(400, 'VALIDATION_ERROR', format('A graph has at most %s blocks (this one has %s)', max_blocks, jsonb_array_length(p_blocks)));
  end if;
  if jsonb_typeof(p_edges) = 'array' and jsonb_array_length(p_edges) > max_edges then
    perform auth.raise_error(400, 'VALIDATION_ERROR', format('A graph has at most %s edges (this one has %s)', max_edges, jsonb_array_length(p_edges)));
  end if;

  -- The first block that breaks a rule, in body order.
  with given as (
    select x.value as block, x.ordinality as n,
           case when jsonb_typeof(x.value) = 'object' and jsonb_typeof(x.value -> 'id') = 'string' then x.value ->> 'id' end as bid,
           case when jsonb_typeof(x.value) = 'object' then x.value ->> 'type' end as given_type
      from jsonb_array_elements(p_blocks) with ordinality x
  ), typed as (
    select g.*, coalesce(t.name, a.type) as canonical, row_number() over (partition by g.bid order by g.n) as occurrence,
           coalesce(g.block -> 'config', '{}') as config, coalesce(g.block -> 'position', '{"x": 0, "y": 0}') as pos
      from given g
      left join ai.block_types t on t.name = g.given_type
      left join ai.block_type_aliases a on a.alias = g.given_type
  ), judged as (
    select t.n, case
      when jsonb_typeof(t.block) <> 'object' then format('blocks[%s] must be an object', t.n - 1)
      when t.bid is null or t.bid = '' then format('blocks[%s]: missing id', t.n - 1)
      when jsonb_typeof(t.block -> 'type') is distinct from 'string' then format('Block "%s": missing type', t.bid)
      when t.canonical is null then format('Unknown block type "%s" (block "%s")', t.given_type, t.bid)
      when t.occurrence > 1 then format('Duplicate block id "%s"', t.bid)
      when jsonb_typeof(t.config) <> 'object' then format('Block "%s": config must be an object', t.bid)
      when jsonb_typeof(t.pos) <> 'object' or jsonb_typeof(coalesce(t.pos -> 'x', '0')) <> 'number' or jsonb_typeof(coalesce(t.pos -> 'y', '0')) <> 'number'
        then format('Block "%s": position must be {x, y} with numbers', t.bid)
      when t.canonical = 'webhook' and t.config ? 'webhook_id' and (jsonb_typeof(t.config -> 'webhook_id') <> 'string'
          or t.config ->> 'webhook_id' !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
        then format('Block "%s": webhook_id must be a UUID', t.bid)
      end as problem
      from typed t
  )
  select j.problem into problem from judged j where j.problem is not null order by j.n limit 1;
  if problem is not null then perform auth.raise_error(400, 'VALIDATION_ERROR', problem); end if;

  delete from ai.workflow_edges we where we.workflow_id = p_workflow;
  delete from ai.workflow_blocks wb where wb.workflow_id = p_workflow;
  insert into ai.workflow_blocks (workflow_id, id, type, config, position, ordinal)
  select p_workflow, x.value ->> 'id', coalesce(t.name, a.type),
         case when coalesce(t.name, a.type) = 'webhook' then coalesce(x.value -> 'config', '{}') || jsonb_build_object(
                'webhook_id', coalesce(lower(x.value -> 'config' ->> 'webhook_id'), gen_random_uuid()::text),
                'webhook_secret', coalesce(nullif(x.value -> 'config' ->> 'webhook_secret', ''), encode(extensions.gen_random_bytes(24), 'hex')))
              else coalesce(x.value -> 'config', '{}') end,
         coalesce(x.value -> 'position', '{"x": 0, "y": 0}'), x.ordinality
    from jsonb_array_elements(p_blocks) with ordinality x
    left join ai.block_types t on t.name = x.value ->> 'type'
    left join ai.block_type_aliases a on a.alias = x.value ->> 'type';

  -- The first edge that breaks a rule, in body order.
  with given as (
    select x.value as edge, x.ordinality as n, x.value ->> 'source' as src, x.value ->> 'target' as dst
      from jsonb_array_elements(coalesce(nullif(p_edges, 'null'), '[]')) with ordinality x
  ), judged as (
    select g.n, case
      when jsonb_typeof(g.edge) <> 'object' or jsonb_typeof(g.edge -> 'source') is distinct from 'string' or jsonb_typeof(g.edge -> 'target') is distinct from 'string'
        then format('edges[%s]: each edge needs a source and a target (block ids)', g.n - 1)
      when s.id is null or t.id is null
        then format('Edge %s -> %s: no block "%s" in this graph', g.src, g.dst, case when s.id is not null then g.dst else g.src end)
      when row_number() over (partition by g.src, g.dst order by g.n) > 1 then format('Edge %s -> %s appears twice', g.src, g.dst)
      end as problem
      from given g
      left join ai.workflow_blocks s on s.workflow_id = p_workflow and s.id = g.src
      left join ai.workflow_blocks t on t.workflow_id = p_workflow and t.id = g.dst
  )
  select j.problem into problem from judged j where j.problem is not null order by j.n limit 1;
  if problem is not null then perform auth.raise_error(400, 'VALIDATION_ERROR', problem); end if;

  insert into ai.workflow_edges (workflow_id, source, target, ordinal)
  select p_workflow, x.value ->> 'source', x.value ->> 'target', x.ordinality
    from jsonb_array_elements(coalesce(nullif(p_edges, 'null'), '[]')) with ordinality x;

  loop_at := ai.graph_cycle_block(p_workflow);
  if loop_at is not null then
    perform auth.raise_error(400, 'VALIDATION_ERROR', format('Block "%s" is on a cycle; only a split may lead back', loop_at));
  end if;

  update ai.workflows w set updated_at = now() where w.id = p_workflow;
  return ai.graph_json(p_workflow);
end
$$;

revoke execute on function ai.graph_cycle_block(uuid) from public;
grant execute on function ai.graph_limit(text) to authenticated, service_role;
grant execute on function ai.graph_cycle_block(uuid) to authenticated, service_role;
