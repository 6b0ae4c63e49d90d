// A JSON body nested 5,000 deep (containment round 2, item 8) is a 400 in
// the surface's own shape on every surface that reads JSON, never a 500
// (it was on /auth/v1 signup, otp, user and admin, where signup and otp
// need only the anon key), and the database proxy names its own failures
// as its own instead of "The REST layer is unreachable".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signPlatformToken } from '../../server/keys.ts';
import { signUp } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('deep JSON bodies on every surface', () => {
  let p: TestPlatform;
  let user: string;
  let platformToken: string;
  const service = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` });
  const anon = () => ({ apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}` });
  const asUser = () => ({ apikey: p.keys.anonKey, authorization: `Bearer ${user}` });

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    user = (await signUp(p, 'deep-json@example.com')).access_token;
    await p.adminPool.query('create table public.items (id int primary key, name jsonb); grant all on public.items to authenticated, service_role');
    await p.adminPool.query("create function public.echo(body jsonb) returns jsonb language sql as 'select body'; notify pgrst, 'reload schema'");
    // The schema cache reloads on its own time: wait until the table is served.
    await eventually('public.items in the schema cache', async () => (await fetch(`${p.url}/rest/v1/items?limit=0`, { headers: service() })).status, (s) => s === 200);
    platformToken = await signPlatformToken(p.keys.platformSecret, 'ops@example.com', ['default'], 600);
  });
  after(() => stopTestPlatform(p));

  it('answers 400 in the surface\'s shape, and nothing is stored', async () => {
    const deep = (key: string) => `{"${key}":${nested(5000)}}`;
    const cases: Array<[string, string, Record<string, string>, string, (body: Record<string, unknown>) => boolean]> = [
      // GoTrue's shape: code, error_code, msg.
      [`${p.url}/auth/v1/signup`, 'POST', anon(), '{"email":"x@example.com","password":"a-good-password","data":' + nested(5000) + '}', (b) => b.error_code === 'bad_json'],
      [`${p.url}/auth/v1/otp`, 'POST', anon(), '{"email":"y@example.com","data":' + nested(5000) + '}', (b) => b.error_code === 'bad_json'],
      [`${p.url}/auth/v1/user`, 'PUT', asUser(), deep('data'), (b) => b.error_code === 'bad_json'],
      [`${p.url}/auth/v1/admin/users`, 'POST', service(), '{"email":"z@example.com","user_metadata":' + nested(5000) + '}', (b) => b.error_code === 'bad_json'],
      // PostgREST's shape: code, message, details, hint.
      [`${p.url}/rest/v1/items`, 'POST', service(), `{"id":1,"name":${nested(5000)}}`, (b) => typeof b.code === 'string' && typeof b.message === 'string'],
      [`${p.url}/rest/v1/rpc/echo`, 'POST', service(), deep('body'), (b) => typeof b.code === 'string' && typeof b.message === 'string'],
      // Storage's shape: statusCode, error, message.
      [`${p.url}/storage/v1/bucket`, 'POST', service(), `{"name":"b","allowed_mime_types":${nested(5000)}}`, (b) => b.statusCode === '400'],
      [`${p.url}/realtime/v1/api/broadcast`, 'POST', service(), `{"messages":[{"topic":"t","event":"e","payload":${nested(5000)}}]}`, (b) => typeof b.message === 'string' || typeof b.error === 'string'],
      [`${p.url}/graphql/v1`, 'POST', service(), `{"query":"{ __typename }","variables":${nested(5000)}}`, (b) => Array.isArray(b.errors) || typeof b.error === 'string' || typeof b.message === 'string'],
      [`${p.url}/api/database/tables/items`, 'POST', asUser(), `{"id":2,"name":${nested(5000)}}`, (b) => typeof b.error === 'string'],
      [`${p.url}/api/agents`, 'POST', asUser(), `{"name":"deep","settings":${nested(5000)}}`, (b) => b.error === 'The JSON body is nested deeper than 64 levels'],
      [`${p.platformUrl}/api/platform/auth/default/users`, 'POST', { authorization: `Bearer ${platformToken}` }, `{"email":"w@example.com","password":"a-good-password","user_metadata":${nested(5000)}}`, (b) => typeof b.error === 'string' || typeof b.message === 'string'],
    ];
    const wrong: string[] = [];
    for (const [url, method, headers, body, shaped] of cases) {
      const res = await fetch(url, { method, headers: { ...headers, 'content-type': 'application/json' }, body });
      const text = await res.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // checked below
      }
      if (res.status !== 400 || !shaped(parsed) || !/nested deeper than 64 levels/.test(text)) wrong.push(`${method} ${url.replace(p.url, '').replace(p.platformUrl, '')}: ${res.status} ${text.slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
    const users = await p.adminPool.query<{ n: number }>("select count(*)::int as n from auth.users where email in ('x@example.com', 'y@example.com', 'z@example.com', 'w@example.com')");
    assert.equal(users.rows[0]!.n, 0, 'no user was made');
    assert.equal((await p.adminPool.query<{ n: number }>('select count(*)::int as n from public.items')).rows[0]!.n, 0);
    assert.equal((await fetch(`${p.url}/health`)).status, 200);
  });

  it('keeps shallow bodies working on the same routes', async () => {
    const res = await fetch(`${p.url}/rest/v1/items`, { method: 'POST', headers: { ...service(), 'content-type': 'application/json', prefer: 'return=representation' }, body: `{"id":3,"name":${nested(60)}}` });
    assert.equal(res.status, 201, await res.clone().text());
    const proxied = await fetch(`${p.url}/api/database/tables/items`, { method: 'POST', headers: { ...asUser(), 'content-type': 'application/json' }, body: `{"id":4,"name":${nested(20)}}` });
    assert.equal(proxied.status, 201, await proxied.clone().text());
  });
});
