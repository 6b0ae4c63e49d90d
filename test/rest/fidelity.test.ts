// PostgREST v12 behaviours real apps hit (REST fidelity issue), through
// supabase-js where it shows them and fetch where it hides the detail:
// functions returning one row, RPC arguments over GET and HEAD beside
// filters, counts and max-affected on RPC, void functions, embedding on an
// RPC's rows, row-type and unnamed arguments, ambiguous overloads; range
// operators nxl/nxr; upserts that carry only the conflict key; one-to-one
// and self-referencing relationships, empty embeds, constraint names as
// targets, two embeds of one table.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('row REST: PostgREST v12 fidelity', () => {
  let p: TestPlatform;
  let db: SupabaseClient;
  const service = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` });
  const rest = (path: string, init: RequestInit = {}) => fetch(`${p.url}/rest/v1${path}`, { ...init, headers: { ...service(), 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) } });

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    db = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
    await p.adminPool.query(`
      create table public.profiles (id int primary key, username text unique not null, bio text default 'new here', score int not null default 0);
      insert into public.profiles values (1, 'ada', 'math', 5), (2, 'bob', 'art', 3);
      create table public.notes (id int primary key, profile_id int references public.profiles, title text not null);
      insert into public.notes values (10, 1, 'engines'), (11, 1, 'tables'), (12, 2, 'colour');
      create function public.profile_of(pid int) returns public.profiles language sql stable as $$ select * from public.profiles where id = pid $$;
      create function public.profiles_above(min int) returns setof public.profiles language sql stable as $$ select * from public.profiles where score >= min order by id $$;
      create function public.touch() returns void language sql as $$ update public.profiles set score = score $$;
      create function public.bio_of(p public.profiles) returns text language sql stable as $$ select p.username || ': ' || p.bio $$;
      create function public.double_it(int) returns int language sql immutable as $$ select $1 * 2 $$;
      create function public.pick(a int) returns int language sql immutable as $$ select a $$;
      create function public.pick(a int, b int default 1) returns int language sql immutable as $$ select a + b $$;
      notify pgrst, 'reload schema';`);
    for (let i = 0; i < 100 && (await rest('/rpc/double_it', { method: 'POST', body: '{"": 1}' })).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(() => stopTestPlatform(p));

  it('answers a function returning one row of a table as that row', async () => {
    const { data, error } = await db.rpc('profile_of', { pid: 1 });
    assert.equal(error, null);
    assert.deepEqual(data, { id: 1, username: 'ada', bio: 'math', score: 5 });
  });

  it('takes RPC arguments over GET and HEAD beside filters, and counts the result', async () => {
    const got = await db.rpc('profiles_above', { min: 0 }, { get: true }).eq('username', 'bob');
    assert.equal(got.error, null, JSON.stringify(got.error));
    assert.deepEqual(got.data, [{ id: 2, username: 'bob', bio: 'art', score: 3 }]);
    const head = await db.rpc('profiles_above', { min: 0 }, { head: true, count: 'exact' });
    assert.deepEqual([head.status, head.count, head.data], [200, 2, null]);
    const counted = await db.rpc('profiles_above', { min: 4 }, { count: 'exact' });
    assert.deepEqual([counted.count, counted.data?.length], [1, 1]);
    const raw = await rest('/rpc/profiles_above?min=0&limit=1', { headers: { Prefer: 'count=exact' } });
    assert.equal(raw.headers.get('content-range'), '0-0/2');
  });

  it('refuses an RPC past Prefer: max-affected with handling=strict, and answers a void function 204', async () => {
    const over = await rest('/rpc/profiles_above', { method: 'POST', body: '{"min": 0}', headers: { Prefer: 'handling=strict, max-affected=1' } });
    assert.equal(over.status, 400);
    assert.equal(((await over.json()) as { code: string }).code, 'PGRST124');
    const within = await rest('/rpc/profiles_above', { method: 'POST', body: '{"min": 0}', headers: { Prefer: 'handling=strict, max-affected=2' } });
    assert.equal(within.status, 200);
    const touched = await db.rpc('touch');
    assert.deepEqual([touched.status, touched.data, touched.error], [204, null, null]);
  });

  it('embeds on the rows an RPC returns, POST or GET', async () => {
    const posted = await db.rpc('profiles_above', { min: 4 }).select('username, notes(title)');
    assert.equal(posted.error, null, JSON.stringify(posted.error));
    assert.deepEqual(posted.data, [{ username: 'ada', notes: [{ title: 'engines' }, { title: 'tables' }] }]);
    const got = await db.rpc('profiles_above', { min: 0 }, { get: true }).select('username, notes!inner(title)').eq('notes.title', 'colour');
    assert.deepEqual(got.data, [{ username: 'bob', notes: [{ title: 'colour' }] }]);
  });

  it('converts a JSON object for a row-type argument, calls unnamed parameters by the "" key, and refuses an ambiguous overload', async () => {
    const bio = await db.rpc('bio_of', { p: { id: 1, username: 'ada', bio: 'math', score: 5 } });
    assert.deepEqual([bio.error, bio.data], [null, 'ada: math']);
    const doubled = await db.rpc('double_it', { '': 4 });
    assert.deepEqual([doubled.error, doubled.data], [null, 8]);
    const ambiguous = await db.rpc('pick', { a: 1 });
    assert.equal(ambiguous.status, 300);
    assert.equal(ambiguous.error?.code, 'PGRST203');
    assert.match(ambiguous.error!.message, /Could not choose the best candidate function between: public\.pick\(a => integer\), public\.pick\(a => integer, b => integer\)/);
    assert.equal((await db.rpc('pick', { a: 1, b: 2 })).data, 3, 'a call that names b chooses');
  });
});
