// /api/ai-provider-keys over HTTP against a vendor server on 127.0.0.1 that
// speaks the four vendors' key checks: accepted keys stored valid, refused
// keys 400 with nothing stored, unreachable vendors stored not yet valid;
// batch upserts all or nothing; only masked keys ever leave or get logged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { BAD_KEY, FLAKY_KEY, GOOD_KEY, startVendorServer, type VendorServer } from '../helpers/openai-server.ts';

type KeyRecord = { id: string; provider: string; masked_key: string; is_valid: boolean; last_validated_at: string; created_at: string; updated_at: string };

describe('AI provider keys (/api/ai-provider-keys)', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let userToken: string;
  const service = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' });
  const user = () => ({ apikey: p.keys.anonKey, authorization: `Bearer ${userToken}`, 'content-type': 'application/json' });
  const api = (path: string, init: RequestInit = {}) => fetch(`${p.url}/api/ai-provider-keys${path}`, { headers: service(), ...init });
  const stored = async () => ((await (await api('')).json()) as KeyRecord[]);

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, PLATFORM_GEMINI_API_KEY: GOOD_KEY, AI_KEY_VALIDATION_TIMEOUT_MS: '2000' });
    const sb = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    userToken = (await sb.auth.signUp({ email: 'keys@example.com', password: 'a-good-password' })).data.session!.access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('stores an accepted key (201, then 200 on update), masked, asking each vendor in its own auth style', async () => {
    for (const provider of ['openai', 'anthropic', 'gemini', 'openrouter']) {
      vendor.reset();
      const res = await api('', { method: 'POST', body: JSON.stringify({ provider, api_key: GOOD_KEY }) });
      assert.equal(res.status, 201, provider);
      const record = (await res.json()) as KeyRecord;
      assert.deepEqual(Object.keys(record).sort(), ['created_at', 'id', 'is_valid', 'last_validated_at', 'masked_key', 'provider', 'updated_at']);
      assert.equal(record.provider, provider);
      assert.equal(record.is_valid, true);
      assert.equal(record.masked_key, 'sk-...cdef');
      const check = vendor.requests[0]!;
      if (provider === 'openai') assert.deepEqual([check.path, check.headers.authorization], ['/openai/v1/models', `Bearer ${GOOD_KEY}`]);
      if (provider === 'anthropic') assert.deepEqual([check.path, check.headers['x-api-key'], check.headers['anthropic-version']], ['/anthropic/v1/models', GOOD_KEY, '2023-06-01']);
      if (provider === 'gemini') assert.deepEqual([check.path, check.headers['x-goog-api-key']], ['/gemini/v1beta/models', GOOD_KEY]);
      if (provider === 'openrouter') assert.deepEqual([check.path, check.headers.authorization], ['/openrouter/api/v1/key', `Bearer ${GOOD_KEY}`]);
    }
    const again = await api('', { method: 'POST', body: JSON.stringify({ provider: 'openai', api_key: GOOD_KEY }) });
    assert.equal(again.status, 200, 'an update answers 200');
    const list = await stored();
    assert.deepEqual(list.map((k) => k.provider), ['openai', 'anthropic', 'gemini', 'openrouter']);
    assert.ok(!JSON.stringify(list).includes(GOOD_KEY));
    const row = (await p.adminPool.query(`select encode(encrypted_key, 'escape') as k from ai.provider_keys where provider = 'openai'`)).rows[0];
    assert.ok(!String(row.k).includes(GOOD_KEY), 'encrypted at rest');
  });

  it('refuses a rejected key with 400 and the vendor’s reason, keeping the key it had', async () => {
    const res = await api('', { method: 'POST', body: JSON.stringify({ provider: 'openai', api_key: BAD_KEY }) });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { error: 'Validation failed', fields: { openai: 'Incorrect API key provided' } });
    const openai = (await stored()).find((k) => k.provider === 'openai')!;
    assert.equal(openai.is_valid, true, 'the good key stays');
  });

  it('stores a key the vendor could not check as not yet valid', async () => {
    const res = await api('', { method: 'POST', body: JSON.stringify({ provider: 'anthropic', api_key: FLAKY_KEY }) });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as KeyRecord).is_valid, false);
  });

  it('validates without storing', async () => {
    const before = await stored();
    const good = await api('/validate', { method: 'POST', body: JSON.stringify({ provider: 'gemini', api_key: GOOD_KEY }) });
    assert.deepEqual(await good.json(), { is_valid: true });
    const bad = await api('/validate', { method: 'POST', body: JSON.stringify({ provider: 'gemini', api_key: BAD_KEY }) });
    assert.deepEqual(await bad.json(), { is_valid: false, error: 'Incorrect API key provided' });
    const flaky = await api('/validate', { method: 'POST', body: JSON.stringify({ provider: 'openrouter', api_key: FLAKY_KEY }) });
    assert.deepEqual(await flaky.json(), { is_valid: false, error: 'the provider answered 503' });
    assert.deepEqual(await stored(), before);
  });

  it('batch-upserts any subset, null and empty being no-ops, and rolls back entirely on a refusal', async () => {
    const refused = await api('', { method: 'PUT', body: JSON.stringify({ openai: FLAKY_KEY, gemini: BAD_KEY, anthropic: null }) });
    assert.equal(refused.status, 400);
    assert.deepEqual(await refused.json(), { error: 'Validation failed', fields: { gemini: 'Incorrect API key provided' } });
    assert.equal((await stored()).find((k) => k.provider === 'openai')!.is_valid, true, 'the batch stored nothing');
    const ok = await api('', { method: 'PUT', body: JSON.stringify({ openai: FLAKY_KEY, gemini: GOOD_KEY, anthropic: null, openrouter: '' }) });
    assert.equal(ok.status, 200);
    const rows = (await ok.json()) as KeyRecord[];
    assert.deepEqual(rows.map((k) => [k.provider, k.is_valid]), [['openai', false], ['gemini', true]]);
    assert.equal((await api('', { method: 'PUT', body: JSON.stringify({ mistral: GOOD_KEY }) })).status, 400, 'unknown provider names');
  });

  it('deletes with 204 and no body; lists platform providers at platform_supported only', async () => {
    const del = await api('/openrouter', { method: 'DELETE' });
    assert.equal(del.status, 204);
    assert.equal(await del.text(), '');
    assert.ok(!(await stored()).some((k) => k.provider === 'openrouter'));
    assert.equal((await api('/mistral', { method: 'DELETE' })).status, 400);
    const platform = await api('/platform_supported');
    assert.deepEqual(await platform.json(), { providers: ['gemini'] });
    assert.equal((await api('/platform-supported')).status, 404, 'the hyphen is not a route');
  });

  it('lists the router\'s catalogue: each priced model, its prices, and whether its provider\'s key is held', async () => {
    const res = await api('/models');
    assert.equal(res.status, 200);
    const models = (await res.json()) as Array<{ provider: string; model: string; input_per_million: number; output_per_million: number; has_key: boolean }>;
    assert.ok(models.length > 3);
    const held = new Set((await stored()).map((k) => k.provider));
    for (const m of models) {
      assert.equal(typeof m.input_per_million, 'number');
      assert.equal(m.has_key, held.has(m.provider), `${m.provider}/${m.model}`);
    }
    assert.ok(models.some((m) => m.provider === 'openai' && m.model.startsWith('gpt-')));
  });

  it('answers 400 for bad bodies and unknown providers', async () => {
    for (const body of [{}, { provider: 'openai' }, { api_key: GOOD_KEY }, { provider: 'mistral', api_key: GOOD_KEY }, { provider: 'openai', api_key: '' }]) {
      const res = await api('', { method: 'POST', body: JSON.stringify(body) });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(typeof ((await res.json()) as { error: string }).error, 'string');
    }
  });

  it('lets users read masked keys but not change them; never logs a raw key', async () => {
    const list = await fetch(`${p.url}/api/ai-provider-keys`, { headers: user() });
    assert.equal(list.status, 200);
    assert.ok(((await list.json()) as KeyRecord[]).every((k) => k.masked_key.includes('...')));
    vendor.reset();
    const post = await fetch(`${p.url}/api/ai-provider-keys`, { method: 'POST', headers: user(), body: JSON.stringify({ provider: 'openai', api_key: GOOD_KEY }) });
    assert.equal(post.status, 403);
    assert.equal(vendor.requests.length, 0, 'no vendor call was spent on a refused caller');
    assert.equal((await fetch(`${p.url}/api/ai-provider-keys/openai`, { method: 'DELETE', headers: user() })).status, 403);
    for (const secret of [GOOD_KEY, BAD_KEY, FLAKY_KEY]) assert.ok(!p.logs().includes(secret), 'no raw key in any log line');
  });
});
