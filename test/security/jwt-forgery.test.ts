// Forged and misused tokens against every surface: alg none, a wrong secret,
// RS/HS confusion, another HMAC algorithm, expiry, and privileged role
// claims. Pass: refused (or, for a validly signed odd role, no privilege
// gained), and a forged token costs no database connection.
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('JWT forgeries', () => {
  let p: TestPlatform;
  let secret: string;
  const now = () => Math.floor(Date.now() / 1000);
  const hmac = (alg: 'sha256' | 'sha512', key: string | Buffer, header: object, payload: object) => {
    const unsigned = `${b64(header)}.${b64(payload)}`;
    return `${unsigned}.${createHmac(alg, key).update(unsigned).digest('base64url')}`;
  };

  before(async () => {
    secret = randomBytes(32).toString('hex');
    p = await startTestPlatform({ WORKER: 'off', JWT_SECRET: secret });
    await p.adminPool.query(`create table public.vault (id int primary key, secret text); alter table public.vault enable row level security;
      insert into public.vault values (1, 'crown jewels');`);
    for (let i = 0; i < 100 && (await fetch(`${p.url}/rest/v1/vault`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` } })).status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(() => stopTestPlatform(p));

  const forgeries = (): Array<[string, string]> => {
    const claims = { iss: 'pgbase', ref: 'default', role: 'service_role', sub: '00000000-0000-0000-0000-000000000001', exp: now() + 3600 };
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const rsHeader = { alg: 'RS256', typ: 'JWT' };
    const rsUnsigned = `${b64(rsHeader)}.${b64(claims)}`;
    const rsSigned = `${rsUnsigned}.${sign('sha256', Buffer.from(rsUnsigned), privateKey).toString('base64url')}`;
    return [
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`],
      ['alg none, no signature part', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}`],
      ['wrong secret', hmac('sha256', randomBytes(32).toString('hex'), { alg: 'HS256', typ: 'JWT' }, claims)],
      ['HS512 with the right secret', hmac('sha512', secret, { alg: 'HS512', typ: 'JWT' }, claims)],
      ['RS256 signed with an attacker key', rsSigned],
      ['HS256 keyed with an RSA public key (RS/HS confusion)', hmac('sha256', publicPem, { alg: 'HS256', typ: 'JWT' }, claims)],
      ['expired', hmac('sha256', secret, { alg: 'HS256', typ: 'JWT' }, { ...claims, exp: now() - 10 })],
      ['not yet valid', hmac('sha256', secret, { alg: 'HS256', typ: 'JWT' }, { ...claims, nbf: now() + 3600 })],
      ['tampered payload', `${p.keys.anonKey.split('.')[0]}.${b64({ iss: 'pgbase', ref: 'default', role: 'service_role' })}.${p.keys.anonKey.split('.')[2]}`],
      ['garbage', 'not.a.jwt'],
    ];
  };

  it('refuses every forgery as apikey and as Bearer on every surface, without touching the database', async () => {
    // The platform's own timers (the abandoned-run sweep, realtime heartbeats)
    // may check out a connection during a pass; one spent per forgery would
    // show in every pass, so a pass with none is the proof (up to three tries).
    const pass = async () => {
      let checkouts = 0;
      const count = () => void checkouts++;
      p.requestPool.on('acquire', count);
      p.adminPool.on('acquire', count);
      try {
        for (const [what, token] of forgeries()) {
          for (const path of ['/rest/v1/vault', '/auth/v1/user', '/auth/v1/admin/users', '/storage/v1/bucket', '/graphql/v1', '/realtime/v1/api/broadcast']) {
            const asKey = await fetch(`${p.url}${path}`, { headers: { apikey: token } });
            assert.equal(asKey.status, 401, `${what} as apikey on ${path}`);
            const asBearer = await fetch(`${p.url}${path}`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${token}` } });
            // The identity surface judges a bearer as GoTrue does: 403 bad_jwt; the others at the gate.
            assert.equal(asBearer.status, path.startsWith('/auth/v1') ? 403 : 401, `${what} as Bearer on ${path}`);
            assert.doesNotMatch(await asBearer.text(), /crown jewels/);
          }
          const socket = new WebSocket(`${p.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${encodeURIComponent(token)}&vsn=1.0.0`);
          const status = await new Promise<number>((resolve) => {
            socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
            socket.on('open', () => resolve(101));
            socket.on('error', () => undefined);
          });
          socket.terminate();
          assert.equal(status, 401, `${what} as a realtime apikey`);
        }
      } finally {
        p.requestPool.off('acquire', count);
        p.adminPool.off('acquire', count);
      }
      return checkouts;
    };
    const seen: number[] = [];
    while (seen.length < 3 && seen.at(-1) !== 0) seen.push(await pass());
    assert.equal(seen.at(-1), 0, `no database connection was spent on a forged token (checkouts per pass: ${seen.join(', ')})`);
  });

  it('a validly signed token claiming a privileged database role gains nothing', async () => {
    for (const role of ['postgres', 'supabase_admin', 'authenticator', 'pg_read_all_data', 'pg_write_server_files']) {
      const token = await new SignJWT({ role, sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(secret));
      const headers = { apikey: p.keys.anonKey, authorization: `Bearer ${token}` };
      const read = await fetch(`${p.url}/rest/v1/vault`, { headers });
      assert.ok([400, 401, 403].includes(read.status), `${role}: read ${read.status}`);
      assert.doesNotMatch(await read.text(), /crown jewels/, `${role} reads nothing`);
      const write = await fetch(`${p.url}/rest/v1/vault`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ id: 2, secret: 'x' }) });
      assert.ok([400, 401, 403].includes(write.status), `${role}: write ${write.status}`);
      const admin = await fetch(`${p.url}/auth/v1/admin/users`, { headers });
      assert.ok([401, 403].includes(admin.status), `${role}: auth admin ${admin.status}`);
      const buckets = await fetch(`${p.url}/storage/v1/bucket`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ id: `b-${role.replaceAll('_', '-')}` }) });
      assert.ok([400, 401, 403].includes(buckets.status), `${role}: create bucket ${buckets.status}`);
    }
    const { rows } = await p.adminPool.query('select count(*)::int as n from public.vault');
    assert.equal(rows[0].n, 1, 'nothing was written');
    assert.equal((await p.adminPool.query('select count(*)::int as n from storage.buckets')).rows[0].n, 0, 'no bucket was made');
  });
});
