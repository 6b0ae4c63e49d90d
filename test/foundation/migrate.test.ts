import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { migrate, MigrationError, PLATFORM_MIGRATIONS_DIR, readMigrations } from '../../db/migrate.ts';
import { freshDatabase, query } from '../helpers/db.ts';

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'pgbase-mig-'));
}

describe('migrations', () => {
  it('applies every platform migration once, in name order, and nothing on the second run', async () => {
    const db = await freshDatabase();
    const files = await readMigrations(PLATFORM_MIGRATIONS_DIR, 'platform');
    const first = await migrate(db.url);
    assert.deepEqual(first.applied.map((m) => m.name), files.map((f) => f.name));
    assert.deepEqual([...first.applied.map((m) => m.name)].sort(), first.applied.map((m) => m.name));
    const second = await migrate(db.url);
    assert.deepEqual(second, { applied: [], skipped: files.length });
    const rows = await query<{ name: string; checksum: string }>(db.url, `select name, checksum from platform.migrations where source = 'platform' order by name`);
    assert.deepEqual(rows, files.map((f) => ({ name: f.name, checksum: f.checksum })));
    await db.drop();
  });

  it('refuses a changed applied file, naming it, and applies nothing else', async () => {
    const db = await freshDatabase();
    const dir = tempDir();
    cpSync(PLATFORM_MIGRATIONS_DIR, dir, { recursive: true });
    await migrate(db.url, { platformDir: dir });
    appendFileSync(path.join(dir, '0003_auth_helpers.sql'), '\n-- an edit after the fact\n');
    writeFileSync(path.join(dir, '9999_new.sql'), 'create table public.should_not_exist (id int);');
    await assert.rejects(migrate(db.url, { platformDir: dir }), (err: unknown) => {
      assert.ok(err instanceof MigrationError);
      assert.match(err.message, /0003_auth_helpers\.sql was changed after it was applied/);
      assert.match(err.message, /put the change in a new migration/);
      return true;
    });
    const rows = await query(db.url, `select to_regclass('public.should_not_exist') as t`);
    assert.equal(rows[0]!.t, null);
    await db.drop();
  });

  it("applies the user's migrations after the platform's, recorded apart", async () => {
    const db = await freshDatabase();
    const userDir = tempDir();
    // Written against Supabase conventions: extensions resolve unqualified, auth.uid() exists.
    writeFileSync(path.join(userDir, '20240101_todos.sql'), `
      create table public.todos (id uuid primary key default uuid_generate_v4(), owner uuid default auth.uid(), title text);
      alter table public.todos enable row level security;
      create policy "own todos" on public.todos using (auth.uid() = owner);`);
    writeFileSync(path.join(userDir, '20240102_seed.sql'), `insert into public.todos (title) values ('first');`);
    writeFileSync(path.join(userDir, 'README.md'), 'not a migration');
    const result = await migrate(db.url, { userDir });
    assert.deepEqual(result.applied.filter((m) => m.source === 'user').map((m) => m.name), ['20240101_todos.sql', '20240102_seed.sql']);
    assert.equal(result.applied.at(-1)!.name, '20240102_seed.sql', 'user migrations come last');
    const rows = await query<{ title: string }>(db.url, 'select title from public.todos');
    assert.deepEqual(rows, [{ title: 'first' }]);
    await db.drop();
  });

  it('rolls a failing migration back whole and names the file and line', async () => {
    const db = await freshDatabase();
    const userDir = tempDir();
    writeFileSync(path.join(userDir, '001_ok.sql'), 'create table public.kept (id int);');
    writeFileSync(path.join(userDir, '002_bad.sql'), 'create table public.half (id int);\n\nselect * from no_such_table;\n');
    await assert.rejects(migrate(db.url, { userDir }), /002_bad\.sql failed at line 3: relation "no_such_table" does not exist \(SQLSTATE 42P01\)/);
    const rows = await query(db.url, `select to_regclass('public.kept') as kept, to_regclass('public.half') as half`);
    assert.deepEqual(rows[0], { kept: 'kept', half: null });
    const recorded = await query(db.url, `select name from platform.migrations where source = 'user'`);
    assert.deepEqual(recorded, [{ name: '001_ok.sql' }]);
    await db.drop();
  });

  it("keeps one migration's session settings out of the next", async () => {
    const db = await freshDatabase();
    const userDir = tempDir();
    writeFileSync(path.join(userDir, '001_set.sql'), `set search_path = pg_catalog; set role anon;`);
    writeFileSync(path.join(userDir, '002_use.sql'), `create table public.after_set (id uuid default uuid_generate_v4());`);
    await migrate(db.url, { userDir });
    const rows = await query(db.url, `select tableowner from pg_tables where tablename = 'after_set'`);
    assert.deepEqual(rows, [{ tableowner: 'postgres' }]);
    await db.drop();
  });

  it('lets two processes migrate the same fresh database at once', async () => {
    const db = await freshDatabase();
    const userDir = tempDir();
    writeFileSync(path.join(userDir, '001_slow.sql'), `select pg_sleep(0.3); create table public.once (id int);`);
    const runOne = () =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['server/cli/migrate.ts'], {
          env: { ...process.env, DATABASE_URL: db.url, MIGRATIONS_DIR: userDir, LOG_LEVEL: 'info' },
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.on('close', (code) => resolve({ code, out }));
      });
    const [a, b] = await Promise.all([runOne(), runOne()]);
    assert.equal(a.code, 0, a.out);
    assert.equal(b.code, 0, b.out);
    const appliedLines = (a.out + b.out).split('\n').filter((l) => l.includes('"migration applied"') && l.includes('user/001_slow.sql'));
    assert.equal(appliedLines.length, 1, 'exactly one process applied the file');
    const rows = await query(db.url, `select count(*)::int as n from platform.migrations where name = '001_slow.sql'`);
    assert.deepEqual(rows, [{ n: 1 }]);
    await db.drop();
  });
});
