// The rest of PostgREST's operators, HEAD, and schema profiles.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('row REST: operators, HEAD and profiles', () => {
  let p: TestPlatform;
  const ids = async (qs: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${p.url}/rest/v1/docs?select=id&order=id&${qs}`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, ...headers } });
    assert.equal(res.status, 200, `${qs}: ${await res.clone().text()}`);
    return ((await res.json()) as Array<{ id: number }>).map((r) => r.id);
  };

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', REST_SCHEMAS: 'public,api' });
    await p.adminPool.query(`
      create table public.docs (id int primary key, title text, body tsvector, span int4range, score int, tags text[]);
      insert into public.docs values
        (1, 'The Quick Fox', to_tsvector('english', 'the quick brown fox jumps'), '[1,5)', 10, '{a,b}'),
        (2, 'lazy dog', to_tsvector('english', 'a lazy dog sleeps all day'), '[5,9)', null, '{b}'),
        (3, 'Fox and dog', to_tsvector('english', 'the fox and the dog are friends'), '[20,30)', 30, '{}');
      create schema api;
      grant usage on schema api to anon, authenticated, service_role;
      create table api.docs (id int primary key, title text);
      grant all on api.docs to anon, authenticated, service_role;
      insert into api.docs values (100, 'in api');
      notify pgrst, 'reload schema';`);
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${p.url}/rest/v1/docs`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'Accept-Profile': 'api' } });
      if (res.status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => stopTestPlatform(p));

  it('matches regular expressions, distinctness and full-text search', async () => {
    assert.deepEqual(await ids('title=match.^[A-Z]'), [1, 3]);
    assert.deepEqual(await ids('title=imatch.fox'), [1, 3]);
    assert.deepEqual(await ids('score=isdistinct.10'), [2, 3]);
    assert.deepEqual(await ids('body=fts.fox'), [1, 3]);
    assert.deepEqual(await ids('body=fts(english).jumping'), [1]);
    assert.deepEqual(await ids('body=plfts.lazy dog'), [2]);
    assert.deepEqual(await ids('body=phfts(english).lazy dog'), [2]);
    assert.deepEqual(await ids('body=wfts(english).fox -quick'), [3]);
    assert.deepEqual(await ids('body=not.fts.fox'), [2]);
  });

  it('compares arrays and ranges, with any/all modifiers', async () => {
    assert.deepEqual(await ids('tags=cd.{a,b,c}'), [1, 2, 3]);
    assert.deepEqual(await ids('span=sl.[10,11)'), [1, 2]);
    assert.deepEqual(await ids('span=sr.[10,11)'), [3]);
    // nxr is &< (does not extend to the right of), nxl is &> (does not extend to the left of), as PostgREST maps them.
    assert.deepEqual(await ids('span=nxr.[6,7)'), [1]);
    assert.deepEqual(await ids('span=nxl.[3,4)'), [2, 3]);
    assert.deepEqual(await ids('span=adj.[9,20)'), [2, 3]);
    assert.deepEqual(await ids('title=like(any).{*Fox*,lazy*}'), [1, 2, 3]);
    assert.deepEqual(await ids('title=like(any).{*Quick*,lazy*}'), [1, 2]);
    assert.deepEqual(await ids('title=ilike(all).{*fox*,*the*}'), [1]);
    assert.deepEqual(await ids('score=gt(any).{20,25}'), [3]);
  });

  it('answers HEAD with headers only', async () => {
    const res = await fetch(`${p.url}/rest/v1/docs`, { method: 'HEAD', headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, Prefer: 'count=exact' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-range'), '0-2/3');
    assert.equal(await res.text(), '');
  });

  it('picks the schema with Accept-Profile and Content-Profile, within REST_SCHEMAS only', async () => {
    assert.deepEqual(await ids('', { 'Accept-Profile': 'api' }), [100]);
    const write = await fetch(`${p.url}/rest/v1/docs`, {
      method: 'POST',
      headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'Content-Profile': 'api', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 101, title: 'also api' }),
    });
    assert.equal(write.status, 201);
    assert.deepEqual(await ids('', { 'Accept-Profile': 'api' }), [100, 101]);
    const refused = await fetch(`${p.url}/rest/v1/users`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'Accept-Profile': 'auth' } });
    assert.equal(refused.status, 406);
    assert.deepEqual(await refused.json(), { code: 'PGRST106', message: 'The schema must be one of the following: public, api', details: null, hint: null, error: 'invalid_request' });
  });
});
