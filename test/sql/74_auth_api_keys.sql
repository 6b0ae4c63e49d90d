-- Publishable and secret API keys (sql/0112): no API role reads the table
-- or calls its functions; a key is made with its prefix, stored as a hash
-- and encrypted, read back only with the master key; names are unique.
begin;
select plan(10);

select ok(not has_table_privilege(r, 'auth.api_keys', 'select') and not has_table_privilege(r, 'auth.api_keys', 'insert')
          and not has_table_privilege(r, 'auth.api_keys', 'delete'), format('%s has no right on auth.api_keys', r))
  from unnest(array['anon', 'authenticated', 'service_role']) r;
select ok(not has_function_privilege(r, 'auth.create_api_key(text, text, text)', 'execute') and not has_function_privilege(r, 'auth.api_key_list(text)', 'execute'),
          format('%s cannot make or read a key', r))
  from unnest(array['anon', 'authenticated', 'service_role']) r;

-- This database's own keys were made with another master key.
delete from auth.api_keys;
create temp table made as select * from auth.create_api_key('ci', 'secret', 'master');
select matches((select api_key from made), '^sb_secret_[A-Za-z0-9_-]{43}$', 'a secret key: its prefix and 32 random bytes');
select is((select key_hash from auth.api_keys where name = 'ci'), (select encode(extensions.digest(api_key, 'sha256'), 'hex') from made), 'looked up by its SHA-256');
select is((select api_key from auth.api_key_list('master') where name = 'ci'), (select api_key from made), 'read back with the master key only');
select throws_ok($$ select auth.create_api_key('ci', 'publishable', 'master') $$, 'PT409', null, 'names are unique');

select * from finish();
rollback;
