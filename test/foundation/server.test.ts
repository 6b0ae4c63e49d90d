import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { signToken } from '../../server/keys.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('project API server', () => {
  let p: TestPlatform;
  before(async () => {
    // A stand-in surface, mounted the way real surfaces are, to observe the gate and draining.
    const probe = express.Router();
    probe.get('/whoami', (req, res) => {
      res.json({ role: req.auth?.role, sub: req.auth?.claims.sub ?? null });
    });
    probe.get('/slow', (_req, res) => {
      setTimeout(() => res.json({ finished: true }), 600);
    });
    probe.get('/boom', () => {
      throw new Error('internal detail: password=hunter2');
    });
    p = await startTestPlatform({}, { surfaces: [{ prefix: '/api', router: probe }] });
  });
  after(async () => stopTestPlatform(p));

  it('answers /health with 200 {"status":"ok"} on both ports', async () => {
    for (const base of [p.url, p.platformUrl]) {
      const res = await fetch(`${base}/health`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: 'ok' });
    }
  });

  it('answers browser preflights without a key, and lets pages read the headers the clients need', async () => {
    const preflight = await fetch(`${p.url}/storage/v1/upload/resumable`, {
      method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'apikey, authorization, upload-length, tus-resumable' },
    });
    assert.equal(preflight.status, 204, 'no apikey is needed for a preflight');
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    for (const h of ['apikey', 'authorization', 'x-client-info', 'upload-length', 'tus-resumable', 'prefer']) {
      assert.ok(preflight.headers.get('access-control-allow-headers')!.split(', ').includes(h), h);
    }
    const actual = await fetch(`${p.url}/rest/v1/`, { headers: { origin: 'https://app.example' } });
    assert.equal(actual.status, 401, 'the request itself still needs a key');
    assert.equal(actual.headers.get('access-control-allow-origin'), '*', 'and its error is readable by the page');
    assert.match(actual.headers.get('access-control-expose-headers') ?? '', /content-range/);
  });

  it('gives every request an id, echoing a sane one it was sent', async () => {
    const generated = await fetch(`${p.url}/health`);
    assert.match(generated.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/);
    const echoed = await fetch(`${p.url}/health`, { headers: { 'x-request-id': 'trace-abc.123' } });
    assert.equal(echoed.headers.get('x-request-id'), 'trace-abc.123');
    const replaced = await fetch(`${p.url}/health`, { headers: { 'x-request-id': 'bad id <script>' } });
    assert.match(replaced.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/);
  });

  it('refuses a missing key with 401 in each surface’s own error shape', async () => {
    const cases: Array<[string, unknown]> = [
      ['/auth/v1/user', { code: 401, error_code: 'no_api_key', msg: 'No API key found in request' }],
      ['/rest/v1/todos', { code: 'no_api_key', message: 'No API key found in request', details: null, hint: null, error: 'unauthorized' }],
      ['/storage/v1/bucket', { statusCode: '401', error: 'no_api_key', message: 'No API key found in request' }],
      ['/api/whoami', { error: 'No API key found in request' }],
      ['/graphql/v1', { errors: [{ message: 'No API key found in request', extensions: { code: 'no_api_key' } }] }],
    ];
    for (const [path, body] of cases) {
      const res = await fetch(`${p.url}${path}`);
      assert.equal(res.status, 401, path);
      assert.deepEqual(await res.json(), body, path);
    }
  });

  it('refuses keys with alg none, a wrong signature or a past exp', async () => {
    const anon = p.keys.anonKey;
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ role: 'service_role' })}.`;
    const tampered = `${anon.split('.')[0]}.${b64({ iss: 'pgbase', ref: 'default', role: 'service_role' })}.${anon.split('.')[2]}`;
    const expired = await signToken(p.keys.jwtSecret, { role: 'anon' }, -60);
    for (const [key, message] of [[none, 'Invalid API key'], [tampered, 'Invalid API key'], [expired, 'API key has expired']] as const) {
      const res = await fetch(`${p.url}/api/whoami`, { headers: { apikey: key } });
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: message });
    }
    const badBearer = await fetch(`${p.url}/api/whoami`, { headers: { apikey: anon, authorization: `Bearer ${none}` } });
    assert.equal(badBearer.status, 401);
    assert.deepEqual(await badBearer.json(), { error: 'Invalid JWT' });
  });

  it('lets valid keys through with the role of the key, or of the bearer token when one is sent', async () => {
    const anon = await fetch(`${p.url}/api/whoami`, { headers: { apikey: p.keys.anonKey } });
    assert.deepEqual(await anon.json(), { role: 'anon', sub: null });
    const service = await fetch(`${p.url}/api/whoami`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` } });
    assert.deepEqual(await service.json(), { role: 'service_role', sub: null });
    const user = await signToken(p.keys.jwtSecret, { role: 'authenticated', sub: '6f1c2d3e-0000-4000-8000-000000000001' }, 60);
    const asUser = await fetch(`${p.url}/api/whoami`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${user}` } });
    assert.deepEqual(await asUser.json(), { role: 'authenticated', sub: '6f1c2d3e-0000-4000-8000-000000000001' });
    const viaQuery = await fetch(`${p.url}/api/whoami?apikey=${p.keys.anonKey}`);
    assert.deepEqual(await viaQuery.json(), { role: 'anon', sub: null });
  });

  it('answers unknown routes with 404 in the surface’s shape, behind the gate', async () => {
    const res = await fetch(`${p.url}/storage/v1/nothing-here`, { headers: { apikey: p.keys.anonKey } });
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { statusCode: '404', error: 'not_found', message: 'No route for GET /nothing-here' });
    const root = await fetch(`${p.url}/nowhere`);
    assert.equal(root.status, 404);
    assert.deepEqual(await root.json(), { error: 'No route for GET /nowhere' });
  });

  it('turns an unexpected error into a 500 without internals, logged with its request id', async () => {
    const res = await fetch(`${p.url}/api/boom`, { headers: { apikey: p.keys.anonKey, 'x-request-id': 'boom-1' } });
    assert.equal(res.status, 500);
    const text = await res.text();
    assert.deepEqual(JSON.parse(text), { error: 'Internal server error' });
    assert.doesNotMatch(text, /hunter2|at .*\.ts/);
    const line = p.logs().split('\n').find((l) => l.includes('"boom-1"') && l.includes('"level":50'));
    assert.ok(line, 'the error is logged with the request id');
  });

  it('never logs keys or tokens', async () => {
    await fetch(`${p.url}/api/whoami?apikey=${p.keys.anonKey}&token=abc.def.ghi`, { headers: { authorization: `Bearer ${p.keys.serviceRoleKey}` } });
    const logs = p.logs();
    assert.ok(logs.includes('apikey=[REDACTED]'), 'the request was logged, with the query key masked');
    assert.ok(!logs.includes(p.keys.serviceRoleKey), 'service-role key absent from logs');
    assert.ok(!logs.includes(p.keys.jwtSecret), 'JWT secret absent from logs');
    assert.ok(!logs.includes('abc.def.ghi'), 'token query absent from logs');
    const startup = logs.split('\n').find((l) => l.includes('pgbase is up'));
    assert.ok(startup?.includes(p.keys.anonKey), 'startup prints the URL and the (publishable) anon key');
  });

  it('drains on stop: a request in flight completes, health reports draining, new connections are refused', async () => {
    const slow = fetch(`${p.url}/api/slow`, { headers: { apikey: p.keys.anonKey } });
    await new Promise((r) => setTimeout(r, 100));
    const stopping = p.stop();
    const res = await slow;
    const started = Date.now();
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { finished: true });
    assert.equal(p.health.draining, true);
    await stopping;
    assert.ok(Date.now() - started < 1500, 'shutdown does not wait out idle keep-alive connections');
    await assert.rejects(fetch(`${p.url}/health`), /fetch failed/);
  });
});

describe('three replicas starting together on a fresh database', () => {
  it('both come up healthy, with migrations applied once', async () => {
    const { freshDatabase, query } = await import('../helpers/db.ts');
    const db = await freshDatabase();
    const secret = 'a-shared-secret-of-at-least-32-characters!';
    const started = await Promise.allSettled([0, 1, 2].map(() => startTestPlatform({ JWT_SECRET: secret }, { databaseUrl: db.url })));
    const replicas = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    try {
      assert.deepEqual(started.map((r) => r.status), ['fulfilled', 'fulfilled', 'fulfilled'], String(started.find((r) => r.status === 'rejected')?.reason));
      for (const p of replicas) assert.equal((await fetch(`${p.url}/health`)).status, 200);
      assert.equal(new Set(replicas.map((p) => p.keys.anonKey)).size, 1, 'replicas sharing JWT_SECRET derive the same keys');
      const rows = await query<{ n: number; distinct: number }>(db.url, `select count(*)::int as n, count(distinct name)::int as distinct from platform.migrations`);
      assert.equal(rows[0]!.n, rows[0]!.distinct);
    } finally {
      for (const p of replicas) await p.stop();
      await db.drop();
    }
  });
});
