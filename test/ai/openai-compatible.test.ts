// /api/v1 (issue 30, item 3): agents and orchestrations through OpenAI's chat
// completions API, driven by clients people already have: the official
// `openai` SDK and the Vercel AI SDK's OpenAI-compatible provider, unchanged
// but for their base URL and key (a user token; no apikey header). The
// models list follows the access model, a completion and a stream carry the
// scripted vendor's answer and usage, earlier turns reach the model, a
// session continues by header, and errors are OpenAI's body.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('OpenAI-compatible endpoint (/api/v1)', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let bob: string;
  let helperId: string;
  const { json, post, api } = aiApi(() => p);
  const client = (token: string) => new OpenAI({ baseURL: `${p.url}/api/v1`, apiKey: token, maxRetries: 0 });

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-openai@example.com')).access_token;
    bob = (await signUp(p, 'bob-openai@example.com')).access_token;
    helperId = (await json<{ id: string }>(await post(ann, '/agents', { name: 'helper', model: 'gpt-4.1-mini', system_prompt: 'You help.' }), 201)).id;
    await json(await post(bob, '/agents', { name: 'secret', model: 'gpt-4.1-mini' }), 201);
    await json(await post(p.keys.serviceRoleKey, '/agents', { name: 'desk', model: 'gpt-4.1-mini' }), 201);
    await json(await post(p.keys.serviceRoleKey, '/orchestrations', { name: 'team', model: 'gpt-4.1-mini' }), 201);
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('lists what the caller may run: their own agents and the project\'s, never another user\'s', async () => {
    const ids = (await client(ann).models.list()).data.map((m) => m.id).sort();
    assert.deepEqual(ids, ['agent/desk', 'agent/helper', 'orchestration/team']);
    assert.deepEqual((await client(bob).models.list()).data.map((m) => m.id).sort(), ['agent/desk', 'agent/secret', 'orchestration/team']);
    const one = await client(ann).models.retrieve('agent/helper');
    assert.deepEqual([one.id, one.object, one.owned_by], ['agent/helper', 'model', 'user']);
    assert.equal((await client(ann).models.retrieve(`agent/${helperId}`)).owned_by, 'user', 'by id too');
  });

  it('answers a completion from the agent, with usage, in a session the answer names', async () => {
    vendor.reset();
    vendor.script({ text: 'Hello Ann.', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const { data, response } = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.model, 'agent/helper');
    assert.match(data.id, /^chatcmpl-[0-9a-f-]{36}$/);
    assert.deepEqual(data.choices.map((c) => [c.message.role, c.message.content, c.finish_reason]), [['assistant', 'Hello Ann.', 'stop']]);
    assert.deepEqual(data.usage, { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
    const [chat] = vendor.chats();
    assert.deepEqual(chat!.body.messages.map((m: { role: string; content: string }) => [m.role, m.content]), [['system', 'You help.'], ['user', 'Hi']], 'the agent\'s own prompt');
    const session = response.headers.get('x-session-id')!;
    const messages = await json<Array<{ role: string; content: string }>>(await api(ann, `/sessions/${session}/messages`), 200);
    assert.deepEqual(messages.map((m) => [m.role, m.content]), [['user', 'Hi'], ['assistant', 'Hello Ann.']]);
  });

  it('gives the model the earlier turns a client sends, and continues a session named by header', async () => {
    vendor.reset();
    vendor.script({ text: 'It was blue.' }, { text: 'Still blue.' });
    const { response } = await client(ann).chat.completions.create({
      model: 'agent/helper',
      messages: [{ role: 'system', content: 'ignored' }, { role: 'user', content: 'My car is blue.' }, { role: 'assistant', content: 'Noted.' }, { role: 'user', content: 'What colour was it?' }],
    }).withResponse();
    const roles = (i: number) => vendor.chats()[i]!.body.messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`);
    assert.deepEqual(roles(0), ['system:You help.', 'user:My car is blue.', 'assistant:Noted.', 'user:What colour was it?']);
    const session = response.headers.get('x-session-id')!;
    await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Sure?' }] }, { headers: { 'x-session-id': session } });
    assert.deepEqual(roles(1), ['system:You help.', 'user:My car is blue.', 'assistant:Noted.', 'user:What colour was it?', 'assistant:It was blue.', 'user:Sure?']);
    await assert.rejects(client(bob).chat.completions.create({ model: 'agent/desk', messages: [{ role: 'user', content: 'x' }] }, { headers: { 'x-session-id': session } }),
      (e: InstanceType<typeof OpenAI.APIError>) => e.status === 404 && /Session not found/.test(e.message), 'another user\'s session is not found');
  });

  it('streams chunks as OpenAI does: the role, the text, the finish reason, usage when asked, then [DONE]', async () => {
    vendor.reset();
    vendor.script({ text: 'A streamed answer, in pieces.', usage: { prompt_tokens: 7, completion_tokens: 6 } });
    const stream = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Stream it' }], stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(chunks[0]!.choices[0]!.delta.role, 'assistant');
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]!.id && c.model === 'agent/helper'));
    assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'A streamed answer, in pieces.');
    assert.ok(chunks.filter((c) => c.choices[0]?.delta.content).length >= 2, 'the text arrives in more than one chunk');
    assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, 'stop');
    assert.deepEqual([chunks.at(-1)!.choices, chunks.at(-1)!.usage], [[], { prompt_tokens: 7, completion_tokens: 6, total_tokens: 13 }]);
    const raw = await (await fetch(`${p.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ann}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'agent/helper', messages: [{ role: 'user', content: 'x' }], stream: true }) })).text();
    assert.match(raw, /data: \[DONE\]\n\n$/, 'the stream ends with data: [DONE]');
  });

  it('runs an orchestration by its model id', async () => {
    vendor.reset();
    vendor.script({ text: 'The team says hello.' });
    const done = await client(ann).chat.completions.create({ model: 'orchestration/team', messages: [{ role: 'user', content: 'Hello team' }] });
    assert.equal(done.choices[0]!.message.content, 'The team says hello.');
  });

  it('answers errors in OpenAI\'s body: another user\'s agent, a bad key, a last turn that is not the user\'s', async () => {
    const refused = async (token: string, body: Record<string, unknown>, status: number, code: string | null, message: RegExp) => {
      const res = await fetch(`${p.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await res.json()) as { error: { message: string; type: string; param: null; code: string | null } };
      assert.equal(res.status, status, JSON.stringify(answer));
      assert.equal(answer.error.code, code);
      assert.equal(answer.error.param, null);
      assert.match(answer.error.message, message);
      return answer.error;
    };
    const hello = [{ role: 'user', content: 'hi' }];
    assert.equal((await refused(bob, { model: 'agent/helper', messages: hello }, 404, 'model_not_found', /agent\/helper/)).type, 'invalid_request_error');
    await refused(bob, { model: `agent/${helperId}`, messages: hello }, 404, 'model_not_found', /does not exist or you do not have access/);
    assert.equal((await refused('not-a-token', { model: 'agent/helper', messages: hello }, 401, 'invalid_api_key', /Invalid API key/)).type, 'authentication_error');
    await refused(p.keys.anonKey, { model: 'agent/helper', messages: hello }, 403, 'forbidden', /anonymous key alone is refused/);
    await refused(ann, { model: 'agent/helper', messages: [{ role: 'assistant', content: 'hi' }] }, 400, 'validation_error', /last message must be the user/);
    await refused(ann, { messages: hello }, 400, 'validation_error', /model is required/);
    await assert.rejects(client(bob).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'x' }] }), (e: InstanceType<typeof OpenAI.NotFoundError>) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found');
    const bare = await fetch(`${p.url}/api/v1/models`);
    assert.deepEqual([bare.status, ((await bare.json()) as { error: { code: string } }).error.code], [401, 'invalid_api_key'], 'no credentials at all');
    // Only this surface takes a bearer alone as its key: the rest of /api still wants apikey.
    const elsewhere = await fetch(`${p.url}/api/agents`, { headers: { authorization: `Bearer ${ann}` } });
    assert.deepEqual([elsewhere.status, await elsewhere.json()], [401, { error: 'No API key found in request' }]);
  });

  it('works with the Vercel AI SDK\'s OpenAI-compatible provider, generating and streaming', async () => {
    const pgbase = createOpenAICompatible({ name: 'pgbase', baseURL: `${p.url}/api/v1`, apiKey: ann });
    vendor.reset();
    vendor.script({ text: 'Generated.' }, { text: 'Streamed through the AI SDK.' });
    const generated = await generateText({ model: pgbase('agent/helper'), prompt: 'Say something', maxRetries: 0 });
    assert.equal(generated.text, 'Generated.');
    const streamed = streamText({ model: pgbase('agent/helper'), prompt: 'Stream something', maxRetries: 0 });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    assert.equal(text, 'Streamed through the AI SDK.');
  });
});
