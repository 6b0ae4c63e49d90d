// Asymmetric signing keys (issue 49, sql/0111) through supabase-js and the
// control plane: a project whose first key is ES256 signs sessions with a
// `kid`, publishes the public half at /auth/v1/.well-known/jwks.json and
// getClaims() verifies through it; the legacy HS256 anon and service keys
// keep working. A rotation from the control plane (a standby RS256 key, made
// in use) keeps a signed-in user signed in; revoking the old key signs them
// out at once. A key made in use by another process (here: SQL beside the
// server) verifies at once, and the state machine refuses the moves that
// would lock the project out.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { signingKeys } from '../../server/key-ring.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { setupOperator, type Operator } from '../helpers/studio.ts';

type Key = { id: string; algorithm: string; status: string; public_jwk: JWK | null };

describe('signing keys: ES256 tokens, JWKS, rotation and revocation', () => {
  let p: TestPlatform;
  let ops: Operator;
  let ann: SupabaseClient;
  const keysPath = () => `/api/platform/auth/${p.config.PROJECT_REF}/signing-keys`;
  const client = () => createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
  const rest = (token: string) => fetch(`${p.url}/rest/v1/notes?select=body`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${token}` } });
  const jwks = async () => (await (await fetch(`${p.url}/auth/v1/.well-known/jwks.json`)).json()) as { keys: JWK[] };

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', JWT_SIGNING_ALGORITHM: 'ES256' });
    await p.adminPool.query(`create table public.notes (id serial primary key, owner uuid not null default auth.uid(), body text);
      alter table public.notes enable row level security;
      create policy own on public.notes using (owner = auth.uid()) with check (owner = auth.uid());
      grant select, insert on public.notes to authenticated; grant usage on sequence public.notes_id_seq to authenticated; notify pgrst, 'reload schema';`);
    ops = await setupOperator(p);
    ann = client();
    const { error } = await ann.auth.signUp({ email: 'ann-keys@example.com', password: 'a-good-password' });
    assert.equal(error, null);
    const { error: wrote } = await ann.from('notes').insert({ body: 'mine' });
    assert.equal(wrote, null);
  });
  after(() => stopTestPlatform(p));

  it('signs sessions with ES256 and a kid, publishes the public key, and getClaims() verifies through the JWKS', async () => {
    const { data: { session } } = await ann.auth.getSession();
    const header = decodeProtectedHeader(session!.access_token);
    assert.equal(header.alg, 'ES256');
    const set = await jwks();
    assert.equal(set.keys.length, 1);
    const [published] = set.keys;
    assert.equal(published!.kid, header.kid);
    assert.deepEqual([published!.kty, published!.crv, published!.alg, published!.use], ['EC', 'P-256', 'ES256', 'sig']);
    assert.ok(!('d' in published!), 'no private part is published');
    const res = await fetch(`${p.url}/auth/v1/.well-known/jwks.json`);
    assert.match(res.headers.get('cache-control') ?? '', /max-age=\d+/);

    const { data, error } = await ann.auth.getClaims();
    assert.equal(error, null);
    assert.equal(data!.claims.email, 'ann-keys@example.com');
    assert.equal(data!.header.kid, header.kid, 'verified locally against the published key');
    // RLS sees the user; the legacy HS256 anon and service keys still pass the gate.
    assert.deepEqual(await (await rest(session!.access_token)).json(), [{ body: 'mine' }]);
    assert.equal((await fetch(`${p.url}/rest/v1/notes?select=body`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` } })).status, 200);
    assert.equal(decodeProtectedHeader(p.keys.anonKey).alg, 'HS256');

    // Every other surface verifies it by its kid too: storage, GraphQL, the AI surface, a realtime socket.
    const token = session!.access_token;
    const bearer = { apikey: p.keys.anonKey, authorization: `Bearer ${token}` };
    assert.equal((await fetch(`${p.url}/storage/v1/bucket`, { headers: bearer })).status, 200);
    const graphql = await fetch(`${p.url}/graphql/v1`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    assert.equal(graphql.status, 200);
    assert.deepEqual(await (await fetch(`${p.url}/api/agents`, { headers: bearer })).json(), [], 'the AI surface takes the user');
    const socketStatus = (apikey: string) => new Promise<number>((resolve) => {
      const ws = new WebSocket(`${p.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${encodeURIComponent(apikey)}&vsn=1.0.0`);
      ws.on('open', () => { resolve(101); ws.terminate(); });
      ws.on('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); ws.terminate(); });
      ws.on('error', () => undefined);
    });
    assert.equal(await socketStatus(token), 101);

    // A token naming the key but signed by another is refused; so is one with the alg swapped.
    const { publicKey, privateKey } = await (await import('jose')).generateKeyPair('ES256');
    void publicKey;
    const forged = await new SignJWT({ sub: 'x', role: 'service_role' }).setProtectedHeader({ alg: 'ES256', kid: header.kid! }).setExpirationTime('1h').sign(privateKey);
    assert.equal((await rest(forged)).status, 401);
    assert.equal(await socketStatus(forged), 401, 'and by realtime');
  });

  it('rotates from the control plane: a standby key is published first, made in use, and the old one keeps verifying until revoked', async () => {
    const old = (await ann.auth.getSession()).data.session!.access_token;
    const oldKid = decodeProtectedHeader(old).kid!;
    const standby = await ops.json<Key>(keysPath(), 201, { method: 'POST', body: { algorithm: 'RS256' } });
    assert.deepEqual([standby.algorithm, standby.status], ['RS256', 'standby']);
    assert.ok(!JSON.stringify(standby).includes('"d"'), 'the private key is never answered');
    assert.deepEqual((await jwks()).keys.map((k) => k.kid).sort(), [oldKid, standby.id].sort(), 'published before it signs');

    const inUse = await ops.json<Key>(`${keysPath()}/${standby.id}`, 200, { method: 'PATCH', body: { status: 'in_use' } });
    assert.equal(inUse.status, 'in_use');
    const listed = await ops.json<{ keys: Key[] }>(keysPath(), 200);
    assert.deepEqual(listed.keys.map((k) => [k.algorithm, k.status]), [['RS256', 'in_use'], ['ES256', 'previously_used'], ['HS256', 'previously_used']]);

    // Still signed in with the old token; a refresh brings one of the new key.
    assert.equal((await rest(old)).status, 200);
    const { data: refreshed, error } = await ann.auth.refreshSession();
    assert.equal(error, null);
    const fresh = refreshed.session!.access_token;
    assert.deepEqual([decodeProtectedHeader(fresh).alg, decodeProtectedHeader(fresh).kid], ['RS256', standby.id]);
    assert.equal((await ann.auth.getClaims()).data!.header.kid, standby.id);
    assert.equal((await rest(fresh)).status, 200);

    // Revoked: the old key's tokens stop at once and it leaves the JWKS.
    await ops.json(`${keysPath()}/${oldKid}`, 200, { method: 'PATCH', body: { status: 'revoked' } });
    const refused = await rest(old);
    assert.equal(refused.status, 401);
    const signedOut = (await createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } }).auth.getUser(old)).error;
    assert.deepEqual([signedOut?.status, signedOut?.code], [403, 'bad_jwt'], 'GoTrue\'s answer to a bearer that does not verify');
    assert.deepEqual((await jwks()).keys.map((k) => k.kid), [standby.id]);
    assert.equal((await rest(fresh)).status, 200, 'the new key\'s tokens go on');

    const { rows } = await p.adminPool.query<{ action: string }>(`select action from studio.audit_log where action like '%signing_key' order by id`);
    assert.deepEqual(rows.map((r) => r.action), ['add_signing_key', 'use_signing_key', 'revoke_signing_key']);
  });

  it('refuses the moves that would lock the project out, with what to do instead', async () => {
    const listed = (await ops.json<{ keys: Key[] }>(keysPath(), 200)).keys;
    const inUse = listed.find((k) => k.status === 'in_use')!;
    const legacy = listed.find((k) => k.algorithm === 'HS256')!;
    const revoked = listed.find((k) => k.status === 'revoked')!;
    const tryMove = async (id: string, status: string) => {
      const res = await ops.call(`${keysPath()}/${id}`, { method: 'PATCH', body: { status } });
      return { status: res.status, body: await res.json() as { message?: string } };
    };
    const revokeInUse = await tryMove(inUse.id, 'revoked');
    assert.equal(revokeInUse.status, 409);
    assert.match(revokeInUse.body.message!, /make another key in use first/);
    const revokeLegacy = await tryMove(legacy.id, 'revoked');
    assert.equal(revokeLegacy.status, 409);
    assert.match(revokeLegacy.body.message!, /legacy JWT secret signs the anon and service_role API keys/);
    assert.equal((await tryMove(revoked.id, 'in_use')).status, 409, 'a revoked key never comes back');
    assert.equal((await tryMove(inUse.id, 'standby')).status, 400);
    assert.equal((await ops.call(`${keysPath()}/${inUse.id}`, { method: 'DELETE' })).status, 409);
    assert.equal((await ops.call(`${keysPath()}/${revoked.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await ops.call(`${keysPath()}/00000000-0000-4000-8000-000000000000`, { method: 'PATCH', body: { status: 'in_use' } })).status, 404);
    assert.equal((await ops.call(keysPath(), { method: 'POST', body: { algorithm: 'HS512' } })).status, 400);
  });

  it('verifies at once a key another process made in use, and a DBA\'s revocation in SQL stops its tokens at once', async () => {
    // Another process: the key set moved beside the server, not through it.
    const beside = signingKeys(p.adminPool, p.keys.aiMasterKey);
    const made = await beside.add('ES256');
    await beside.setStatus(made.id, 'in_use');
    const { rows: [inUse] } = await p.adminPool.query<{ private_jwk: string }>('select private_jwk from auth.signing_key_in_use($1)', [p.keys.aiMasterKey]);
    const { data: { session } } = await ann.auth.getSession();
    const token = await new SignJWT({ sub: session!.user.id, role: 'authenticated', aud: 'authenticated' }).setProtectedHeader({ alg: 'ES256', kid: made.id, typ: 'JWT' })
      .setIssuedAt().setExpirationTime('1h').sign(await importJWK(JSON.parse(inUse!.private_jwk) as JWK, 'ES256'));
    const first = await rest(token);
    assert.equal(first.status, 200, await first.text());

    const second = await beside.add('ES256');
    await beside.setStatus(second.id, 'in_use');
    await p.adminPool.query(`update auth.signing_keys set status = 'revoked' where id = $1`, [made.id]);
    let status = 0;
    for (let i = 0; i < 50 && status !== 401; i++) {
      status = (await rest(token)).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status, 401, 'the notice reached the server');
  });

  it('moves the keys from a shell: npm run signing-keys', async () => {
    const run = (...args: string[]) => promisify(execFile)(process.execPath, ['server/cli/signing-keys.ts', ...args], {
      env: { ...process.env, DATABASE_URL: p.config.DATABASE_URL!, JWT_SECRET: p.keys.jwtSecret, AI_MASTER_KEY: p.keys.aiMasterKey, PLATFORM_JWT_SECRET: p.keys.platformSecret, LOG_LEVEL: 'silent' },
    });
    const added = JSON.parse((await run('add', 'RS256')).stdout) as Key;
    assert.deepEqual([added.algorithm, added.status], ['RS256', 'standby']);
    const used = JSON.parse((await run('use', added.id)).stdout) as Key;
    assert.equal(used.status, 'in_use');
    const listed = JSON.parse((await run('list')).stdout) as { keys: Key[] };
    assert.equal(listed.keys[0]!.id, added.id);
    await assert.rejects(run('revoke', added.id), (err: { stderr: string }) => /make another key in use first/.test(err.stderr));
    const { data } = await ann.auth.signInWithPassword({ email: 'ann-keys@example.com', password: 'a-good-password' });
    assert.equal(decodeProtectedHeader(data.session!.access_token).kid, added.id, 'the server signs with the key the shell made in use');
  });

  it('imports an existing private key keeping its kid, as a test stack\'s keys are: tokens signed elsewhere with it are project keys and sessions', async () => {
    // The auth-js suite's way: an RSA key made outside, its kid a UUID, signing its anon and service-role keys itself.
    const { privateKey } = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
    const kid = randomUUID();
    const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', key_ops: ['sign', 'verify'] };
    await ops.json(keysPath(), 400, { method: 'POST', body: { private_jwk: { ...jwk, d: undefined } } });
    const imported = await ops.json<Key>(keysPath(), 201, { method: 'POST', body: { private_jwk: jwk } });
    assert.deepEqual([imported.id, imported.algorithm, imported.status], [kid, 'RS256', 'standby']);
    assert.ok(!('d' in (imported.public_jwk as object)), 'only the public half is answered');
    await ops.json(keysPath(), 409, { method: 'POST', body: { private_jwk: jwk } });
    assert.ok((await jwks()).keys.some((k) => k.kid === kid), 'published as standby');
    const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).setIssuedAt().setExpirationTime('1h').sign(privateKey);
    const anonKey = await sign({ iss: 'supabase-demo', role: 'anon' });
    const adminToken = await sign({ iss: 'supabase-demo', role: 'service_role' });
    const asAnon = createClient(p.url, anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    const { data, error } = await asAnon.auth.signUp({ email: 'imported-key@example.com', password: 'a-good-password' });
    assert.equal(error, null, 'a standby key verifies already');
    assert.ok(data.session);
    const admin = await fetch(`${p.url}/auth/v1/admin/users?per_page=1`, { headers: { apikey: anonKey, authorization: `Bearer ${adminToken}` } });
    assert.equal(admin.status, 200, 'a service-role token it signed is the admin');
    await ops.json(`${keysPath()}/${kid}`, 200, { method: 'PATCH', body: { status: 'in_use' } });
    const again = await asAnon.auth.signInWithPassword({ email: 'imported-key@example.com', password: 'a-good-password' });
    assert.equal(decodeProtectedHeader(again.data.session!.access_token).kid, kid, 'and in use it signs the sessions');
  });
});
