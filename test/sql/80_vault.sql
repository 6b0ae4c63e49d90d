-- Vault (sql/0118): ciphertext only in vault.secrets; the view decrypts with
-- the session's key (pgbase.vault_key) and for its grantees only; a
-- ciphertext moved to another row, or read with another key, does not
-- decrypt, and no error names the plaintext.
begin;
select plan(10);

set local pgbase.vault_key = 'test-key-1';
create temp table made as select vault.create_secret('sk_live_123', 'stripe', 'Stripe key') as id;
select is((select decrypted_secret from vault.decrypted_secrets where name = 'stripe'), 'sk_live_123', 'the view decrypts');
select ok((select secret not like '%sk_live%' and length(secret) > 40 from vault.secrets where name = 'stripe'), 'the table holds ciphertext only');
select lives_ok($$ select vault.update_secret((select id from made), 'sk_live_456', null, 'rotated') $$, 'updated');
select is((select decrypted_secret || ' ' || description || ' ' || name from vault.decrypted_secrets where id = (select id from made)), 'sk_live_456 rotated stripe', 'what was given changed, the rest stayed');
select throws_ok($$ select vault.create_secret('x', 'stripe') $$, '23505', 'A secret named "stripe" already exists', 'names are unique');

create temp table other as select vault.create_secret('other', 'other') as id;
update vault.secrets set secret = (select secret from vault.secrets where name = 'stripe') where name = 'other';
select throws_like($$ select decrypted_secret from vault.decrypted_secrets where name = 'other' $$, '%belongs to another secret%', 'a ciphertext moved to another row does not decrypt');

set local pgbase.vault_key = 'another-key';
select throws_like($$ select decrypted_secret from vault.decrypted_secrets where name = 'stripe' $$, '%could not be decrypted (another key%', 'another key does not decrypt');
set local pgbase.vault_key = '';
select throws_ok($$ select decrypted_secret from vault.decrypted_secrets $$, '28000', null, 'without the key, nothing is read');

select ok(not has_table_privilege('service_role', 'vault.decrypted_secrets', 'select') and not has_table_privilege('authenticated', 'vault.secrets', 'select'), 'no API role reads secrets until granted');
select ok(not has_function_privilege('service_role', 'vault._key()', 'execute'), 'nor asks for the key');

select * from finish();
rollback;
