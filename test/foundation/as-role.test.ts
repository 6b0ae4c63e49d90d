import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { asRole } from '../../db/as-role.ts';
import { queryAsRole } from '../../db/pipeline.ts';
import { createPool } from '../../db/pool.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const ADA = '0a0a0a0a-0000-4000-8000-00000000000a';
const BOB = '0b0b0b0b-0000-4000-8000-00000000000b';

describe('asRole: one transaction as the token’s role with its claims', () => {
  let p: TestPlatform;
  let single: pg.Pool;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    await p.adminPool.query(`
      create table public.notes (id serial primary key, owner uuid not null default auth.uid(), body text);
      alter table public.notes enable row level security;
      create policy own on public.notes for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
      insert into public.notes (owner, body) values ('${ADA}', 'ada'), ('${BOB}', 'bob');`);
    // One connection, so every transaction below reuses the same session.
    const u = new URL(p.adminUrl);
    u.username = 'authenticator';
    single = createPool({ connectionString: u.toString(), max: 1, connectTimeoutMs: 2000, name: 'single', log: p.log });
  });
  after(async () => {
    await single.end();
    await stopTestPlatform(p);
  });

  it('sets role, claims, method, path and headers as PostgREST does', async () => {
    const row = await asRole(
      single,
      { role: 'authenticated', claims: { sub: ADA, role: 'authenticated', email: 'ada@example.com' }, method: 'GET', path: '/rest/v1/notes', headers: { 'x-client-info': 'supabase-js/2' } },
      async (c) =>
        (
          await c.query(`select current_user as role, auth.uid() as uid, auth.email() as email, auth.role() as claim_role,
                current_setting('request.method') as method, current_setting('request.path') as path,
                current_setting('request.headers')::jsonb ->> 'x-client-info' as client`)
        ).rows[0],
    );
    assert.deepEqual(row, { role: 'authenticated', uid: ADA, email: 'ada@example.com', claim_role: 'authenticated', method: 'GET', path: '/rest/v1/notes', client: 'supabase-js/2' });
  });

  it('sets the sub claim alone too, as PostgREST before v10 did, in both paths; empty without one', async () => {
    const read = `select current_setting('request.jwt.claim.sub', true) as sub`;
    const claims = { sub: ADA, role: 'authenticated' };
    assert.deepEqual(await asRole(single, { role: 'authenticated', claims }, async (c) => (await c.query(read)).rows[0]), { sub: ADA });
    assert.deepEqual(await queryAsRole(single, { role: 'authenticated', claims }, read, []), [{ sub: ADA }]);
    assert.deepEqual(await queryAsRole(single, { role: 'anon', claims: { role: 'anon' } }, `${read}, auth.uid() as uid`, []), [{ sub: '', uid: null }]);
    // Not carried to the next transaction on the same connection.
    assert.deepEqual((await single.query(`select coalesce(current_setting('request.jwt.claim.sub', true), '') as sub`)).rows[0], { sub: '' });
  });

  it('lets row-level security decide', async () => {
    const mine = await asRole(single, { role: 'authenticated', claims: { sub: ADA, role: 'authenticated' } }, async (c) => (await c.query('select body from public.notes')).rows);
    assert.deepEqual(mine, [{ body: 'ada' }]);
    const all = await asRole(single, { role: 'service_role', claims: { role: 'service_role' } }, async (c) => (await c.query('select count(*)::int as n from public.notes')).rows[0]);
    assert.deepEqual(all, { n: 2 });
    await assert.rejects(
      asRole(single, { role: 'authenticated', claims: { sub: ADA, role: 'authenticated' } }, (c) => c.query(`insert into public.notes (owner, body) values ('${BOB}', 'forged')`)),
      { code: '42501' },
    );
  });

  it('leaves nothing on the pooled connection for the next request', async () => {
    await asRole(single, { role: 'authenticated', claims: { sub: ADA, role: 'authenticated' } }, async () => undefined);
    const { rows } = await single.query(`select current_user as role, coalesce(current_setting('request.jwt.claims', true), '') as claims`);
    assert.deepEqual(rows[0], { role: 'authenticator', claims: '' });
    await assert.rejects(single.query('select * from public.notes'), { code: '42501' }, 'authenticator alone may read nothing');
  });

  it('rolls back everything when the callback throws', async () => {
    await assert.rejects(
      asRole(single, { role: 'authenticated', claims: { sub: ADA, role: 'authenticated' } }, async (c) => {
        await c.query(`insert into public.notes (body) values ('rolled back')`);
        throw new Error('handler failed');
      }),
      /handler failed/,
    );
    const { rows } = await p.adminPool.query(`select count(*)::int as n from public.notes where body = 'rolled back'`);
    assert.deepEqual(rows[0], { n: 0 });
  });

  it('cannot switch to a role outside the API roles', async () => {
    await assert.rejects(asRole(single, { role: 'postgres', claims: { role: 'postgres' } }, (c) => c.query('select 1')), { code: '42501' });
  });

  it('is what the platform request pool does, logged in as authenticator', async () => {
    const who = await asRole(p.requestPool, { role: 'anon', claims: { role: 'anon' } }, async (c) => (await c.query('select session_user, current_user')).rows[0]);
    assert.deepEqual(who, { session_user: 'authenticator', current_user: 'anon' });
  });
});
