import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { loadConfig } from '../../server/config.ts';
import { loadLocalSecrets, resolveKeys, signApiKey, signToken, verifyToken } from '../../server/keys.ts';

const secret = randomBytes(32).toString('hex');
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('project keys', () => {
  it('derives anon and service-role keys as HS256 JWTs carrying their role, the same on every start', async () => {
    const config = loadConfig({ AI_MASTER_KEY: secret, PLATFORM_JWT_SECRET: secret, JWT_SECRET: secret, PROJECT_REF: 'acme' });
    const a = await resolveKeys(config);
    const b = await resolveKeys(config);
    assert.equal(a.anonKey, b.anonKey);
    assert.equal(a.serviceRoleKey, b.serviceRoleKey);
    assert.deepEqual(decodeProtectedHeader(a.anonKey), { alg: 'HS256', typ: 'JWT' });
    assert.deepEqual(decodeJwt(a.anonKey), { iss: 'pgbase', ref: 'acme', role: 'anon' });
    assert.equal(decodeJwt(a.serviceRoleKey).role, 'service_role');
    const verdict = await verifyToken(secret, a.serviceRoleKey);
    assert.ok(verdict.ok && verdict.claims.role === 'service_role');
  });

  it('keeps configured keys, and refuses ones the secret did not sign or with the wrong role', async () => {
    const other = await signApiKey(randomBytes(32).toString('hex'), 'default', 'anon');
    await assert.rejects(resolveKeys(loadConfig({ AI_MASTER_KEY: secret, PLATFORM_JWT_SECRET: secret, JWT_SECRET: secret, ANON_KEY: other })), /ANON_KEY is not valid for this JWT_SECRET/);
    const anon = await signApiKey(secret, 'default', 'anon');
    await assert.rejects(resolveKeys(loadConfig({ AI_MASTER_KEY: secret, PLATFORM_JWT_SECRET: secret, JWT_SECRET: secret, SERVICE_ROLE_KEY: anon })), /SERVICE_ROLE_KEY must carry role "service_role"/);
    const kept = await resolveKeys(loadConfig({ AI_MASTER_KEY: secret, PLATFORM_JWT_SECRET: secret, JWT_SECRET: secret, ANON_KEY: anon }));
    assert.equal(kept.anonKey, anon);
  });

  it('refuses alg "none", a wrong signature, an algorithm swap and a past exp', async () => {
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ role: 'service_role' })}.`;
    assert.deepEqual(await verifyToken(secret, none), { ok: false, reason: 'invalid' });

    const good = await signApiKey(secret, 'default', 'anon');
    const [h, p] = good.split('.');
    const forged = `${h}.${b64({ iss: 'pgbase', ref: 'default', role: 'service_role' })}.${good.split('.')[2]}`;
    assert.deepEqual(await verifyToken(secret, forged), { ok: false, reason: 'invalid' });

    const hs512 = `${b64({ alg: 'HS512', typ: 'JWT' })}.${p}`;
    const sig = createHmac('sha512', secret).update(hs512).digest('base64url');
    assert.deepEqual(await verifyToken(secret, `${hs512}.${sig}`), { ok: false, reason: 'invalid' });

    const expired = await signToken(secret, { role: 'authenticated', sub: 'x' }, -10);
    assert.deepEqual(await verifyToken(secret, expired), { ok: false, reason: 'expired' });
    assert.deepEqual(await verifyToken(secret, 'not.a.jwt'), { ok: false, reason: 'invalid' });
  });

  it('generates the local secret once, privately, even when two processes race for it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pgbase-keys-'));
    const results = await Promise.all(Array.from({ length: 8 }, () => loadLocalSecrets(dir)));
    assert.equal(new Set(results.map((r) => r.jwt_secret)).size, 1);
    assert.ok(results[0]!.jwt_secret.length >= 32);
    const file = path.join(dir, 'secrets.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).jwt_secret, results[0]!.jwt_secret);
    assert.equal(results.filter((r) => r.created).length, 1, 'one process made the data directory\'s secrets (and so chooses its first signing key)');
    const { created: _made, ...stored } = results.find((r) => r.created)!;
    assert.deepEqual(await loadLocalSecrets(dir), stored);
  });

  it('adds a secret a newer version needs (the AI master key) to an older secrets file, keeping the rest', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pgbase-keys-'));
    const file = path.join(dir, 'secrets.json');
    const old = { jwt_secret: 'j'.repeat(40), db_password: 'p'.repeat(30), platform_jwt_secret: 'q'.repeat(40) };
    writeFileSync(file, JSON.stringify(old), { mode: 0o600 });
    const upgraded = await loadLocalSecrets(dir);
    assert.deepEqual({ ...upgraded, ai_master_key: undefined }, { ...old, ai_master_key: undefined });
    assert.ok(upgraded.ai_master_key.length >= 32);
    assert.deepEqual(await loadLocalSecrets(dir), upgraded, 'and keeps it');
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });
});
