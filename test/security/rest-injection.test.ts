// Row REST as an attacker drives it: hostile text at every position of the URL
// grammar and in RPC arguments, oversized lists and nesting. Pass: only
// 2xx/4xx, never a 500; no catalogue data and no SQL of ours in a body; every
// table unchanged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

/** Text an attacker would try: statement breaks, comments, casts, quotes, unions, function calls. */
const HOSTILE = [
  `text from pg_roles r union all select null`,
  `text) union select rolname from pg_roles--`,
  `int; drop table public.notes; --`,
  `"; drop table public.notes; --`,
  `') or 1=1 --`,
  `x' union select current_user --`,
  `pg_sleep(5)`,
  `text/**/from/**/pg_authid`,
  `$1`,
  `\\x00`,
  `😀`,
  `a"b`,
  `title::text,pg_read_file('/etc/passwd')`,
];

describe('REST injection: hostile input at every grammar position', () => {
  let p: TestPlatform;
  const rest = (path: string, init: RequestInit = {}) =>
    fetch(`${p.url}/rest/v1${path}`, { ...init, headers: { apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}`, ...(init.headers as Record<string, string>) } });
  const snapshot = async () => (await p.adminPool.query('select id, title, secret from public.notes order by id')).rows;
  /** Asserts what every hostile answer must satisfy; returns the body. */
  const harmless = async (res: Response, what: string) => {
    const body = await res.text();
    assert.ok(res.status < 500, `${what}: ${res.status} ${body}`);
    assert.doesNotMatch(body, /supabase_admin|authenticator|rolsuper|rolpassword/, `${what}: no catalogue data`);
    assert.doesNotMatch(body, /_pgrst_|json_agg|row_to_json|set_config/, `${what}: no SQL of ours`);
    assert.doesNotMatch(body, /hidden-value/, `${what}: no column the caller may not read`);
    return body;
  };

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    await p.adminPool.query(`
      create table public.notes (id int primary key, title text not null, secret text, meta jsonb not null default '{}');
      alter table public.notes enable row level security;
      create policy "read" on public.notes for select to anon using (true);
      create policy "write" on public.notes for insert to anon with check (true);
      revoke select on public.notes from anon;
      grant select (id, title, meta) on public.notes to anon;
      create table public.tags (id int primary key, note_id int references public.notes, label text);
      alter table public.tags enable row level security;
      create policy "read" on public.tags for select to anon using (true);
      create function public.echo(word text) returns text language sql stable as $$ select word $$;
      insert into public.notes values (1, 'first', 'hidden-value', '{"a":{"b":1}}'), (2, 'second', 'hidden-value', '{}');
      insert into public.tags values (1, 1, 'x');`);
    for (let i = 0; i < 100 && (await rest('/notes?select=id')).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(() => stopTestPlatform(p));

  it('the reported cast injection in select= reads nothing and changes nothing', async () => {
    const before = await snapshot();
    const q = encodeURIComponent('rolname::text from pg_roles r union all select null');
    const read = await rest(`/notes?select=${q}`);
    assert.equal(read.status, 400);
    await harmless(read, 'read');
    const write = await rest(`/notes?select=${encodeURIComponent('id::text from pg_roles union all select null')}`, {
      method: 'POST', body: JSON.stringify({ id: 9, title: 'x' }), headers: { 'content-type': 'application/json', prefer: 'return=representation' },
    });
    assert.equal(write.status, 400, 'the same cast in a write is a 400, not a 500');
    assert.deepEqual(await snapshot(), before, 'the refused write wrote nothing');
    const ok = await rest('/notes?select=id::text,title::varchar,meta->a->>b::int,n:id::bigint[]&id=eq.1');
    assert.equal(ok.status, 400, 'a cast of a scalar to an array is the database’s 400');
    const plain = await rest('/notes?select=id::text,title::VARCHAR,b:meta->a->>b::int,n:id::integer&id=eq.1');
    assert.equal(plain.status, 200, 'ordinary casts, aliases included, still work');
    assert.deepEqual(await plain.json(), [{ id: '1', title: 'first', b: 1, n: 1 }]);
    const unknownType = await rest('/notes?select=id::nosuchtype');
    assert.equal(unknownType.status, 400);
    const keyword = await rest('/notes?select=id::select');
    assert.equal(keyword.status, 400, 'a keyword as a type is a 400');
  });

  it('hostile text at every position gives 2xx or 4xx, leaks nothing, and changes nothing', async () => {
    const before = await snapshot();
    const positions: Array<[string, (h: string) => [string, RequestInit?]]> = [
      ['select column', (h) => [`/notes?select=${encodeURIComponent(h)}`]],
      ['select cast', (h) => [`/notes?select=${encodeURIComponent(`id::${h}`)}`]],
      ['select alias', (h) => [`/notes?select=${encodeURIComponent(`${h}:id`)}`]],
      ['json path', (h) => [`/notes?select=${encodeURIComponent(`meta->${h}->>b`)}`]],
      ['json path in filter', (h) => [`/notes?${encodeURIComponent(`meta->>${h}`)}=eq.1`]],
      ['embed name', (h) => [`/notes?select=${encodeURIComponent(`id,${h}(id)`)}`]],
      ['embed hint', (h) => [`/notes?select=${encodeURIComponent(`id,tags!${h}(id)`)}`]],
      ['embed alias', (h) => [`/notes?select=${encodeURIComponent(`id,${h}:tags(id)`)}`]],
      ['filter column', (h) => [`/notes?${encodeURIComponent(h)}=eq.1`]],
      ['filter operator', (h) => [`/notes?id=${encodeURIComponent(h)}.1`]],
      ['filter value', (h) => [`/notes?title=eq.${encodeURIComponent(h)}`]],
      ['in list', (h) => [`/notes?title=in.(${encodeURIComponent(`"${h}",b`)})`]],
      ['fts config', (h) => [`/notes?title=fts(${encodeURIComponent(h)}).x`]],
      ['or', (h) => [`/notes?or=(${encodeURIComponent(`id.eq.1,${h}`)})`]],
      ['order', (h) => [`/notes?order=${encodeURIComponent(h)}`]],
      ['order direction', (h) => [`/notes?order=id.${encodeURIComponent(h)}`]],
      ['limit', (h) => [`/notes?limit=${encodeURIComponent(h)}`]],
      ['embedded filter', (h) => [`/notes?select=id,tags(id)&tags.${encodeURIComponent(h)}=eq.1`]],
      ['on_conflict', (h) => [`/notes?on_conflict=${encodeURIComponent(h)}`, { method: 'POST', body: JSON.stringify({ id: 1, title: 'x' }), headers: { 'content-type': 'application/json', prefer: 'resolution=merge-duplicates' } }]],
      ['columns', (h) => [`/notes?columns=${encodeURIComponent(h)}`, { method: 'POST', body: JSON.stringify({ id: 50, title: 'x' }), headers: { 'content-type': 'application/json' } }]],
      ['body key', (h) => ['/notes', { method: 'POST', body: JSON.stringify({ id: 51, title: 'x', [h]: 1 }), headers: { 'content-type': 'application/json' } }]],
      ['rpc argument value', (h) => ['/rpc/echo', { method: 'POST', body: JSON.stringify({ word: h }), headers: { 'content-type': 'application/json' } }]],
      ['rpc argument name', (h) => ['/rpc/echo', { method: 'POST', body: JSON.stringify({ [h]: 'x' }), headers: { 'content-type': 'application/json' } }]],
      ['rpc name', (h) => [`/rpc/${encodeURIComponent(h)}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }]],
      ['table name', (h) => [`/${encodeURIComponent(h)}`]],
      ['profile header', (h) => ['/notes', { headers: { 'accept-profile': h.replace(/[^\x20-\x7e]/g, '') } }]],
      ['prefer header', (h) => ['/notes', { headers: { prefer: `count=${h.replace(/[^\x20-\x7e]/g, '')}` } }]],
    ];
    for (const [where, build] of positions) {
      for (const h of HOSTILE) {
        const [path, init] = build(h);
        const body = await harmless(await rest(path, init), `${where} ← ${JSON.stringify(h)}`);
        if (where === 'rpc argument value') assert.equal(JSON.parse(body), h, 'an argument is data, echoed back as sent');
      }
    }
    const after = await snapshot();
    // Inserts through the API may have added rows 50 and 51 (hostile keys refused, plain ones not): the first rows never change.
    assert.deepEqual(after.filter((r) => r.id < 50), before, 'no existing row changed');
    assert.equal((await p.adminPool.query(`select count(*)::int as n from pg_tables where tablename = 'notes'`)).rows[0].n, 1, 'no table dropped');
  });

  it('oversized lists and nesting are refused or served, never a 500', async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i).join(',');
    const huge = await rest(`/notes?select=id&id=in.(${ids(10_000)})`);
    assert.equal(huge.status, 431, 'a 10,000-item in.() is past the 16 KB request-line limit');
    const big = await rest(`/notes?select=id&id=in.(${ids(2_000)})`);
    assert.equal(big.status, 200, 'a 2,000-item in.() is served');
    assert.deepEqual(await big.json(), [{ id: 1 }, { id: 2 }]);
    const nest = (n: number) => 'or('.repeat(n - 1) + 'id.eq.1' + ')'.repeat(n - 1);
    const deep200 = await rest(`/notes?or=(${nest(200)})`);
    assert.equal(deep200.status, 400);
    assert.match((await deep200.json() as { message: string }).message, /nested more than 32 levels/);
    const deep = await rest(`/notes?or=(${nest(3400)})`);
    assert.equal(deep.status, 400, 'a 14 KB URL of nesting (3,400 levels) is a 400');
    const fine = await rest(`/notes?select=id&or=(${nest(10)})`);
    assert.equal(fine.status, 200, 'ten levels are fine');
    assert.deepEqual(await fine.json(), [{ id: 1 }]);
  });
});
