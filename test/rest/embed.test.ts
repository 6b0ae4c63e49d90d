// Resource embedding through foreign keys, as supabase-js selects it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('row REST: embedded resources', () => {
  let p: TestPlatform;
  let anon: SupabaseClient;
  const get = async (path: string) => {
    const res = await fetch(`${p.url}/rest/v1${path}`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}` } });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    anon = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    await p.adminPool.query(`
      create table public.authors (id int primary key, name text not null);
      create table public.posts (id int primary key, author_id int references public.authors, editor_id int references public.authors, title text not null);
      create table public.comments (id int primary key, post_id int not null references public.posts, body text not null, score int not null default 0);
      create table public.tags (id int primary key, label text not null);
      create table public.post_tags (post_id int references public.posts, tag_id int references public.tags, primary key (post_id, tag_id));
      insert into public.authors values (1, 'Ada'), (2, 'Bob');
      insert into public.posts values (10, 1, 2, 'Engines'), (11, 1, null, 'Notes'), (12, 2, null, 'Drafts');
      insert into public.comments values (100, 10, 'great', 9), (101, 10, 'meh', 1), (102, 11, 'spam', -5), (103, 12, 'ok', 6);
      insert into public.tags values (1, 'math'), (2, 'history');
      insert into public.post_tags values (10, 1), (10, 2), (11, 1);
      alter table public.comments enable row level security;
      create policy "visible comments" on public.comments for select using (score >= 0);`);
    for (let i = 0; i < 100 && (await get('/post_tags')).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(async () => stopTestPlatform(p));

  it('embeds one-to-many arrays, under the caller’s row-level security', async () => {
    const { data, error } = await anon.from('posts').select('title, comments(body)').order('id');
    assert.equal(error, null);
    assert.deepEqual(data, [
      { title: 'Engines', comments: [{ body: 'great' }, { body: 'meh' }] },
      { title: 'Notes', comments: [] },
      { title: 'Drafts', comments: [{ body: 'ok' }] },
    ]);
  });

  it('embeds many-to-one objects, disambiguated by a hint, null when there is none', async () => {
    const { data } = await anon.from('posts').select('title, author:authors!author_id(name), editor:authors!editor_id(name)').order('id').limit(2);
    assert.deepEqual(data, [
      { title: 'Engines', author: { name: 'Ada' }, editor: { name: 'Bob' } },
      { title: 'Notes', author: { name: 'Ada' }, editor: null },
    ]);
    const ambiguous = await get('/posts?select=title,authors(name)');
    assert.equal(ambiguous.status, 300);
    assert.equal((ambiguous.body as { code: string }).code, 'PGRST201');
    const none = await get('/tags?select=label,authors(name)');
    assert.equal(none.status, 400);
    assert.equal((none.body as { code: string }).code, 'PGRST200');
  });

  it('embeds many-to-many through a junction table, and nests embeds', async () => {
    const { data } = await anon.from('posts').select('title, tags(label)').eq('id', 10).single();
    assert.deepEqual({ ...data, tags: (data as { tags: Array<{ label: string }> }).tags.map((t) => t.label).sort() }, { title: 'Engines', tags: ['history', 'math'] });
    const nested = await anon.from('authors').select('name, posts!author_id(title, comments(body))').eq('id', 2);
    assert.deepEqual(nested.data, [{ name: 'Bob', posts: [{ title: 'Drafts', comments: [{ body: 'ok' }] }] }]);
  });

  it('filters, orders and limits embedded rows, and !inner filters the parents', async () => {
    const scoped = await anon.from('posts').select('title, comments(body)').eq('id', 10).order('id', { referencedTable: 'comments', ascending: false }).limit(1, { referencedTable: 'comments' });
    assert.deepEqual(scoped.data, [{ title: 'Engines', comments: [{ body: 'meh' }] }]);
    const filtered = await anon.from('posts').select('title, comments(body)').gt('comments.score', 5).order('id');
    assert.deepEqual(filtered.data?.map((r) => [r.title, r.comments.length]), [['Engines', 1], ['Notes', 0], ['Drafts', 1]], 'without !inner every post stays');
    const inner = await anon.from('posts').select('title, comments!inner(body)').gt('comments.score', 5).order('id');
    assert.deepEqual(inner.data?.map((r) => r.title), ['Engines', 'Drafts']);
  });

  it('spreads a to-one relation’s columns into the row', async () => {
    const { data } = await anon.from('comments').select('body, ...posts(title)').order('id').limit(1);
    assert.deepEqual(data, [{ body: 'great', title: 'Engines' }]);
  });
});
