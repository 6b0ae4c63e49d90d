-- Each surface has its schema; the platform's own bookkeeping is out of reach
-- of the API roles, and every applied migration is recorded with its checksum.
begin;
select plan(8);

select has_schema('auth', 'schema auth exists');
select has_schema('storage', 'schema storage exists');
select has_schema('realtime', 'schema realtime exists');
select has_schema('ai', 'schema ai exists');

select ok(not has_schema_privilege('anon', 'platform', 'usage'), 'anon cannot reach schema platform');
select ok(not has_schema_privilege('service_role', 'platform', 'usage'), 'service_role cannot reach schema platform');
select ok(not has_schema_privilege('anon', 'ai', 'usage'), 'anon cannot reach the AI schema directly');

select is(
  (select count(*) from platform.migrations where source = 'platform' and checksum ~ '^[0-9a-f]{64}$' and name ~ '^\d{4}_.*\.sql$'),
  (select count(*) from platform.migrations),
  'every applied migration is recorded by name with a sha256 checksum');

select * from finish();
rollback;
