import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createPool } from '../../db/pool.ts';
import { queryAsRole } from '../../db/pipeline.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const ADA = '0a0a0a0a-0000-4000-8000-00000000000a';

describe('queryAsRole: role, claims and one statement in one round trip', () => {
  let p: TestPlatform;
  let single: pg.Pool;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    await p.adminPool.query(`
      create table public.notes (id serial primary key, owner uuid not null default auth.uid(), body text, n int);
      alter table public.notes enable row level security;
      create policy own on public.notes for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
      insert into public.notes (owner, body, n) values ('${ADA}', 'ada', 1), (gen_random_uuid(), 'other', 2);`);
    const u = new URL(p.adminUrl);
    u.username = 'authenticator';
    single = createPool({ connectionString: u.toString(), max: 1, connectTimeoutMs: 2000, name: 'single', log: p.log });
  });
  after(async () => {
    await single.end();
    await stopTestPlatform(p);
  });

  const as = { role: 'authenticated', claims: { sub: ADA, role: 'authenticated' }, method: 'GET', path: '/rest/v1/notes', headers: { 'x-test': 'yes' } };

  it('runs the statement as the role with the claims, values bound and typed', async () => {
    const rows = await queryAsRole<{ who: string; uid: string; body: string; n: number; hdr: string }>(single, as,
      `select current_user as who, auth.uid() as uid, body, n, current_setting('request.headers')::json->>'x-test' as hdr from public.notes where n >= $1`, [0]);
    assert.deepEqual(rows, [{ who: 'authenticated', uid: ADA, body: 'ada', n: 1, hdr: 'yes' }]);
  });

  it('leaves nothing on the connection afterwards', async () => {
    await queryAsRole(single, as, 'select 1', []);
    const { rows } = await single.query(`select current_user as who, coalesce(current_setting('request.jwt.claims', true), '') as claims`);
    assert.deepEqual(rows[0], { who: 'authenticator', claims: '' });
  });

  it('rolls back a failing statement and keeps the connection usable', async () => {
    await assert.rejects(queryAsRole(single, as, `insert into public.notes (owner, body) values ($1, 'forged')`, ['00000000-0000-4000-8000-000000000000']), { code: '42501' });
    // The same statement failing again on the same connection: prepared or not, it is re-prepared cleanly.
    await assert.rejects(queryAsRole(single, as, `insert into public.notes (owner, body) values ($1, 'forged')`, ['00000000-0000-4000-8000-000000000000']), { code: '42501' });
    await assert.rejects(queryAsRole(single, as, 'select nope from public.notes', []), { code: '42703' });
    await assert.rejects(queryAsRole(single, as, 'select nope from public.notes', []), { code: '42703' });
    await assert.rejects(queryAsRole(single, { ...as, role: 'postgres' }, 'select 1', []), { code: '42501' });
    const rows = await queryAsRole<{ n: number }>(single, as, 'select count(*)::int as n from public.notes', []);
    assert.deepEqual(rows, [{ n: 1 }]);
    const inserted = await queryAsRole<{ body: string }>(single, as, `insert into public.notes (body) values ($1) returning body`, ['mine']);
    assert.deepEqual(inserted, [{ body: 'mine' }]);
    const again = await queryAsRole<{ body: string }>(single, as, `insert into public.notes (body) values ($1) returning body`, ['mine too']);
    assert.deepEqual(again, [{ body: 'mine too' }], 'a prepared statement is reused');
    const { rows: committed } = await p.adminPool.query(`select count(*)::int as n from public.notes where body = 'mine' and owner = $1`, [ADA]);
    assert.deepEqual(committed, [{ n: 1 }], 'a successful statement commits at Sync');
    const { rows: names } = await single.query(`select count(*)::int as n from pg_prepared_statements where name like 'pgbase_%'`);
    assert.ok(names[0].n >= 2, 'statements are prepared once per connection');
  });
});
