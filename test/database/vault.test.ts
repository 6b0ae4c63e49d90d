// Vault (issue 50, item 4; sql/0118) as Supabase's guide uses it, unchanged
// SQL: vault.create_secret in a migration-like statement, a security
// definer function that reads vault.decrypted_secrets for the service role,
// called through supabase-js's rpc. pgbase's sessions carry the key (the
// request pool's too), a session from outside does not and reads nothing,
// the table holds ciphertext only, and a role not granted is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createClient } from '@supabase/supabase-js';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('Vault', () => {
  let p: TestPlatform;

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    // As Supabase's Vault guide writes it.
    await p.adminPool.query(`select vault.create_secret('sk_test_4eC39HqLyjWDarjtT1zdp7dc', 'stripe_key', 'Stripe test key')`);
    await p.adminPool.query(`create function public.stripe_key() returns text language sql security definer set search_path = '' as $$
        select decrypted_secret from vault.decrypted_secrets where name = 'stripe_key' $$;
      revoke execute on function public.stripe_key() from public, anon, authenticated;
      grant execute on function public.stripe_key() to service_role;
      notify pgrst, 'reload schema';`);
  });
  after(() => stopTestPlatform(p));

  it('reads a secret through a function the service role may call, over supabase-js', async () => {
    const service = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
    // The schema cache hears of the new function by NOTIFY pgrst.
    const { data, error } = await eventually('the function in the schema cache', async () => await service.rpc('stripe_key'), (r) => r.error?.code !== 'PGRST202');
    assert.equal(error, null);
    assert.equal(data, 'sk_test_4eC39HqLyjWDarjtT1zdp7dc');
    const anon = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const refused = await anon.rpc('stripe_key');
    assert.equal(refused.data, null);
    assert.equal(refused.error?.code, '42501');
  });

  it('keeps ciphertext only, and a session from outside pgbase reads nothing', async () => {
    const { rows: [row] } = await p.adminPool.query<{ secret: string }>(`select secret from vault.secrets where name = 'stripe_key'`);
    assert.ok(!row!.secret.includes('sk_test'), 'no plaintext in the table');
    const outside = new pg.Client({ connectionString: p.config.DATABASE_URL! });
    await outside.connect();
    try {
      await assert.rejects(outside.query('select decrypted_secret from vault.decrypted_secrets'), (err: Error) => /vault key is not set in this session/.test(err.message) && !err.message.includes('sk_test'));
      const { rows: [listed] } = await outside.query<{ name: string }>('select name from vault.secrets');
      assert.equal(listed!.name, 'stripe_key', 'the list is there, the values are not');
    } finally {
      await outside.end();
    }
    const { rows: [activity] } = await p.adminPool.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where query like '%vault_key%' and pid <> pg_backend_pid()`);
    assert.equal(activity!.n, 0, 'the key travels as a startup option, never as a statement');
  });
});
