-- Workflow graphs in SQL: the registry of block types and aliases, the rules
-- of ai.put_graph (each refusal a 400 naming the culprit, nothing changed),
-- foreign keys that keep edges within one graph, and cycles allowed only
-- through a split.
begin;
select plan(14);

select results_eq($$ select name from ai.block_types order by position $$,
  $$ values ('starter'), ('webhook'), ('agent'), ('orchestration'), ('code'), ('condition'), ('general_api'), ('platform_api'), ('response'), ('split'), ('wait') $$,
  'the ten canonical block types are registered, and wait (sql/0103)');
select results_eq($$ select alias, type from ai.block_type_aliases order by alias $$, $$ values ('api_call', 'general_api'), ('function', 'code') $$,
  'with the aliases function -> code and api_call -> general_api');

select tests.authenticate_as_service_role();
insert into ai.workflows (id, name) values ('11111111-1111-4111-8111-111111111111', 'w'), ('22222222-2222-4222-8222-222222222222', 'other');
select lives_ok($$ select ai.put_graph('11111111-1111-4111-8111-111111111111', '[{"id": "s", "type": "starter"}, {"id": "f", "type": "function"}]', '[{"source": "s", "target": "f"}]') $$,
  'a valid graph is saved');
select is((select type from ai.workflow_blocks where id = 'f'), 'code', 'an alias is stored as its canonical type');

select throws_ok($$ select ai.put_graph('11111111-1111-4111-8111-111111111111', '[{"id": "x", "type": "warp"}]', '[]') $$,
  'PT400', 'Unknown block type "warp" (block "x")', 'an unregistered type is refused by name');
select throws_ok($$ select ai.put_graph('11111111-1111-4111-8111-111111111111', '[{"id": "a", "type": "code"}, {"id": "a", "type": "code"}]', '[]') $$,
  'PT400', 'Duplicate block id "a"', 'ids are unique');
select throws_ok($$ select ai.put_graph('11111111-1111-4111-8111-111111111111', '[{"id": "a", "type": "code"}]', '[{"source": "a", "target": "b"}]') $$,
  'PT400', 'Edge a -> b: no block "b" in this graph', 'an edge names blocks of the graph');
select throws_ok($$ select ai.put_graph('11111111-1111-4111-8111-111111111111', '[{"id": "a", "type": "code"}, {"id": "b", "type": "code"}, {"id": "c", "type": "code"}]',
  '[{"source": "a", "target": "b"}, {"source": "b", "target": "c"}, {"source": "c", "target": "a"}]') $$,
  'PT400', null, 'a cycle is refused');
select results_eq($$ select id, type from ai.workflow_blocks where workflow_id = '11111111-1111-4111-8111-111111111111' order by ordinal $$,
  $$ values ('s', 'starter'), ('f', 'code') $$, 'after every refusal the saved graph is as it was');
select lives_ok($$ select ai.put_graph('11111111-1111-4111-8111-111111111111', '[{"id": "sp", "type": "split"}, {"id": "c", "type": "code"}]',
  '[{"source": "sp", "target": "c"}, {"source": "c", "target": "sp"}]') $$, 'a loop through a split is allowed');

select throws_ok($$ insert into ai.workflow_blocks (workflow_id, id, type, ordinal) values ('11111111-1111-4111-8111-111111111111', 'z', 'warp', 9) $$,
  '23503', null, 'the database itself refuses an unregistered type');
select throws_ok($$ insert into ai.workflow_edges (workflow_id, source, target, ordinal) values ('22222222-2222-4222-8222-222222222222', 'sp', 'c', 1) $$,
  '23503', null, 'and an edge to blocks of another workflow');

select lives_ok($$ select ai.put_graph('22222222-2222-4222-8222-222222222222', '[{"id": "h", "type": "webhook"}]', null) $$, 'a webhook block is saved without an id');
select ok((select config ->> 'webhook_id' ~ '^[0-9a-f-]{36}$' and length(config ->> 'webhook_secret') = 48 from ai.workflow_blocks where id = 'h'),
  'and gets a webhook id and secret');

select * from finish();
rollback;
