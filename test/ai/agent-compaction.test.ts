// Compaction of long sessions over HTTP, against a scripted OpenAI-compatible
// server: past the context window (DEFAULT_MAX_CONTEXT_TOKENS less
// COMPACTION_BUFFER, at CHARS_PER_TOKEN) the older messages are summarised by
// DEFAULT_COMPACTION_MODEL, the last COMPACTION_KEEP_LAST_N sent as they are,
// the summary kept on the session for later runs; an agent may turn it off.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { aiApi, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { sseEvents } from '../helpers/sse.ts';

type Run = { session_id: string; run_id: string; output: string };

describe('session compaction', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let annId: string;
  const { api, json, post, put } = aiApi(() => p);

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
    await json(await put(p.keys.serviceRoleKey, '/settings', {
      settings: { DEFAULT_MAX_CONTEXT_TOKENS: '1000', COMPACTION_BUFFER: '0', CHARS_PER_TOKEN: '4', COMPACTION_KEEP_LAST_N: '2', DEFAULT_COMPACTION_MODEL: 'gpt-4.1-nano' },
    }), 200);
    const session = (await createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } }).auth.signUp({ email: 'ann-compaction@example.com', password: 'a-good-password' })).data.session!;
    ann = session.access_token;
    annId = session.user.id;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('summarises the older turns once the history passes the window, keeps the last ones, and reuses the summary', async () => {
    const agent = (await json<{ id: string }>(await post(ann, '/agents', { name: 'long talker', model: 'gpt-4.1-mini', system_prompt: 'Be helpful.' }), 201)).id;
    const [a, b, c] = ['A'.repeat(1500), 'B'.repeat(1500), 'C'.repeat(1500)];
    vendor.reset();
    vendor.script({ text: 'ok1' }, { text: 'ok2' });
    const first = await json<Run>(await post(ann, `/agents/${agent}/run`, { message: a }), 200);
    await json(await post(ann, `/agents/${agent}/run`, { message: b, session_id: first.session_id }), 200);
    assert.equal(vendor.chats().length, 2, 'about 750 tokens: no compaction yet');

    vendor.script({ text: 'Notes: the user sent a line of As.' }, { text: 'ok3' });
    const res = await post(ann, `/agents/${agent}/run/stream`, { message: c, session_id: first.session_id });
    const events = await sseEvents(res);
    const compaction = events.find((e) => e.type === 'compaction')!;
    assert.deepEqual([compaction.model, compaction.summarized_messages, compaction.kept_messages], ['gpt-4.1-nano', 2, 2]);
    assert.ok(compaction.estimated_tokens_before > 1000 && compaction.estimated_tokens_after < 1000);
    const [summarise, answer] = vendor.chats().slice(2);
    assert.equal(summarise!.body.model, 'gpt-4.1-nano');
    assert.equal(summarise!.body.max_tokens, 2000, 'COMPACTION_MAX_OUTPUT_TOKENS');
    assert.match(summarise!.body.messages[1].content, new RegExp(`User: ${a}\\nAssistant: ok1$`));
    assert.deepEqual(answer!.body.messages.map((m: { role: string; content: string }) => [m.role, m.content.slice(0, 40)]), [
      ['system', 'Be helpful.'], ['system', 'Summary of the earlier conversation:\nNot'], ['user', b.slice(0, 40)], ['assistant', 'ok2'], ['user', c.slice(0, 40)],
    ]);
    assert.equal(events.at(-1)!.output, 'ok3');

    const session = await json<{ summary: string; compactions: number; summary_through: string }>(await api(ann, `/sessions/${first.session_id}`), 200);
    assert.deepEqual([session.summary, session.compactions], ['Notes: the user sent a line of As.', 1]);
    const messages = await json<Array<{ id: number; content: string }>>(await api(ann, `/sessions/${first.session_id}/messages`), 200);
    assert.equal(messages.length, 6, 'every message is kept as it was');
    assert.equal(String(messages[1]!.id), String(session.summary_through), 'the summary covers the first two');
    const { rows } = await p.adminPool.query('select model, feature, step, user_id from ai.usage where step = $1', ['compaction']);
    assert.deepEqual(rows, [{ model: 'gpt-4.1-nano', feature: 'agent', step: 'compaction', user_id: annId }]);

    vendor.script({ text: 'ok4' });
    await json(await post(ann, `/agents/${agent}/run`, { message: 'D', session_id: first.session_id }), 200);
    assert.equal(vendor.chats().length, 5, 'the summary is reused: no second compaction');
    assert.deepEqual(vendor.chats()[4]!.body.messages.map((m: { role: string; content: string }) => m.content.slice(0, 12)),
      ['Be helpful.', 'Summary of t', b.slice(0, 12), 'ok2', c.slice(0, 12), 'ok3', 'D']);
  });

  it('leaves a session alone when the agent turns compaction off', async () => {
    const agent = (await json<{ id: string }>(await post(ann, '/agents', { name: 'verbatim', model: 'gpt-4.1-mini', settings: { compaction: { enabled: false } } }), 201)).id;
    vendor.reset();
    vendor.script({ text: 'one' }, { text: 'two' }, { text: 'three' });
    const first = await json<Run>(await post(ann, `/agents/${agent}/run`, { message: 'E'.repeat(2500) }), 200);
    await json(await post(ann, `/agents/${agent}/run`, { message: 'F'.repeat(2500), session_id: first.session_id }), 200);
    await json(await post(ann, `/agents/${agent}/run`, { message: 'G', session_id: first.session_id }), 200);
    assert.equal(vendor.chats().length, 3);
    assert.ok(vendor.chats().every((c) => c.body.model === 'gpt-4.1-mini'));
    assert.equal(vendor.chats()[2]!.body.messages.length, 5);
    assert.equal(vendor.chats()[2]!.body.compaction, undefined, 'agent settings beyond tuning are not sent to the model');
  });
});
