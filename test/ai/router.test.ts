// The model router against a scripted vendor server on 127.0.0.1, reached
// through the production base-URL configuration: routing by model id, the
// project key then the platform key then 402, chat with tool calls,
// streaming, embeddings, retries with backoff and Retry-After, cancellation,
// fallback models, the usage ledger with costs, GET /api/usage, credits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { ApiError } from '../../server/errors.ts';
import type { StreamEvent } from '../../server/ai/providers/router.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { BAD_KEY, FLAKY_KEY, GOOD_KEY, startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { eventually } from '../helpers/eventually.ts';

describe('model router and usage ledger', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let userId: string;
  let userToken: string;
  const ctx = (feature = 'test', runId: string | null = null) => ({ userId, feature, runId });
  const hello = [{ role: 'user' as const, content: 'hello' }];
  const failsWith = async (promise: Promise<unknown>, status: number, code: string) => {
    await assert.rejects(promise, (err: unknown) => {
      assert.ok(err instanceof ApiError, String(err));
      assert.equal(err.status, status);
      assert.equal(err.code, code);
      return true;
    });
  };
  const usageRows = async (runId: string) => (await p.adminPool.query(`select model, provider, kind, tokens_in, tokens_out, cost_usd::float as cost, ok, feature, user_id from ai.usage where run_id = $1 order by id`, [runId])).rows;

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({
      WORKER: 'off', ...vendor.env, PLATFORM_ANTHROPIC_API_KEY: GOOD_KEY, AI_PROVIDER_RETRY_BASE_MS: '40', AI_PROVIDER_MAX_RETRIES: '2', AI_PROVIDER_TIMEOUT_MS: '5000',
    });
    await p.adminPool.query(`insert into ai.provider_keys (provider, encrypted_key, masked_key, is_valid) values ('openai', ai.encrypt($1, $2), ai.mask($1), true),
      ('gemini', ai.encrypt($1, $2), ai.mask($1), true), ('openrouter', ai.encrypt($1, $2), ai.mask($1), true)`, [GOOD_KEY, p.keys.aiMasterKey]);
    const sb = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const { data } = await sb.auth.signUp({ email: 'router@example.com', password: 'a-good-password' });
    userId = data.user!.id;
    userToken = data.session!.access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('routes model ids to their vendor, with the model id the vendor knows', async () => {
    const cases: Array<[string, string, string]> = [
      ['gpt-4.1-mini', '/openai/v1/chat/completions', 'gpt-4.1-mini'],
      ['claude-sonnet-4-5', '/anthropic/v1/chat/completions', 'claude-sonnet-4-5'],
      ['gemini/gemini-2.5-flash', '/gemini/v1beta/openai/chat/completions', 'gemini-2.5-flash'],
      ['openrouter/meta-llama/llama-3.3-70b', '/openrouter/api/v1/chat/completions', 'meta-llama/llama-3.3-70b'],
    ];
    for (const [model, path, sent] of cases) {
      vendor.reset();
      const result = await p.ai.models.chat({ model, messages: hello, context: ctx() });
      assert.equal(result.content, 'ok');
      assert.equal(vendor.chats()[0]!.path, path, model);
      assert.equal(vendor.chats()[0]!.body.model, sent);
      assert.equal(vendor.chats()[0]!.headers.authorization, `Bearer ${GOOD_KEY}`, 'the project key, or the platform key for anthropic');
    }
    await failsWith(p.ai.models.chat({ model: 'bad model!', messages: hello, context: ctx() }), 400, 'VALIDATION_ERROR');
  });

  it('answers 402 provider_key_decrypt_failed when no key is stored and the platform has none', async () => {
    await p.adminPool.query(`delete from ai.provider_keys where provider = 'openrouter'`);
    // The router kept the key it used before: it forgets it when the deletion's notice arrives (sql/0076).
    const outcome = () => p.ai.models.chat({ model: 'openrouter/x/y', messages: hello, context: ctx() }).then(() => 'answered', (err: ApiError) => err.code);
    assert.equal(await eventually('the deleted key to be forgotten', outcome, (o) => o !== 'answered'), 'provider_key_decrypt_failed');
    // A key encrypted with another master key cannot be read: the same 402.
    await p.adminPool.query(`insert into ai.provider_keys (provider, encrypted_key, masked_key, is_valid) values ('openrouter', ai.encrypt($1, 'another-master-key-000000000000000000'), ai.mask($1), true)`, [GOOD_KEY]);
    await failsWith(p.ai.models.chat({ model: 'openrouter/x/y', messages: hello, context: ctx() }), 402, 'provider_key_decrypt_failed');
  });

  /**
   * What a call answers after the openai key changed with the trigger off (nobody told): the
   * kept good key answers. A notice of an earlier change may still be on its way on a loaded
   * machine: it makes the router forget, rightly; then the good key is put back and the check made again.
   */
  const keptAfterSilentChange = async (call: () => Promise<string>): Promise<string> => {
    let answer = '';
    for (let tries = 0; answer !== 'answered' && tries < 5; tries++) {
      await p.adminPool.query(`update ai.provider_keys set encrypted_key = ai.encrypt($1, $2) where provider = 'openai'`, [GOOD_KEY, p.keys.aiMasterKey]);
      assert.equal(await eventually('the good key to be used', call, (o) => o === 'answered'), 'answered');
      await p.adminPool.query('alter table ai.provider_keys disable trigger provider_keys_changed');
      try {
        await p.adminPool.query(`update ai.provider_keys set encrypted_key = ai.encrypt($1, $2) where provider = 'openai'`, [FLAKY_KEY, p.keys.aiMasterKey]);
        answer = await call();
      } finally {
        await p.adminPool.query('alter table ai.provider_keys enable trigger provider_keys_changed');
      }
    }
    return answer;
  };

  it('keeps the keys it decrypted until they change: in SQL on any replica once the notice arrives, through its own API at once', async () => {
    const call = () => p.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, context: ctx() }).then(() => 'answered', (err: ApiError) => `refused ${err.status}`);
    const bearers = () => vendor.chats().map((c) => String(c.headers.authorization));
    // Kept: a change nobody is told of (the trigger off) is not seen, as no call reads the key again...
    assert.equal(await keptAfterSilentChange(call), 'answered', 'the kept key is used');
    // ...until the notice comes.
    await p.adminPool.query(`notify ai_provider_keys`);
    assert.notEqual(await eventually('the notice to be heard', call, (o) => o !== 'answered'), 'answered');
    await p.adminPool.query(`update ai.provider_keys set encrypted_key = ai.encrypt($1, $2) where provider = 'openai'`, [GOOD_KEY, p.keys.aiMasterKey]);
    assert.equal(await eventually('the good key to be used again', call, (o) => o === 'answered'), 'answered');
    // Rotated by a statement (a DBA, a migration, another replica's API): the next call after the notice uses the new key.
    vendor.reset();
    await p.adminPool.query(`update ai.provider_keys set encrypted_key = ai.encrypt($1, $2) where provider = 'openai'`, [BAD_KEY, p.keys.aiMasterKey]);
    assert.notEqual(await eventually('the rotated key to be used', call, (o) => o !== 'answered'), 'answered');
    assert.equal(bearers().at(-1), `Bearer ${BAD_KEY}`);
    // Through this server's API: used by the very next call, no notice awaited.
    const headers = { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' };
    assert.equal((await fetch(`${p.url}/api/ai-provider-keys`, { method: 'POST', headers, body: JSON.stringify({ provider: 'openai', api_key: GOOD_KEY }) })).status, 200);
    assert.equal(await call(), 'answered');
    assert.equal((await fetch(`${p.url}/api/ai-provider-keys`, { method: 'PUT', headers, body: JSON.stringify({ openai: FLAKY_KEY }) })).status, 200);
    vendor.reset();
    assert.notEqual(await call(), 'answered');
    assert.equal(bearers()[0], `Bearer ${FLAKY_KEY}`);
    assert.equal((await fetch(`${p.url}/api/ai-provider-keys`, { method: 'POST', headers, body: JSON.stringify({ provider: 'openai', api_key: GOOD_KEY }) })).status, 200);
    assert.equal(await call(), 'answered');
  });

  it('forgets the keys it kept when its listener reconnects (notices sent meanwhile are lost)', async () => {
    const call = () => p.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, context: ctx() }).then(() => 'answered', (err: ApiError) => `refused ${err.status}`);
    assert.equal(await keptAfterSilentChange(call), 'answered', 'kept: nobody told it');
    const { rowCount } = await p.adminPool.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'pgbase:listen' and datname = current_database()`);
    assert.equal(rowCount, 1, 'this server\'s listening connection (its key listener\'s channel among the others)');
    assert.notEqual(await eventually('the reconnected listener to forget', call, (o) => o !== 'answered', { tries: 100, everyMs: 100 }), 'answered');
    await p.adminPool.query(`update ai.provider_keys set encrypted_key = ai.encrypt($1, $2) where provider = 'openai'`, [GOOD_KEY, p.keys.aiMasterKey]);
    assert.equal(await eventually('the good key to be used again', call, (o) => o === 'answered'), 'answered');
  });

  it('passes tools, tuning and response format, and returns tool calls and usage', async () => {
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'call_a', name: 'lookup', arguments: { city: 'Oslo' } }] });
    const tools = [{ type: 'function' as const, function: { name: 'lookup', description: 'look up', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const result = await p.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, tools, tool_choice: 'auto', settings: { temperature: 0.1, max_tokens: 50 }, context: ctx('agent', 'run-tools') });
    assert.deepEqual(result.toolCalls, [{ id: 'call_a', name: 'lookup', arguments: '{"city":"Oslo"}' }]);
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.usage, { inputTokens: 12, outputTokens: 5 });
    const sent = vendor.chats()[0]!.body;
    assert.deepEqual([sent.temperature, sent.max_tokens, sent.tool_choice, sent.tools[0].function.name], [0.1, 50, 'auto', 'lookup']);
    const [row] = await usageRows('run-tools');
    assert.deepEqual({ ...row, cost: undefined }, { model: 'gpt-4.1-mini', provider: 'openai', kind: 'chat', tokens_in: 12, tokens_out: 5, cost: undefined, ok: true, feature: 'agent', user_id: userId });
    assert.ok(Math.abs(row.cost - (12 * 0.4 + 5 * 1.6) / 1e6) < 1e-12, `priced from ai.model_prices (gpt-4.1-mini, not gpt-4.1): ${row.cost}`);
  });

  it('streams content and tool-call fragments, then the whole result with usage', async () => {
    vendor.reset();
    vendor.script({ text: 'Hello there, world', usage: { prompt_tokens: 7, completion_tokens: 4 } }, { toolCalls: [{ name: 'a', arguments: { x: 1 } }, { name: 'b', arguments: { y: 'two' } }] });
    const events: StreamEvent[] = [];
    for await (const e of p.ai.models.chatStream({ model: 'gpt-4.1-mini', messages: hello, context: ctx('copilot', 'run-stream') })) events.push(e);
    const deltas = events.filter((e) => e.type === 'content').map((e) => (e as { delta: string }).delta);
    assert.ok(deltas.length > 3, 'content arrives in pieces');
    assert.equal(deltas.join(''), 'Hello there, world');
    const done = events.at(-1) as Extract<StreamEvent, { type: 'done' }>;
    assert.equal(done.type, 'done');
    assert.equal(done.result.content, 'Hello there, world');
    assert.deepEqual(done.result.usage, { inputTokens: 7, outputTokens: 4 });
    assert.equal(vendor.chats()[0]!.body.stream_options.include_usage, true);

    const second: StreamEvent[] = [];
    for await (const e of p.ai.models.chatStream({ model: 'gpt-4.1-mini', messages: hello, context: ctx('copilot', 'run-stream') })) second.push(e);
    const fragments = second.filter((e) => e.type === 'tool_call');
    assert.ok(fragments.length > 2, 'tool-call arguments arrive in fragments');
    const result = (second.at(-1) as Extract<StreamEvent, { type: 'done' }>).result;
    assert.deepEqual(result.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]), [['a', { x: 1 }], ['b', { y: 'two' }]]);
    assert.equal((await usageRows('run-stream')).length, 2, 'one ledger row per streamed call');
  });

  it('embeds, in input order, with float encoding and dimensions', async () => {
    vendor.reset();
    const result = await p.ai.models.embed({ model: 'text-embedding-3-small', input: ['alpha', 'beta'], dimensions: 4, context: ctx('indexing', 'run-embed') });
    assert.equal(result.embeddings.length, 2);
    assert.equal(result.embeddings[0]!.length, 4);
    assert.notDeepEqual(result.embeddings[0], result.embeddings[1]);
    assert.deepEqual([vendor.requests[0]!.body.encoding_format, vendor.requests[0]!.body.dimensions], ['float', 4]);
    assert.deepEqual((await usageRows('run-embed')).map((r) => [r.kind, r.tokens_out]), [['embedding', 0]]);
  });

  it('retries 503 and 429 with backoff, honouring Retry-After', async () => {
    vendor.reset();
    vendor.script({ status: 503 }, { status: 503 }, { text: 'third time' });
    const t0 = Date.now();
    assert.equal((await p.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, context: ctx('test', 'run-retry') })).content, 'third time');
    assert.equal(vendor.chats().length, 3);
    assert.ok(Date.now() - t0 >= 40 * 0.75 + 80 * 0.75, 'it backed off between tries');
    vendor.reset();
    vendor.script({ status: 429, headers: { 'retry-after': '1' } }, { text: 'after waiting' });
    const t1 = Date.now();
    assert.equal((await p.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, context: ctx('test', 'run-retry') })).content, 'after waiting');
    assert.ok(Date.now() - t1 >= 950, `waited for Retry-After: ${Date.now() - t1} ms`);
    vendor.reset();
    vendor.script({ status: 503 }, { status: 503 }, { status: 503 });
    await failsWith(p.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, context: ctx() }), 502, 'PROVIDER_ERROR');
    assert.equal(vendor.chats().length, 3, 'one try and AI_PROVIDER_MAX_RETRIES (2) retries');
    vendor.reset();
    vendor.script({ status: 400, message: 'bad tool schema' });
    await failsWith(p.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, settings: { fallback_models: ['claude-sonnet-4-5'] }, context: ctx() }), 502, 'PROVIDER_ERROR');
    assert.equal(vendor.chats().length, 1, 'a 400 is not retried, nor handed to a fallback');
    const failed = (await usageRows('run-retry')).filter((r) => !r.ok).length;
    assert.equal(failed, 3, 'failed attempts are in the ledger too');
  });

  it('falls back to the next model after a hard failure', async () => {
    vendor.reset();
    vendor.script({ status: 500 }, { status: 500 }, { status: 500 }, { text: 'from the fallback' });
    const result = await p.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, settings: { fallback_models: ['claude-sonnet-4-5'] }, context: ctx() });
    assert.equal(result.content, 'from the fallback');
    assert.equal(result.model, 'claude-sonnet-4-5');
    assert.equal(vendor.chats().at(-1)!.path, '/anthropic/v1/chat/completions');
    vendor.reset();
    const viaMissingKey = await p.ai.models.chat({ model: 'openrouter/x/y', messages: hello, settings: { fallback_models: ['gemini/gemini-2.5-flash'] }, context: ctx() });
    assert.equal(viaMissingKey.provider, 'gemini', 'a model whose provider has no key falls back too');
  });

  it('stops a call when its caller goes away', async () => {
    vendor.reset();
    vendor.script({ hang: true });
    const controller = new AbortController();
    const t0 = Date.now();
    setTimeout(() => controller.abort(), 200);
    await failsWith(p.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, signal: controller.signal, context: ctx() }), 499, 'CANCELLED');
    assert.ok(Date.now() - t0 < 2000, 'the abort ended it at once');
    assert.equal(vendor.chats().length, 1, 'and it was not retried');
  });

  it('reports usage over HTTP: totals, by model and feature, filters; users see their own', async () => {
    const service = { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` };
    const all = (await (await fetch(`${p.url}/api/usage?feature=agent`, { headers: service })).json()) as { totals: { calls: number; tokens_in: number; cost_usd: number }; by_model: unknown[]; items: Array<{ feature: string }> };
    assert.equal(all.totals.calls, 1);
    assert.equal(all.totals.tokens_in, 12);
    assert.ok(all.items.every((i) => i.feature === 'agent'));
    const byModel = (await (await fetch(`${p.url}/api/usage?model=text-embedding-3-small`, { headers: service })).json()) as { totals: { calls: number } };
    assert.equal(byModel.totals.calls, 1);
    const future = (await (await fetch(`${p.url}/api/usage?from=2999-01-01T00:00:00Z`, { headers: service })).json()) as { totals: { calls: number } };
    assert.equal(future.totals.calls, 0);
    assert.equal((await fetch(`${p.url}/api/usage?from=yesterday`, { headers: service })).status, 400);
    await p.adminPool.query(`insert into ai.usage (user_id, feature, model, provider, kind) values (null, 'project', 'gpt-4.1', 'openai', 'chat')`);
    const mine = (await (await fetch(`${p.url}/api/usage`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${userToken}` } })).json()) as { items: Array<{ user_id: string }> };
    assert.ok(mine.items.length > 0 && mine.items.every((i) => i.user_id === userId), 'a user sees only their own calls');
  });

  it('refuses runs with 402 when billing by credits and none are left', async () => {
    const billed = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_BILLING: 'credits', PLATFORM_OPENAI_API_KEY: GOOD_KEY });
    try {
      await failsWith(billed.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, context: { userId: null, feature: 'test' } }), 402, 'INSUFFICIENT_CREDITS');
      await billed.adminPool.query('update ai.credits set balance_usd = 1');
      assert.equal((await billed.ai.models.chat({ model: 'gpt-4.1-mini', messages: hello, context: { userId: null, feature: 'test' } })).content, 'ok');
      const { rows } = await billed.adminPool.query('select balance_usd::float as b from ai.credits');
      assert.ok(rows[0].b < 1, 'the call was taken from the balance');
    } finally {
      await stopTestPlatform(billed);
    }
  });
});
