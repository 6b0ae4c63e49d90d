// /api/v1 with what OpenAI clients bring beside their messages (issue 47,
// items 11 and 12): their own tools, offered beside the agent's (a call to
// one ends the answer with finish_reason tool_calls; the client's next
// request with the results goes on in the same session and run), and a
// response_format the answer is checked against (one retry, then an
// error). Driven by the official `openai` SDK and the Vercel AI SDK,
// unchanged, against the scripted vendor server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, Output, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Msg = { role: string; content: string | null; tool_calls?: Array<{ id: string; name?: string; function?: { name: string } }>; tool_call_id?: string };

describe('OpenAI-compatible endpoint: client tools and structured output', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let bob: string;
  let agentId: string;
  const { json, post, api } = aiApi(() => p);
  const client = (token: string) => new OpenAI({ baseURL: `${p.url}/api/v1`, apiKey: token, maxRetries: 0 });
  const weather: OpenAI.Chat.Completions.ChatCompletionTool = {
    type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  };
  const sent = (i: number) => vendor.chats()[i]!.body as { messages: Msg[]; tools?: Array<{ function: { name: string } }>; tool_choice?: unknown; response_format?: unknown };

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-client-tools@example.com')).access_token;
    bob = (await signUp(p, 'bob-client-tools@example.com')).access_token;
    agentId = (await json<{ id: string }>(await post(ann, '/agents', { name: 'helper', model: 'gpt-4.1-mini', system_prompt: 'You help.' }), 201)).id;
    await json(await post(ann, `/agents/${agentId}/tools`, { tool_name: 'code_execute' }), 201);
    await json(await post(p.keys.serviceRoleKey, '/orchestrations', { name: 'team', model: 'gpt-4.1-mini' }), 201);
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('hands a call of the client\'s tool to the client, and goes on in the same run with its result', async () => {
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'It is sunny in Oslo.', usage: { prompt_tokens: 20, completion_tokens: 6 } });
    const question = { role: 'user' as const, content: 'Weather in Oslo?' };
    const { data: first, response } = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [question], tools: [weather], tool_choice: 'auto' }).withResponse();
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
    assert.equal(first.choices[0]!.message.content, null);
    assert.deepEqual(first.choices[0]!.message.tool_calls, [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }]);
    assert.deepEqual(sent(0).tools!.map((t) => t.function.name).sort(), ['code_execute', 'get_weather'], 'offered beside the agent\'s own');
    assert.equal(sent(0).tool_choice, 'auto');
    const session = response.headers.get('x-session-id')!;
    const runId = first.id.replace('chatcmpl-', '');
    const waiting = await json<{ status: string }>(await api(ann, `/agents/${agentId}/runs/${runId}`), 200);
    assert.equal(waiting.status, 'waiting_client');

    const { data: second, response: again } = await client(ann).chat.completions.create({
      model: 'agent/helper', tools: [weather],
      messages: [question, first.choices[0]!.message, { role: 'tool', tool_call_id: 'call_w1', content: 'sunny, 21 C' }],
    }).withResponse();
    assert.equal(second.id, first.id, 'the same run');
    assert.equal(again.headers.get('x-session-id'), session, 'the same session');
    assert.deepEqual([second.choices[0]!.message.content, second.choices[0]!.finish_reason], ['It is sunny in Oslo.', 'stop']);
    assert.deepEqual(second.usage, { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 }, 'this request\'s part of the run only: the first answer reported its own');
    assert.ok(first.usage!.total_tokens > 0);
    const [call, result] = sent(1).messages.slice(-2);
    assert.deepEqual([call!.role, call!.tool_calls?.map((c) => c.id)], ['assistant', ['call_w1']]);
    assert.deepEqual([result!.role, result!.tool_call_id, result!.content], ['tool', 'call_w1', 'sunny, 21 C'], 'the model read the client\'s result');
    const done = await json<{ status: string; output: string }>(await api(ann, `/agents/${agentId}/runs/${runId}`), 200);
    assert.deepEqual([done.status, done.output], ['completed', 'It is sunny in Oslo.']);
    const messages = await json<Msg[]>(await api(ann, `/sessions/${session}/messages`), 200);
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);

    // The results again: nothing waits for them now.
    await assert.rejects(client(ann).chat.completions.create({ model: 'agent/helper', tools: [weather], messages: [question, first.choices[0]!.message, { role: 'tool', tool_call_id: 'call_w1', content: 'x' }] }),
      (e: InstanceType<typeof OpenAI.APIError>) => e.status === 409 && e.code === 'conflict');
    // Another user cannot answer someone's waiting run.
    vendor.script({ toolCalls: [{ id: 'call_w2', name: 'get_weather', arguments: { city: 'Rome' } }] });
    const pending = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Rome?' }], tools: [weather] });
    await assert.rejects(client(bob).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Rome?' }, pending.choices[0]!.message, { role: 'tool', tool_call_id: 'call_w2', content: 'x' }] }),
      (e: InstanceType<typeof OpenAI.APIError>) => e.status === 404, 'bob cannot even see the model');
  });

  it('runs the agent\'s own tools inside, unseen, and hands over only the client\'s', async () => {
    vendor.reset();
    vendor.script(
      { toolCalls: [{ id: 'own_1', name: 'code_execute', arguments: { code: 'return 6 * 7' } }, { id: 'call_w3', name: 'get_weather', arguments: { city: 'Lima' } }] },
      { text: '42 and cloudy.' },
    );
    const asked = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Both' }], tools: [weather] });
    assert.deepEqual(asked.choices[0]!.message.tool_calls!.map((c) => c.id), ['call_w3']);
    const answered = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Both' }, asked.choices[0]!.message, { role: 'tool', tool_call_id: 'call_w3', content: 'cloudy' }], tools: [weather] });
    assert.equal(answered.choices[0]!.message.content, '42 and cloudy.');
    const tools = sent(1).messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]);
    assert.equal(tools.length, 2);
    assert.match(String(tools[0]![1]), /42/, 'the agent\'s own tool ran');
    assert.deepEqual(tools[1], ['call_w3', 'cloudy']);
  });

  it('streams the calls as OpenAI streams them, and the answer after the results', async () => {
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'call_s1', name: 'get_weather', arguments: { city: 'Kyiv' } }] }, { text: 'Snow in Kyiv.' });
    const question = { role: 'user' as const, content: 'Kyiv?' };
    const first = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [question], tools: [weather], stream: true, stream_options: { include_usage: true } });
    const calls: Array<{ id?: string; name?: string; arguments: string }> = [];
    let finish: string | null = null;
    let usage = false;
    for await (const chunk of first) {
      if (chunk.usage) usage = true;
      const choice = chunk.choices[0];
      if (!choice) continue;
      for (const d of choice.delta.tool_calls ?? []) {
        calls[d.index] ??= { arguments: '' };
        if (d.id) calls[d.index]!.id = d.id;
        if (d.function?.name) calls[d.index]!.name = d.function.name;
        calls[d.index]!.arguments += d.function?.arguments ?? '';
      }
      finish = choice.finish_reason ?? finish;
    }
    assert.deepEqual(calls, [{ id: 'call_s1', name: 'get_weather', arguments: '{"city":"Kyiv"}' }]);
    assert.equal(finish, 'tool_calls');
    assert.ok(usage, 'usage when asked');
    const assistant = { role: 'assistant' as const, content: null, tool_calls: [{ id: 'call_s1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Kyiv"}' } }] };
    const second = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [question, assistant, { role: 'tool', tool_call_id: 'call_s1', content: 'snow' }], tools: [weather], stream: true });
    let text = '';
    for await (const chunk of second) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Snow in Kyiv.');
  });

  it('completes a round trip with a client tool through the Vercel AI SDK, generating and streaming', async () => {
    const pgbase = createOpenAICompatible({ name: 'pgbase', baseURL: `${p.url}/api/v1`, apiKey: ann });
    const ran: string[] = [];
    const tools = { get_weather: tool({ description: 'The weather in a city', inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }), execute: async ({ city }) => (ran.push(city), `rain in ${city}`) }) };
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'call_v1', name: 'get_weather', arguments: { city: 'Bergen' } }] }, { text: 'Bergen: rain.' });
    const generated = await generateText({ model: pgbase('agent/helper'), prompt: 'Bergen?', tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    assert.equal(generated.text, 'Bergen: rain.');
    assert.deepEqual(ran, ['Bergen']);
    assert.deepEqual(sent(1).messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]), [['call_v1', 'rain in Bergen']]);
    vendor.script({ toolCalls: [{ id: 'call_v2', name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'Paris: rain.' });
    const streamed = streamText({ model: pgbase('agent/helper'), prompt: 'Paris?', tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    assert.equal(text, 'Paris: rain.');
    assert.deepEqual(ran, ['Bergen', 'Paris']);
  });

  it('asks the model for a json_schema answer and checks it: a wrong answer is retried once with the reason', async () => {
    const format = { type: 'json_schema' as const, json_schema: { name: 'city', strict: true, schema: { type: 'object', properties: { name: { type: 'string' }, people: { type: 'integer' } }, required: ['name', 'people'], additionalProperties: false } } };
    vendor.reset();
    vendor.script({ text: '{"name": "Oslo", "people": 709000}' });
    const right = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Oslo as JSON' }], response_format: format });
    assert.deepEqual(JSON.parse(right.choices[0]!.message.content!), { name: 'Oslo', people: 709000 });
    assert.deepEqual(sent(0).response_format, format, 'the format reached the model');

    vendor.reset();
    vendor.script({ text: '{"name": "Oslo"}' }, { text: '{"name": "Oslo", "people": 1}' });
    const retried = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Oslo as JSON' }], response_format: format });
    assert.equal(retried.choices[0]!.message.content, '{"name": "Oslo", "people": 1}');
    assert.match(String(sent(1).messages.at(-1)!.content), /does not match the required response format: .*people/, 'told why');

    vendor.script({ text: 'not json' }, { text: '[1, 2]' });
    await assert.rejects(client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Oslo as JSON' }], response_format: format }),
      (e: InstanceType<typeof OpenAI.APIError>) => e.status === 502 && e.code === 'response_format_mismatch' && /after one retry/.test(e.message));

    // Streamed: the checked answer comes whole, once checked (the wrong first try is never sent).
    vendor.script({ text: '{"name": 1}' }, { text: '{"name": "Bergen", "people": 2}' });
    const streamed = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Bergen as JSON' }], response_format: format, stream: true });
    let text = '';
    for await (const chunk of streamed) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, '{"name": "Bergen", "people": 2}');

    vendor.script({ text: '{"ok": true}' });
    const object = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Any object' }], response_format: { type: 'json_object' } });
    assert.equal(object.choices[0]!.message.content, '{"ok": true}');
  });

  it('gives the Vercel AI SDK a structured answer it parses', async () => {
    const pgbase = createOpenAICompatible({ name: 'pgbase', baseURL: `${p.url}/api/v1`, apiKey: ann, supportsStructuredOutputs: true });
    vendor.reset();
    vendor.script({ text: '{"name":"Rome","people":2800000}' });
    const { output } = await generateText({
      model: pgbase('agent/helper'), prompt: 'Rome', maxRetries: 0,
      output: Output.object({ schema: jsonSchema<{ name: string; people: number }>({ type: 'object', properties: { name: { type: 'string' }, people: { type: 'number' } }, required: ['name', 'people'], additionalProperties: false }) }),
    });
    assert.deepEqual(output, { name: 'Rome', people: 2800000 });
    assert.equal((sent(0).response_format as { type: string }).type, 'json_schema');
  });

  it('refuses what it cannot take, in OpenAI\'s body', async () => {
    const refused = async (body: Record<string, unknown>, status: number, message: RegExp) => {
      const res = await fetch(`${p.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ann}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await res.json()) as { error: { message: string; code: string } };
      assert.equal(res.status, status, JSON.stringify(answer));
      assert.match(answer.error.message, message);
    };
    const hello = [{ role: 'user', content: 'hi' }];
    await refused({ model: 'orchestration/team', messages: hello, tools: [weather] }, 400, /for agents' models/);
    await refused({ model: 'agent/helper', messages: hello, tools: [{ type: 'retrieval' }] }, 400, /only \{"type": "function"\} tools/);
    await refused({ model: 'agent/helper', messages: hello, tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } }, 400, /not among tools/);
    await refused({ model: 'agent/helper', messages: hello, tools: [{ type: 'function', function: { name: 'code_execute' } }] }, 400, /one of the agent's own tools/);
    await refused({ model: 'agent/helper', messages: hello, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', patternProperties: { '^a': {} } } } } }, 400, /patternProperties is not supported/);
    await refused({ model: 'agent/helper', messages: hello, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'nonsense' } } } }, 400, /schema cannot be used/);
    await refused({ model: 'agent/helper', messages: [...hello, { role: 'tool', tool_call_id: 'call_nobody', content: 'x' }] }, 409, /waits for the result of tool call call_nobody/);
  });

  it('keeps a waiting run in the database, not a process: another server takes the results and finishes it', async () => {
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'call_r1', name: 'get_weather', arguments: { city: 'Tromso' } }] }, { text: 'Polar night in Tromso.' });
    const question = { role: 'user' as const, content: 'Tromso?' };
    const asked = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [question], tools: [weather] });
    const other = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', AI_MASTER_KEY: p.keys.aiMasterKey }, { databaseUrl: p.config.DATABASE_URL! });
    try {
      const elsewhere = new OpenAI({ baseURL: `${other.url}/api/v1`, apiKey: ann, maxRetries: 0 });
      const done = await elsewhere.chat.completions.create({ model: 'agent/helper', messages: [question, asked.choices[0]!.message, { role: 'tool', tool_call_id: 'call_r1', content: 'dark' }], tools: [weather] });
      assert.deepEqual([done.id, done.choices[0]!.message.content], [asked.id, 'Polar night in Tromso.']);
      const { rows } = await p.adminPool.query<{ status: string; runner: string | null }>('select status, runner from ai.agent_runs where id = $1', [asked.id.replace('chatcmpl-', '')]);
      assert.equal(rows[0]!.status, 'completed');
    } finally {
      await stopTestPlatform(other);
    }
  });

  it('cancels a run that waits for its client; its results are then refused', async () => {
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'call_c1', name: 'get_weather', arguments: { city: 'Nuuk' } }] });
    const asked = await client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Nuuk?' }], tools: [weather] });
    const runId = asked.id.replace('chatcmpl-', '');
    await json(await post(ann, `/agents/${agentId}/runs/${runId}/cancel`, {}), 200);
    assert.equal((await json<{ status: string }>(await api(ann, `/agents/${agentId}/runs/${runId}`), 200)).status, 'cancelled');
    await assert.rejects(client(ann).chat.completions.create({ model: 'agent/helper', messages: [{ role: 'user', content: 'Nuuk?' }, asked.choices[0]!.message, { role: 'tool', tool_call_id: 'call_c1', content: 'cold' }], tools: [weather] }),
      (e: InstanceType<typeof OpenAI.APIError>) => e.status === 409);
  });
});
