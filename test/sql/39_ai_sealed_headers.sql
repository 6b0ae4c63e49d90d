-- Headers inside tools and hooks (sql/0056): sealed in the writer's
-- transaction (encrypted, stored masked), the mask sent back keeps the stored
-- value, bad headers are a 400, and a row with headers in clear cannot commit.
begin;
select plan(7);

select tests.authenticate_as_service_role();
insert into ai.tools (id, name, description, type, input_schema, config)
  values ('7e000000-0000-4000-8000-000000000001', 't', 'd', 'http', '{}', '{"endpoint": "https://x.test", "headers": {"authorization": "Bearer sk-0123456789abcdef"}}');
select is((select headers_unsealed from ai.tools where name = 't'), true, 'a write that brings headers marks the row unsealed');
select ai.seal_headers('ai.tools', '7e000000-0000-4000-8000-000000000001', 'master-key');
select is((select config -> 'headers' ->> 'authorization' from ai.tools where name = 't'), 'Bea...cdef', 'sealed: config shows the mask');
select is((select ai.decrypt(headers_encrypted, 'master-key')::jsonb ->> 'authorization' from ai.tools where name = 't'), 'Bearer sk-0123456789abcdef', 'and the value is encrypted');

update ai.tools set config = '{"endpoint": "https://y.test", "headers": {"authorization": "Bea...cdef", "x-new": "fresh-value-123"}}' where name = 't';
select ai.seal_headers('ai.tools', '7e000000-0000-4000-8000-000000000001', 'master-key');
select is((select ai.decrypt(headers_encrypted, 'master-key')::jsonb from ai.tools where name = 't'),
  '{"authorization": "Bearer sk-0123456789abcdef", "x-new": "fresh-value-123"}'::jsonb, 'the mask sent back keeps the stored value');

update ai.tools set config = '{"endpoint": "https://y.test"}' where name = 't';
select is((select headers_encrypted from ai.tools where name = 't'), null, 'config without headers forgets them');

update ai.tools set config = '{"headers": {"bad name": "v"}}' where name = 't';
select throws_ok($$ select ai.seal_headers('ai.tools', '7e000000-0000-4000-8000-000000000001', 'master-key') $$, 'PT400', 'Invalid header bad name: names are tokens and values single-line strings', 'bad headers are a 400');
select throws_ok($$ set constraints all immediate $$, 'PT500', 'Headers must be sealed by the server before they are stored (ai.seal_headers)', 'an unsealed row cannot commit');

select * from finish();
rollback;
