-- Agents and their tool assignments: the access model's policies apply to
-- agents and, through the agent, to its assignments; ai.check_database_override
-- holds the rule for the database tools' config_override.
begin;
select plan(18);

insert into auth.users (id, email) values ('00000000-0000-0000-0000-0000000000a1', 'a@example.com'), ('00000000-0000-0000-0000-0000000000b2', 'b@example.com');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e1', 'ann''s agent');
insert into ai.agent_tools (agent_id, tool_name, tool_type) values ('00000000-0000-0000-0000-00000000a9e1', 'web_search', 'builtin');
select is((select owner_id from ai.agents), '00000000-0000-0000-0000-0000000000a1'::uuid, 'a user''s agent is theirs');
select throws_ok($$ insert into ai.agent_tools (agent_id, tool_name, tool_type) values ('00000000-0000-0000-0000-00000000a9e1', 'x', 'custom') $$,
  '23514', null, 'a custom assignment names its tool row');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.agent_tools), 0, 'bob does not see the tools of ann''s agent');
select throws_ok($$ insert into ai.agent_tools (agent_id, tool_name, tool_type) values ('00000000-0000-0000-0000-00000000a9e1', 'http_request', 'builtin') $$,
  '42501', null, 'nor assign tools to it');

select tests.authenticate_as_service_role();
insert into ai.agents (id, name) values ('00000000-0000-0000-0000-00000000a9e2', 'project agent');
insert into ai.agent_tools (agent_id, tool_name, tool_type) values ('00000000-0000-0000-0000-00000000a9e2', 'web_search', 'builtin');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select is((select count(*)::int from ai.agent_tools), 1, 'bob sees the project agent''s tools');
delete from ai.agent_tools;
update ai.agent_tools set config_override = '{"query": "x"}';
select is((select config_override from ai.agent_tools), '{}'::jsonb, 'but cannot change or remove them');

-- MCP headers are written encrypted through ai.put_mcp_headers only; hooks are immutable.
select tests.authenticate_as('00000000-0000-0000-0000-0000000000a1');
insert into ai.agent_mcp_servers (id, agent_id, name, url) values ('00000000-0000-0000-0000-00000000c001', '00000000-0000-0000-0000-00000000a9e1', 'files', 'https://mcp.example');
select ai.put_mcp_headers('00000000-0000-0000-0000-00000000c001', '{"Authorization": "Bearer abcdefgh1234"}', 'master-key-for-test');
select is((select headers from (select headers_masked as headers from ai.agent_mcp_servers) s), '{"Authorization": "Bea...1234"}'::jsonb,
  'the owner sees the headers masked');
select throws_ok($$ select headers_encrypted from ai.agent_mcp_servers $$, '42501', null, 'and cannot read the encrypted column');
insert into ai.agent_hooks (agent_id, event, type) values ('00000000-0000-0000-0000-00000000a9e1', 'OnRunStart', 'rule');
select throws_ok($$ update ai.agent_hooks set enabled = false $$, '42501', null, 'a hook cannot be changed, even by its owner');

select tests.authenticate_as('00000000-0000-0000-0000-0000000000b2');
select throws_ok($$ select ai.put_mcp_headers('00000000-0000-0000-0000-00000000c001', '{"x": "y"}', 'k') $$, 'PT404', 'MCP server not found',
  'bob cannot set the headers of ann''s server');
select throws_ok($$ insert into ai.agent_hooks (agent_id, event, type) values ('00000000-0000-0000-0000-00000000a9e1', 'OnRunStart', 'http') $$,
  '42501', null, 'nor add hooks to her agent');

select tests.clear_authentication();
select is(ai.check_database_override('{"schemas": {"public": ["todos"]}, "extra": 1}'), '{"schemas": {"public": ["todos"]}}'::jsonb,
  'only schemas is kept');
select is(ai.check_database_override('{"other": 1}'), '{}'::jsonb, 'an override without schemas keeps nothing');
select throws_like($$ select ai.check_database_override('{"schemas": {"auth": ["users"]}}') $$, '%system schema%', 'auth is a system schema');
select throws_like($$ select ai.check_database_override('{"schemas": {"pg_toast": ["t"]}}') $$, '%system schema%', 'so is every pg_ schema');
select throws_like($$ select ai.check_database_override('{"schemas": {"my-schema": ["t"]}}') $$, '%Invalid schema name%', 'schema names are identifiers');
select throws_like($$ select ai.check_database_override('{"schemas": {"public": ["a b"]}}') $$, '%Invalid table name%', 'table names too');
select throws_like($$ select ai.check_database_override('{"schemas": {"public": "todos"}}') $$, '%must be a list%', 'tables come as a list');

select * from finish();
rollback;
