// DATABASE_URL may point at a Unix socket, as node-pg and libpq allow
// (postgres://user@/db?host=/run/postgresql, postgresql:///db?host=…): the
// server starts on it, and its request pool logs in as `authenticator`, never
// as a user the URL's query names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'pg-connection-string';
import { withCredentials } from '../../db/pool.ts';
import { freshDatabase, query } from '../helpers/db.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('withCredentials', () => {
  const cases: Array<[string, Record<string, string | null>]> = [
    ['postgres://admin:pw@/app?host=/run/postgresql&port=5433', { host: '/run/postgresql', port: '5433', database: 'app' }],
    ['postgresql:///app?host=%2Frun%2Fpostgresql', { host: '/run/postgresql', database: 'app' }],
    ['postgres://admin@db.example:6543/app?sslmode=disable', { host: 'db.example', port: '6543', database: 'app' }],
    ['postgres://db.example/app?user=admin&password=secret&application_name=x', { host: 'db.example', database: 'app', application_name: 'x' }],
  ];
  for (const [url, expected] of cases) {
    it(`logs in as the given user with ${url}`, () => {
      const out = parse(withCredentials(url, 'authenticator', 'p@ss/wörd'));
      assert.equal(out.user, 'authenticator');
      assert.equal(out.password, 'p@ss/wörd');
      for (const [key, value] of Object.entries(expected)) assert.equal((out as Record<string, unknown>)[key], value, key);
    });
  }
});

describe('DATABASE_URL on a Unix socket', () => {
  let socket: { dir: string; port: string };
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  before(async () => {
    db = await freshDatabase();
    const [row] = await query<{ dir: string; port: string }>(db.url, `select split_part(current_setting('unix_socket_directories'), ',', 1) as dir, current_setting('port') as port`);
    socket = row!;
    assert.ok(socket.dir.startsWith('/'), 'the test cluster listens on a socket');
  });
  after(async () => db.drop());

  for (const form of ['no host', 'host in the query, user in the query'] as const) {
    it(`serves requests as authenticator (${form})`, async () => {
      const params = `host=${encodeURIComponent(socket.dir)}&port=${socket.port}`;
      const url = form === 'no host' ? `postgres://postgres@/${db.name}?${params}` : `postgresql:///${db.name}?${params}&user=postgres`;
      let platform: TestPlatform | undefined;
      try {
        platform = await startTestPlatform({ WORKER: 'off' }, { databaseUrl: url });
        await platform.adminPool.query(`create or replace function public.login_role() returns text language sql stable as $$ select session_user::text $$;
          grant execute on function public.login_role() to anon; notify pgrst, 'reload schema';`);
        const key = platform.keys.anonKey;
        const call = () => fetch(`${platform!.url}/rest/v1/rpc/login_role`, { method: 'POST', headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
        let res = await call();
        for (let i = 0; i < 100 && res.status === 404; i++) res = await new Promise((r) => setTimeout(r, 50)).then(call);
        assert.equal(res.status, 200);
        assert.equal(await res.json(), 'authenticator');
        const sessions = await query<{ usename: string; client_addr: string | null }>(db.url, `select usename, client_addr::text from pg_stat_activity where datname = $1 and application_name = 'pgbase:request'`, [db.name]);
        assert.ok(sessions.length > 0, 'the request pool has a connection');
        for (const s of sessions) assert.deepEqual({ ...s }, { usename: 'authenticator', client_addr: null }, 'over the socket, as authenticator');
      } finally {
        await platform?.stop();
      }
    });
  }
});
