// Publishable and secret API keys (issue 49, sql/0112) through the official
// supabase-js, unchanged: a publishable key signs users up and reads rows
// under RLS, lists public buckets and joins a realtime channel, as anon; a
// secret key is the service role (the admin API, every row) but is refused
// from a browser (an Origin header or a browser's User-Agent). Keys are made,
// listed and deleted from the control plane; a deleted key stops at once.
// The legacy JWT keys turned off are refused everywhere at once (tokens of
// the same secret still pass), and back on they work again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { setupOperator, type Operator } from '../helpers/studio.ts';

type ListedKey = { id: string; name: string; type: string; shown: string; api_key: string | null };

describe('publishable and secret API keys', () => {
  let p: TestPlatform;
  let ops: Operator;
  let publishable: string;
  let secret: string;
  const keysPath = () => `/api/platform/auth/${p.config.PROJECT_REF}/api-keys`;
  const client = (key: string) => createClient(p.url, key, { auth: { persistSession: false, autoRefreshToken: false } });

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    await p.adminPool.query(`create table public.posts (id serial primary key, owner uuid default auth.uid(), body text, public boolean default false);
      alter table public.posts enable row level security;
      create policy read on public.posts for select using (public or owner = auth.uid());
      create policy write on public.posts for insert with check (owner = auth.uid());
      grant select on public.posts to anon, authenticated; grant insert on public.posts to authenticated; grant usage on sequence public.posts_id_seq to authenticated;
      insert into public.posts (body, public) values ('for everyone', true), ('hidden', false);
      insert into storage.buckets (id, name, public) values ('pictures', 'pictures', true);
      create policy "public buckets" on storage.buckets for select using (public);
      notify pgrst, 'reload schema';`);
    ops = await setupOperator(p);
    const listed = await ops.json<ListedKey[]>(`${keysPath()}?reveal=true`, 200);
    publishable = listed.find((k) => k.type === 'publishable')!.api_key!;
    secret = listed.find((k) => k.type === 'secret')!.api_key!;
  });
  after(() => stopTestPlatform(p));

  it('starts a project with one of each, listed masked unless revealed', async () => {
    const listed = await ops.json<ListedKey[]>(keysPath(), 200);
    assert.deepEqual(listed.map((k) => [k.name, k.type, k.api_key]), [['default', 'publishable', null], ['default secret', 'secret', null]]);
    assert.match(listed[0]!.shown, /^sb_publishable_[\w-]{6}…$/);
    assert.match(publishable, /^sb_publishable_[\w-]{43}$/);
    assert.match(secret, /^sb_secret_[\w-]{43}$/);
  });

  it('a publishable key acts as anon on REST, identity, storage and realtime, through supabase-js', async () => {
    const anon = client(publishable);
    assert.deepEqual((await anon.from('posts').select('body')).data, [{ body: 'for everyone' }]);
    const { data: signedUp, error } = await anon.auth.signUp({ email: 'pub-key@example.com', password: 'a-good-password' });
    assert.equal(error, null);
    assert.ok(signedUp.session);
    assert.equal((await anon.from('posts').insert({ body: 'mine' })).error, null, 'the user\'s session decides the role once signed in');
    assert.deepEqual((await anon.from('posts').select('body').order('id')).data, [{ body: 'for everyone' }, { body: 'mine' }]);
    const { data: bucket, error: bucketError } = await client(publishable).storage.getBucket('pictures');
    assert.equal(bucketError, null);
    assert.equal(bucket!.public, true);

    const channel = client(publishable).channel('room-1');
    const status = await new Promise<string>((resolve) => channel.subscribe((s) => { if (s !== 'CLOSED') resolve(s); }));
    assert.equal(status, 'SUBSCRIBED');
    await channel.unsubscribe();
  });

  it('a secret key is the service role, refused from a browser', async () => {
    const admin = client(secret);
    const { data, error } = await admin.auth.admin.listUsers();
    assert.equal(error, null);
    assert.ok(data.users.some((u) => u.email === 'pub-key@example.com'));
    assert.equal((await admin.from('posts').select('body')).data!.length, 3, 'every row, past RLS');
    assert.equal((await client(publishable).auth.admin.listUsers()).error?.status, 403, 'the publishable key is no admin');

    for (const headers of [{ origin: 'https://app.example.com' }, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36' }]) {
      const res = await fetch(`${p.url}/rest/v1/posts`, { headers: { apikey: secret, authorization: `Bearer ${secret}`, ...headers } });
      assert.equal(res.status, 401);
      assert.match(await res.text(), /Forbidden use of secret API key in browser/);
    }
    const socketStatus = (headers: Record<string, string>) => new Promise<number>((resolve) => {
      const ws = new WebSocket(`${p.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${encodeURIComponent(secret)}&vsn=1.0.0`, { headers });
      ws.on('open', () => { resolve(101); ws.terminate(); });
      ws.on('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); ws.terminate(); });
      ws.on('error', () => undefined);
    });
    assert.equal(await socketStatus({}), 101, 'a server\'s socket with the secret key');
    assert.equal(await socketStatus({ origin: 'https://app.example.com' }), 401, 'a browser\'s is refused');
    const fromBrowser = createClient(p.url, secret, { auth: { persistSession: false }, global: { headers: { origin: 'http://localhost:3000' } } });
    assert.equal((await fromBrowser.from('posts').select('body')).error?.code, 'secret_key_in_browser');
    const browser = await fetch(`${p.url}/rest/v1/posts`, { headers: { apikey: publishable, authorization: `Bearer ${publishable}`, origin: 'https://app.example.com' } });
    assert.equal(browser.status, 200, `the publishable key is for browsers: ${await browser.clone().text()}`);
  });

  it('makes, names and deletes keys from the control plane; a deleted key stops at once; a made-up one never works', async () => {
    const made = await ops.json<{ id: string; name: string; type: string; api_key: string }>(keysPath(), 201, { method: 'POST', body: { type: 'secret', name: 'billing worker' } });
    assert.match(made.api_key, /^sb_secret_/);
    const worker = client(made.api_key);
    assert.equal((await worker.from('posts').select('id')).error, null);
    assert.equal((await ops.call(keysPath(), { method: 'POST', body: { type: 'secret', name: 'billing worker' } })).status, 409, 'names are unique');
    assert.equal((await ops.call(keysPath(), { method: 'POST', body: { type: 'admin', name: 'x' } })).status, 400);
    await ops.json(`${keysPath()}/${made.id}`, 200, { method: 'DELETE' });
    const res = await fetch(`${p.url}/rest/v1/posts`, { headers: { apikey: made.api_key } });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { message: string }).message, 'Invalid API key');
    const forged = `sb_secret_${'A'.repeat(43)}`;
    assert.equal((await fetch(`${p.url}/rest/v1/posts`, { headers: { apikey: forged } })).status, 401);
    assert.equal((await fetch(`${p.url}/rest/v1/posts`, { headers: { apikey: publishable.replace('sb_publishable_', 'sb_secret_') } })).status, 401, 'a key is only the type it was made as');
    const { rows } = await p.adminPool.query<{ action: string }>(`select action from studio.audit_log where action like '%api_key' order by id`);
    assert.deepEqual(rows.map((r) => r.action), ['create_api_key', 'delete_api_key']);
  });

  it('turns the legacy JWT keys off: refused on every surface at once, the new keys and user tokens go on; back on, they work', async () => {
    const legacyPath = `${keysPath()}/legacy`;
    assert.deepEqual(await ops.json(legacyPath, 200), { enabled: true });
    const session = (await client(publishable).auth.signInWithPassword({ email: 'pub-key@example.com', password: 'a-good-password' })).data.session!;
    await ops.json(legacyPath, 200, { method: 'PUT', body: { enabled: false } });

    const refused = await fetch(`${p.url}/rest/v1/posts`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}` } });
    assert.equal(refused.status, 401);
    assert.match(((await refused.json()) as { message: string }).message, /^Legacy API keys are disabled/);
    assert.equal((await client(p.keys.serviceRoleKey).auth.admin.listUsers()).error?.status, 401);
    const socket = await fetch(`${p.url}/realtime/v1/api/broadcast`, { method: 'POST', headers: { apikey: p.keys.serviceRoleKey, 'content-type': 'application/json' }, body: '{"messages":[]}' });
    assert.equal(socket.status, 401, 'realtime too');
    assert.equal((await fetch(`${p.url}/rest/v1/posts`, { headers: { apikey: publishable, authorization: `Bearer ${session.access_token}` } })).status, 200, 'a user\'s token signed by the same secret still passes');
    assert.equal((await client(secret).from('posts').select('id')).error, null);

    const onlySecret = (await ops.json<ListedKey[]>(keysPath(), 200)).filter((k) => k.type === 'secret');
    assert.equal(onlySecret.length, 1);
    const last = await ops.call(`${keysPath()}/${onlySecret[0]!.id}`, { method: 'DELETE' });
    assert.equal(last.status, 409, 'the last secret key stays while the legacy keys are off');

    await ops.json(legacyPath, 200, { method: 'PUT', body: { enabled: true } });
    assert.equal((await fetch(`${p.url}/rest/v1/posts`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}` } })).status, 200);
  });
});
