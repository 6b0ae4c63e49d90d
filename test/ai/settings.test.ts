// /api/settings over HTTP: the 92-key registry with categories, all-or-nothing
// validation with per-key details, secrets encrypted and masked (the mask
// sent back changes nothing), deletes and category resets, the typed
// accessor seeing a change at once, and who may do what.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Setting = { key: string; category: string; type: string; default: string; override: string | null; value: string; min?: number; max?: number; options?: string[] };

describe('AI settings (/api/settings)', () => {
  let p: TestPlatform;
  let userToken: string;
  const as = (token: string, key = token) => ({ apikey: key, authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const service = () => as(p.keys.serviceRoleKey);
  const user = () => as(userToken, p.keys.anonKey);
  const api = (path: string, init: RequestInit = {}) => fetch(`${p.url}/api${path}`, init);
  const list = async (headers = service()) => ((await (await api('/settings', { headers })).json()) as { settings: Setting[] }).settings;
  const one = async (key: string) => (await list()).find((s) => s.key === key)!;

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', AI_MASTER_KEY: 'm'.repeat(40) });
    const sb = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    userToken = (await sb.auth.signUp({ email: 'settings@example.com', password: 'a-good-password' })).data.session!.access_token;
  });
  after(() => stopTestPlatform(p));

  it('lists all 92 keys in seven categories, with type, default and range, to the service role and to users', async () => {
    const res = await api('/settings', { headers: service() });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { settings: Setting[]; categories: Array<{ name: string; count: number; label: string }> };
    assert.equal(body.settings.length, 92);
    assert.deepEqual(body.categories.map((c) => [c.name, c.count]), [
      ['copilot', 8], ['agents', 3], ['tools', 12], ['knowledge-indexing', 41], ['knowledge-retrieval', 19], ['compaction', 5], ['sources', 4],
    ]);
    const temperature = body.settings.find((s) => s.key === 'COPILOT_TEMPERATURE')!;
    assert.deepEqual({ ...temperature, description: undefined, updated_at: undefined }, {
      key: 'COPILOT_TEMPERATURE', category: 'copilot', type: 'number', default: '0.7', override: null, value: '0.7', min: 0, max: 2,
      description: undefined, is_overridden: false, updated_at: undefined,
    });
    for (const [key, value] of [['COPILOT_MAX_STEPS', '25'], ['CUSTOM_TOOL_TIMEOUT', '30'], ['MCP_TOOL_TIMEOUT', '30'], ['MAX_TOOL_OUTPUT_LENGTH', '10000'],
      ['DEFAULT_MAX_RESULT_CHARS', '50000'], ['WEB_SCRAPE_MAX_CHARS', '200000'], ['MAX_TOTAL_STATE_LEN', '50000'], ['MAX_CONFIG_VALUE_LEN', '2000']]) {
      assert.equal(body.settings.find((s) => s.key === key)?.default, value, key);
    }
    assert.ok(body.settings.every((s) => ['string', 'integer', 'number', 'boolean', 'enum', 'secret', 'model'].includes(s.type)));
    assert.equal(body.settings.filter((s) => s.key.startsWith('PAGEINDEX_')).length, 17, 'the page-index family, 15 indexing keys and 2 retrieval keys');
    assert.equal((await list(user())).length, 92, 'a signed-in user reads them too');
  });

  it('validates every type and range, all or nothing, with per-key details', async () => {
    const res = await api('/settings', { method: 'PUT', headers: service(), body: JSON.stringify({ settings: {
      COPILOT_TEMPERATURE: '2.5', COPILOT_MAX_STEPS: '2.5', BM25_AUTO_INDEXING: 'yes', DEFAULT_IMAGE_DELIVERY: 'fax', copilot_model: 'not a model',
      CRAWL_API_BASE: 'ftp://x', NOT_A_KEY: '1', KB_DEFAULT_TOP_K: 7, URL_IMPORT_MAX_PAGES: '20',
    } }) });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: string; details: Record<string, string> };
    assert.equal(body.error, 'Invalid settings');
    assert.deepEqual(Object.keys(body.details).sort(), ['BM25_AUTO_INDEXING', 'COPILOT_MAX_STEPS', 'COPILOT_TEMPERATURE', 'CRAWL_API_BASE', 'DEFAULT_IMAGE_DELIVERY', 'KB_DEFAULT_TOP_K', 'NOT_A_KEY', 'copilot_model']);
    assert.equal(body.details.COPILOT_TEMPERATURE, 'must be at most 2');
    assert.equal(body.details.COPILOT_MAX_STEPS, 'must be a whole number');
    assert.equal(body.details.BM25_AUTO_INDEXING, 'must be true or false');
    assert.equal(body.details.DEFAULT_IMAGE_DELIVERY, 'must be one of url, base64, none');
    assert.equal(body.details.KB_DEFAULT_TOP_K, 'must be a string');
    assert.equal(body.details.NOT_A_KEY, 'unknown setting');
    assert.equal((await one('URL_IMPORT_MAX_PAGES')).override, null, 'the valid key in a failed request was not saved');

    const ok = await api('/settings', { method: 'PUT', headers: service(), body: JSON.stringify({ settings: {
      COPILOT_TEMPERATURE: '0.2', URL_IMPORT_MAX_PAGES: '20', BM25_AUTO_INDEXING: 'false', copilot_model: 'openrouter/anthropic/claude-sonnet-4', DEFAULT_IMAGE_DELIVERY: 'base64',
    } }) });
    assert.equal(ok.status, 200);
    assert.deepEqual(((await ok.json()) as { updated: string[] }).updated.sort(), ['BM25_AUTO_INDEXING', 'COPILOT_TEMPERATURE', 'DEFAULT_IMAGE_DELIVERY', 'URL_IMPORT_MAX_PAGES', 'copilot_model']);
    assert.equal((await one('COPILOT_TEMPERATURE')).value, '0.2');
    assert.equal(await p.ai.settings.get('COPILOT_TEMPERATURE'), 0.2, 'the accessor sees the change at once, typed');
    assert.equal(await p.ai.settings.get('BM25_AUTO_INDEXING'), false);
    assert.equal(await p.ai.settings.number('URL_IMPORT_MAX_PAGES'), 20);
    for (const bad of [{}, { settings: 'x' }, { settings: [1] }]) {
      assert.equal((await api('/settings', { method: 'PUT', headers: service(), body: JSON.stringify(bad) })).status, 400, JSON.stringify(bad));
    }
  });

  it('keeps secrets encrypted and masked; the mask sent back is a no-op; empty clears', async () => {
    const raw = 'srch-live-9f8e7d6c5b4a3210';
    assert.equal((await api('/settings', { method: 'PUT', headers: service(), body: JSON.stringify({ settings: { SEARCH_API_KEY: raw } }) })).status, 200);
    const shown = await one('SEARCH_API_KEY');
    assert.equal(shown.value, 'src...3210');
    assert.equal(shown.default, '');
    assert.doesNotMatch(JSON.stringify(await list(user())), new RegExp(raw), 'no user ever sees the secret');
    const stored = (await p.adminPool.query(`select value, encode(secret, 'escape') as secret from ai.setting_overrides where key = 'SEARCH_API_KEY'`)).rows[0];
    assert.equal(stored.value, null);
    assert.ok(!String(stored.secret).includes(raw), 'encrypted at rest');
    assert.equal(await p.ai.settings.get('SEARCH_API_KEY'), raw, 'features read it decrypted');
    assert.equal((await api('/settings', { method: 'PUT', headers: service(), body: JSON.stringify({ settings: { SEARCH_API_KEY: shown.value } }) })).status, 200);
    assert.equal(await p.ai.settings.get('SEARCH_API_KEY'), raw, 'sending the mask back changed nothing');
    await api('/settings', { method: 'PUT', headers: service(), body: JSON.stringify({ settings: { SEARCH_API_KEY: '' } }) });
    assert.equal(await p.ai.settings.get('SEARCH_API_KEY'), '', 'an empty value clears it');
    assert.doesNotMatch(p.logs(), new RegExp(raw), 'the secret is in no log line');
  });

  it('deletes one override and resets a category', async () => {
    await api('/settings', { method: 'PUT', headers: service(), body: JSON.stringify({ settings: { KB_DEFAULT_TOP_K: '9', RERANKER_CANDIDATE_COUNT: '40', CRAWL_API_KEY: 'crawl-secret-000000000' } }) });
    const del = await api('/settings/KB_DEFAULT_TOP_K', { method: 'DELETE', headers: service() });
    assert.equal(del.status, 200);
    assert.deepEqual(await del.json(), { key: 'KB_DEFAULT_TOP_K', default: '5' });
    assert.deepEqual(await (await api('/settings/CRAWL_API_KEY', { method: 'DELETE', headers: service() })).json(), { key: 'CRAWL_API_KEY', default: '' });
    const unknown = await api('/settings/NOPE', { method: 'DELETE', headers: service() });
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: 'Unknown setting: NOPE' });
    const reset = await api('/settings/reset-category', { method: 'POST', headers: service(), body: JSON.stringify({ category: 'knowledge-retrieval' }) });
    assert.equal(reset.status, 200);
    const resetBody = (await reset.json()) as { reset: string[] };
    assert.equal(resetBody.reset.length, 19);
    assert.equal((await one('RERANKER_CANDIDATE_COUNT')).override, null);
    assert.equal((await one('COPILOT_TEMPERATURE')).override, '0.2', 'other categories keep their overrides');
    assert.equal((await api('/settings/reset-category', { method: 'POST', headers: service(), body: JSON.stringify({ category: 'nope' }) })).status, 400);
    assert.equal((await api('/settings/reset-category', { method: 'POST', headers: service(), body: JSON.stringify({}) })).status, 400);
  });

  it('lets only the service role change settings; refuses the anon key and bad credentials', async () => {
    const put = await api('/settings', { method: 'PUT', headers: user(), body: JSON.stringify({ settings: { KB_DEFAULT_TOP_K: '3' } }) });
    assert.equal(put.status, 403);
    assert.deepEqual(await put.json(), { error: 'Only the service-role key may change project configuration' });
    assert.equal((await api('/settings/KB_DEFAULT_TOP_K', { method: 'DELETE', headers: user() })).status, 403);
    assert.equal((await api('/settings/reset-category', { method: 'POST', headers: user(), body: JSON.stringify({ category: 'tools' }) })).status, 403);
    const anon = await api('/settings', { headers: as(p.keys.anonKey) });
    assert.equal(anon.status, 403);
    assert.match(((await anon.json()) as { error: string }).error, /anonymous key alone is refused/);
    const missing = await api('/settings');
    assert.equal(missing.status, 401);
    assert.deepEqual(Object.keys(await missing.json()), ['error']);
    assert.equal((await api('/settings', { headers: { apikey: p.keys.serviceRoleKey } })).status, 401, 'no Authorization header');
    assert.equal((await api('/settings', { headers: as('not-a-jwt', p.keys.anonKey) })).status, 401);
  });

  it('is documented row for row: the table in docs/ai/settings.md is the registry\'s', async () => {
    const { rows: categories } = await p.adminPool.query<{ name: string; label: string }>('select name, label from ai.setting_categories order by position');
    const { rows } = await p.adminPool.query<{ key: string; category: string; type: string; default_value: string; min_value: string | null; max_value: string | null; options: string[] | null; pattern: string | null; description: string }>(
      'select key, category, type, default_value, min_value::text, max_value::text, options, pattern, description from ai.settings_registry order by position, key');
    const range = (r: (typeof rows)[number]) =>
      r.options ? r.options.join(', ') : r.min_value !== null || r.max_value !== null ? `${r.min_value ?? ''} to ${r.max_value ?? ''}` : r.pattern ? `matches \`${r.pattern}\`` : '';
    const expected = categories.map((c) => [
      `**${c.label}** (\`${c.name}\`)`, '', '| key | type | default | range or options | what it does |', '|---|---|---|---|---|',
      ...rows.filter((r) => r.category === c.name).map((r) => `| \`${r.key}\` | ${r.type} | ${r.default_value === '' ? '(empty)' : `\`${r.default_value}\``} | ${range(r)} | ${r.description} |`),
    ].join('\n')).join('\n\n');
    const doc = readFileSync(new URL('../../docs/ai/settings.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('**Every setting:**') + '**Every setting:**'.length).trim();
    assert.equal(table, expected, 'regenerate the table from the registry (this assertion\'s expected value) when a setting changes');
  });
});
