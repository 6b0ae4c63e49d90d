// PostgREST's in-database configuration: settings a DBA puts on the
// authenticator role take effect after NOTIFY pgrst, 'reload config', with
// no restart; where the environment sets one too, the environment wins.
// Settings go on the role *in this test's database* only (roles are the
// cluster's, and other files run beside this one).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/log.ts';
import { RestConfig } from '../../server/rest/settings.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('row REST: in-database configuration', () => {
  let p: TestPlatform;
  const service = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` });
  const rest = (path: string, headers: Record<string, string> = {}) => fetch(`${p.url}/rest/v1${path}`, { headers: { ...service(), ...headers } });
  const db = () => createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });

  /** Sets pgrst.<name> on the authenticator role in this database (null: resets it) and reloads the config. */
  const setting = async (name: string, value: string | null) => {
    const database = (await p.adminPool.query<{ db: string }>('select current_database() as db')).rows[0]!.db;
    const quoted = `"${database.replace(/"/g, '""')}"`;
    await p.adminPool.query(value === null
      ? `alter role authenticator in database ${quoted} reset pgrst.${name}`
      : `alter role authenticator in database ${quoted} set pgrst.${name} = '${value.replace(/'/g, "''")}'`);
    await p.adminPool.query(`notify pgrst, 'reload config'`);
  };
  /** Polls until `check` holds (the reload is asynchronous, like PostgREST's). */
  const until = async (what: string, check: () => Promise<boolean>) => {
    for (let i = 0; i < 200; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.fail(`never: ${what}`);
  };

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    await p.adminPool.query(`
      create table public.items (id int primary key, kind text not null);
      insert into public.items select i, case when i % 2 = 0 then 'even' else 'odd' end from generate_series(1, 6) i;
      create table public.hidden (id int primary key);
      revoke all on public.hidden from anon, authenticated;
      create schema helpers;
      create function helpers.triple(n int) returns int language sql immutable as $$ select n * 3 $$;
      grant usage on schema helpers to anon, authenticated, service_role;
      create function public.use_helper(n int) returns int language plpgsql stable as $$ begin return triple(n); end $$;
      create table public.guard_log (at timestamptz default now(), path text);
      create function public.guard() returns void language plpgsql as $$
      begin
        if current_setting('request.headers', true)::json->>'x-blocked' = 'yes' then
          raise sqlstate 'PT403' using message = 'blocked by the pre-request function', hint = 'BLOCKED';
        end if;
      end $$;
      create schema api2;
      create table api2.things (id int primary key);
      insert into api2.things values (7);
      grant usage on schema api2 to anon, authenticated, service_role;
      grant select on api2.things to anon, authenticated, service_role;
      notify pgrst, 'reload schema';`);
    await until('the schema cache sees items', async () => (await rest('/items?select=id')).status === 200);
  });
  after(async () => {
    await stopTestPlatform(p);
  });

  it('db_aggregates_enabled and db_plan_enabled turn on with a reload, and off again', async () => {
    assert.equal((await db().from('items').select('count()')).error?.code, 'PGRST123');
    await setting('db_aggregates_enabled', 'true');
    await setting('db_plan_enabled', 'true');
    // Each setting came with its own reload: both are waited for (the second may land after the first).
    const planStatus = async () => (await rest('/items?select=id', { accept: 'application/vnd.pgrst.plan+json' })).status;
    await until('aggregates and plans on', async () => (await db().from('items').select('kind, count()')).status === 200 && (await planStatus()) === 200);
    const { data } = await db().from('items').select('kind, count()').order('kind');
    assert.deepEqual(data, [{ kind: 'even', count: 3 }, { kind: 'odd', count: 3 }]);
    await setting('db_aggregates_enabled', null);
    await setting('db_plan_enabled', 'false');
    await until('aggregates and plans off', async () => (await db().from('items').select('count()')).status === 400 && (await planStatus()) === 406);
  });

  it('db_max_rows caps a read and a function\'s rows, below a smaller limit', async () => {
    await setting('db_max_rows', '4');
    await until('max rows', async () => ((await db().from('items').select('id')).data ?? []).length === 4);
    const res = await rest('/items?select=id&order=id', { prefer: 'count=exact' });
    assert.deepEqual(await res.json(), [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
    assert.equal(res.headers.get('content-range'), '0-3/6');
    assert.equal(((await db().from('items').select('id').limit(2)).data ?? []).length, 2, 'a smaller limit stays');
    await p.adminPool.query(`create function public.all_items() returns setof public.items language sql stable as $$ select * from public.items order by id $$; notify pgrst, 'reload schema'`);
    await until('the function', async () => (await db().rpc('all_items')).status === 200);
    assert.deepEqual(((await db().rpc('all_items')).data as Array<{ id: number }>).map((r) => r.id), [1, 2, 3, 4]);
    await setting('db_max_rows', null);
    await until('no cap', async () => ((await db().from('items').select('id')).data ?? []).length === 6);
  });

  it('db_pre_request runs before each request, as the caller, and its error is the answer', async () => {
    await setting('db_pre_request', 'public.guard');
    await until('the guard', async () => (await rest('/items?select=id', { 'x-blocked': 'yes' })).status === 403);
    const refused = await rest('/items?select=id', { 'x-blocked': 'yes' });
    const body = (await refused.json()) as Record<string, unknown>;
    assert.deepEqual([body.code, body.message], ['BLOCKED', 'blocked by the pre-request function']);
    // A write is refused before it happens: nothing is inserted.
    const write = await db().from('items').insert({ id: 99, kind: 'odd' }).setHeader('x-blocked', 'yes');
    assert.equal(write.status, 403);
    assert.equal((await p.adminPool.query('select count(*)::int as n from public.items where id = 99')).rows[0]!.n, 0);
    assert.equal((await rest('/items?select=id&id=eq.1')).status, 200, 'an unblocked request passes');
    await setting('db_pre_request', null);
    await until('no guard', async () => (await rest('/items?select=id', { 'x-blocked': 'yes' })).status === 200);
  });

  it('db_extra_search_path decides what unqualified names in a function find', async () => {
    const before = await db().rpc('use_helper', { n: 2 });
    assert.equal(before.error?.code, '42883', 'helpers is not searched by default');
    await setting('db_extra_search_path', 'public, extensions, helpers');
    await until('helpers searched', async () => (await db().rpc('use_helper', { n: 2 })).data === 6);
    await setting('db_extra_search_path', null);
    await until('helpers not searched', async () => (await db().rpc('use_helper', { n: 2 })).status !== 200);
  });

  it('openapi_mode: disabled answers 404 PGRST126; ignore-privileges describes what the caller may not read', async () => {
    const anon = () => fetch(`${p.url}/rest/v1/`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}` } });
    const followed = (await (await anon()).json()) as { paths: Record<string, unknown> };
    assert.ok(followed.paths['/items'] && !followed.paths['/hidden'], 'follows privileges by default');
    await setting('openapi_mode', 'ignore-privileges');
    await until('ignore-privileges', async () => !!((await (await anon()).json()) as { paths: Record<string, unknown> }).paths['/hidden']);
    await setting('openapi_mode', 'disabled');
    await until('disabled', async () => (await anon()).status === 404);
    const body = (await (await anon()).json()) as Record<string, unknown>;
    assert.deepEqual([body.code, body.message], ['PGRST126', 'Root endpoint metadata is disabled']);
    await setting('openapi_mode', null);
    await until('back', async () => (await anon()).status === 200);
  });

  it('db_schemas exposes another schema after a reload, without a restart', async () => {
    const other = () => createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false }, db: { schema: 'api2' } });
    assert.equal((await other().from('things').select('id')).error?.code, 'PGRST106');
    await setting('db_schemas', 'public, api2');
    await until('api2 exposed', async () => (await other().from('things').select('id')).status === 200);
    assert.deepEqual((await other().from('things').select('id')).data, [{ id: 7 }]);
    assert.equal((await db().from('items').select('id').eq('id', 1)).status, 200, 'public stays the default');
    await setting('db_schemas', null);
    await until('api2 gone', async () => (await other().from('things').select('id')).status === 406);
  });

  it('the environment wins over the database; a value that does not parse is left out with a warning', async () => {
    await setting('db_max_rows', '2');
    await setting('db_plan_enabled', 'true');
    await setting('db_aggregates_enabled', 'lots');
    let warned = '';
    const log = createLogger('warn', { write: (chunk: string | Buffer) => ((warned += String(chunk)), true) } as unknown as NodeJS.WritableStream);
    const fromEnv = new RestConfig({ config: loadConfig({ REST_MAX_ROWS: '5', REST_PLAN_ENABLED: 'false' }), pool: p.adminPool, log });
    const read = await fromEnv.load();
    assert.equal(read.maxRows, 5, 'REST_MAX_ROWS wins');
    assert.equal(read.plan, false, 'REST_PLAN_ENABLED wins, though it says the default');
    assert.equal(read.aggregates, false, 'a bad value keeps the default');
    assert.match(warned, /pgrst\.db_aggregates_enabled/);
    const fromDb = await new RestConfig({ config: loadConfig({}), pool: p.adminPool, log }).load();
    assert.deepEqual([fromDb.maxRows, fromDb.plan], [2, true], 'unset in the environment, the database decides');
    for (const name of ['db_max_rows', 'db_plan_enabled', 'db_aggregates_enabled']) await setting(name, null);
  });
});
