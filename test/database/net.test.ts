// HTTP from SQL and Database Webhooks (issue 50, item 3; sql/0123,
// worker/net.ts) against a real receiver on 127.0.0.1: a request queued in a
// transaction that rolls back is never sent, one that commits is sent once
// and its answer stored; a private address not allowed is refused and says
// so; a Database Webhook as Supabase's dashboard creates it delivers INSERT,
// UPDATE and DELETE made through supabase-js; and the Supabase guide's
// "schedule a function call" (Cron, pg_net and Vault together), its
// schedule shortened from 30 to 2 seconds.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@supabase/supabase-js';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Received = { method: string; path: string; headers: http.IncomingHttpHeaders; body: string };
type Response = { status_code: number | null; content: string | null; content_type: string | null; timed_out: boolean | null; error_msg: string | null };

describe('HTTP from SQL and Database Webhooks', () => {
  let p: TestPlatform;
  let receiver: http.Server;
  let base: string;
  const received: Received[] = [];

  const response = (id: string) => eventually(`the answer to request ${id}`,
    async () => (await p.adminPool.query<Response>('select * from net._http_response where id = $1', [id])).rows[0],
    (r) => r !== undefined, { tries: 100, everyMs: 50 });

  before(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push({ method: req.method!, path: req.url!, headers: req.headers, body });
        if (req.url!.startsWith('/slow')) return void setTimeout(() => res.end('late'), 1500);
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path: req.url }));
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    p = await startTestPlatform({ LOG_LEVEL: 'warn', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
  });
  after(async () => {
    await stopTestPlatform(p);
    receiver.close();
  });

  it('sends nothing for a transaction that rolls back, and once for one that commits, with the answer stored', async () => {
    const client = await p.adminPool.connect();
    try {
      await client.query('begin');
      await client.query(`select net.http_post(url := $1, body := '{"hello": "rolled back"}'::jsonb)`, [`${base}/rollback`]);
      await client.query('rollback');
      await client.query('begin');
      const { rows: [queued] } = await client.query<{ id: string }>(`select net.http_post(url := $1, body := '{"hello": "world"}'::jsonb) as id`, [`${base}/post`]);
      await sleep(300);
      assert.equal(received.filter((r) => r.path === '/post').length, 0, 'nothing before the commit');
      await client.query('commit');
      const answer = await response(queued!.id);
      assert.deepEqual([answer!.status_code, answer!.content_type, JSON.parse(answer!.content!)], [201, 'application/json', { ok: true, path: '/post' }]);
    } finally {
      client.release();
    }
    await sleep(500);
    const posts = received.filter((r) => r.path === '/post');
    assert.equal(posts.length, 1, 'sent once');
    assert.deepEqual([posts[0]!.method, posts[0]!.headers['content-type'], JSON.parse(posts[0]!.body)], ['POST', 'application/json', { hello: 'world' }]);
    assert.equal(received.filter((r) => r.path === '/rollback').length, 0, 'the rolled-back one never');
  });

  it('sends a GET with its params, a DELETE, and records a timeout', async () => {
    const { rows: [ids] } = await p.adminPool.query<{ get: string; del: string; slow: string }>(
      `select net.http_get($1 || '/get?foo1=bar1', params := '{"foo2": "bar 2"}'::jsonb) as get,
              net.http_delete($1 || '/delete') as del,
              net.http_get($1 || '/slow', timeout_milliseconds := 300) as slow`, [base]);
    assert.equal((await response(ids!.get))!.status_code, 201);
    assert.equal((await response(ids!.del))!.status_code, 201);
    assert.ok(received.some((r) => r.method === 'GET' && r.path === '/get?foo1=bar1&foo2=bar%202'), 'params appended to the query string');
    assert.ok(received.some((r) => r.method === 'DELETE' && r.path === '/delete'));
    const slow = await response(ids!.slow);
    assert.deepEqual([slow!.status_code, slow!.timed_out, slow!.error_msg], [null, true, 'Timeout of 300 ms reached']);
  });

  it('refuses a private address not allowed, and a malformed URL at once', async () => {
    const { rows: [q] } = await p.adminPool.query<{ id: string }>(`select net.http_get('http://10.20.30.40/internal') as id`);
    const refused = await response(q!.id);
    assert.equal(refused!.status_code, null);
    assert.match(refused!.error_msg!, /private addresses are refused \(10\.20\.30\.40\)/);
    await assert.rejects(p.adminPool.query(`select net.http_get('not a url')`), /Invalid URL: not a url/);
  });

  it('delivers a Database Webhook\'s INSERT, UPDATE and DELETE of rows changed through supabase-js', async () => {
    await p.adminPool.query(`
      create table public.orders (id bigint primary key, total int not null);
      alter table public.orders enable row level security;
      create policy "anyone" on public.orders for all to anon using (true) with check (true);
      grant select, insert, update, delete on public.orders to anon;
      create trigger "orders_hook" after insert or update or delete on "public"."orders"
        for each row execute function "supabase_functions"."http_request"('${base}/hook', 'POST', '{"Content-Type":"application/json","X-Secret":"s3"}', '{}', '1000');
      notify pgrst, 'reload schema';`);
    const anon = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const inserted = await eventually('orders in the schema cache', async () => await anon.from('orders').insert({ id: 1, total: 10 }), (r) => r.error?.code !== 'PGRST205');
    assert.equal(inserted.error, null);
    assert.equal((await anon.from('orders').update({ total: 20 }).eq('id', 1)).error, null);
    assert.equal((await anon.from('orders').delete().eq('id', 1)).error, null);
    const hooks = await eventually('three deliveries', async () => received.filter((r) => r.path === '/hook'), (h) => h.length >= 3, { tries: 100, everyMs: 50 });
    const bodies = hooks.map((h) => JSON.parse(h.body) as Record<string, unknown>).sort((a, b) => ['INSERT', 'UPDATE', 'DELETE'].indexOf(a.type as string) - ['INSERT', 'UPDATE', 'DELETE'].indexOf(b.type as string));
    assert.deepEqual(bodies, [
      { type: 'INSERT', table: 'orders', schema: 'public', record: { id: 1, total: 10 }, old_record: null },
      { type: 'UPDATE', table: 'orders', schema: 'public', record: { id: 1, total: 20 }, old_record: { id: 1, total: 10 } },
      { type: 'DELETE', table: 'orders', schema: 'public', record: null, old_record: { id: 1, total: 20 } },
    ]);
    assert.equal(hooks[0]!.headers['x-secret'], 's3');
    const { rows: [logged] } = await p.adminPool.query<{ n: number }>(`select count(*)::int as n from supabase_functions.hooks where hook_name = 'orders_hook' and request_id is not null`);
    assert.equal(logged!.n, 3);
  });

  it('runs the guide\'s scheduled function call: Cron, pg_net and Vault together', async () => {
    await p.adminPool.query(`select vault.create_secret($1, 'project_url')`, [base]);
    await p.adminPool.query(`select vault.create_secret('anon-key-123', 'anon_key')`);
    await p.adminPool.query(`select cron.schedule(
      'invoke-function-every-half-minute',
      '2 seconds',
      $$
      select net.http_post(
          url:= (select decrypted_secret from vault.decrypted_secrets where name = 'project_url') || '/functions/v1/function-name',
          headers:=jsonb_build_object('Content-type', 'application/json', 'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'anon_key')),
          body:=concat('{"time": "', now(), '"}')::jsonb
      ) as request_id;
      $$
    )`);
    const calls = await eventually('the scheduled call', async () => received.filter((r) => r.path === '/functions/v1/function-name'), (c) => c.length > 0, { tries: 100, everyMs: 50 });
    assert.equal(calls[0]!.headers.authorization, 'Bearer anon-key-123');
    assert.ok(typeof (JSON.parse(calls[0]!.body) as { time: string }).time === 'string');
    await p.adminPool.query(`select cron.unschedule('invoke-function-every-half-minute')`);
  });
});
