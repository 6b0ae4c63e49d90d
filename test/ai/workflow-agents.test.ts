// The workflow agent and orchestration blocks over HTTP, against a scripted
// OpenAI-compatible server: an agent by id (its tools, a session, as the
// user running the workflow), an inline model with builtin tools, an
// orchestration with its delegations, their text streamed into the workflow
// stream as content_delta, and clear failures for unusable references.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { sseEvents } from '../helpers/sse.ts';

type Execution = { execution_id: string; status: string; output: Record<string, any>; error?: string };

describe('workflow agent and orchestration blocks', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let annId: string;
  let bob: string;
  const { api, json, post, put } = aiApi(() => p);
  const chain = (ids: string[]) => ids.slice(1).map((id, i) => ({ source: ids[i], target: id }));
  const workflow = async (token: string, blocks: unknown[]) => {
    const w = await json<{ id: string }>(await post(token, '/workflows', { name: 'agents' }), 201);
    await json(await put(token, `/workflows/${w.id}/graph`, { blocks, edges: chain(blocks.map((b) => (b as { id: string }).id)) }), 200);
    return w.id;
  };

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
    const a = await signUp(p, 'ann-wf-agents@example.com');
    ann = a.access_token;
    annId = a.user.id;
    bob = (await signUp(p, 'bob-wf-agents@example.com')).access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('runs an agent by id on the block’s message as the workflow’s user, with its tools and a session', async () => {
    const agent = (await json<{ id: string }>(await post(ann, '/agents', { name: 'calc', model: 'gpt-4.1-mini', system_prompt: 'You compute.' }), 201)).id;
    await json(await post(ann, `/agents/${agent}/tools`, { tool_name: 'code_execute' }), 201);
    const id = await workflow(ann, [
      { id: 'start', type: 'starter' },
      { id: 'think', type: 'agent', config: { agent_id: agent, message: 'Add <variables.a> and <variables.b>' } },
      { id: 'out', type: 'response', config: { output: '<think.content>' } },
    ]);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'w1', name: 'code_execute', arguments: { code: 'return 2 + 3' } }] }, { text: 'It is 5.' });
    const run = await json<Execution>(await post(ann, `/workflows/${id}/execute`, { variables: { a: 2, b: 3 } }), 200);
    assert.deepEqual([run.status, run.output], ['succeeded', 'It is 5.']);
    assert.deepEqual(vendor.chats()[0]!.body.messages, [{ role: 'system', content: 'You compute.' }, { role: 'user', content: 'Add 2 and 3' }]);
    const logs = await json<{ logs: Array<{ block_id: string; output: any }> }>(await api(ann, `/workflows/${id}/executions/${run.execution_id}/logs`), 200);
    const out = logs.logs.find((l) => l.block_id === 'think')!.output;
    assert.deepEqual(out.tool_calls.map((c: { name: string; ok: boolean }) => [c.name, c.ok]), [['code_execute', true]]);
    assert.deepEqual([out.stop_reason, out.steps, out.usage.tokens_in], ['answered', 2, 24]);
    const { rows } = await p.adminPool.query('select owner_id, agent_id from ai.sessions where id = $1', [out.session_id]);
    assert.deepEqual(rows, [{ owner_id: annId, agent_id: agent }], 'the run’s session belongs to the user running the workflow');

    assert.equal((await post(bob, `/workflows/${id}/execute`, {})).status, 404, 'bob cannot see ann’s workflow');
    const bobs = await workflow(bob, [{ id: 'start', type: 'starter' }, { id: 'think', type: 'agent', config: { agent_id: agent, message: 'hi' } }]);
    const refused = await json<{ error: string }>(await post(bob, `/workflows/${bobs}/execute`, {}), 500);
    assert.match(refused.error, /Agent .* does not exist or is not visible to the user running this workflow/);
  });

  it('runs an inline model with builtin tools and streams its text into the workflow stream', async () => {
    const id = await workflow(ann, [
      { id: 'start', type: 'starter' },
      { id: 'inline', type: 'agent', config: { model: 'gpt-4.1-mini', system_prompt: 'Be brief.', tools: ['code_execute'], settings: { temperature: 0.2 } } },
    ]);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'i1', name: 'code_execute', arguments: { code: 'return 7' } }] }, { text: 'Seven.' });
    const res = await post(ann, `/workflows/${id}/execute/stream`, { variables: { q: 'a number' } });
    const events = await sseEvents(res);
    assert.equal(events.filter((e) => e.type === 'content_delta').map((e) => e.delta).join(''), 'Seven.');
    assert.ok(events.filter((e) => e.type === 'content_delta').every((e) => e.block_id === 'inline'));
    const done = events.find((e) => e.type === 'block_completed' && e.block_id === 'inline')!;
    assert.deepEqual([done.output.content, done.output.model, done.output.tool_calls[0].result], ['Seven.', 'gpt-4.1-mini', JSON.stringify({ result: 7, logs: [] })]);
    const first = vendor.chats()[0]!.body;
    assert.deepEqual([first.messages[1].content, first.temperature, first.tools[0].function.name], [JSON.stringify({ q: 'a number' }), 0.2, 'code_execute'], 'without a message the variables are the message');
    const { rows } = await p.adminPool.query('select feature, step from ai.usage where run_id = $1 order by id', [done.output ? events[0]!.execution_id : '']);
    assert.deepEqual(rows, [{ feature: 'workflow', step: 'inline/step-1' }, { feature: 'workflow', step: 'inline/step-2' }]);

    const broken = await workflow(ann, [{ id: 'start', type: 'starter' }, { id: 'x', type: 'agent', config: { model: 'gpt-4.1-mini', tools: ['no_such_tool'] } }]);
    assert.match((await json<{ error: string }>(await post(ann, `/workflows/${broken}/execute`, {}), 500)).error, /Unknown builtin tool no_such_tool/);
    const empty = await workflow(ann, [{ id: 'start', type: 'starter' }, { id: 'x', type: 'agent', config: {} }]);
    assert.match((await json<{ error: string }>(await post(ann, `/workflows/${empty}/execute`, {}), 500)).error, /needs agent_id, or a model/);
  });

  it('runs an orchestration: its delegations in the block’s output', async () => {
    const member = (await json<{ id: string }>(await post(ann, '/agents', { name: 'helper', model: 'gpt-4.1-mini' }), 201)).id;
    const team = (await json<{ id: string }>(await post(ann, '/orchestrations', { name: 'team', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/orchestrations/${team}/entities`, { entity_type: 'agent', entity_ref_id: member, role_description: 'Helps' }), 201);
    const id = await workflow(ann, [
      { id: 'start', type: 'starter' },
      { id: 'team', type: 'orchestration', config: { orchestration_id: team, message: '<variables.ask>' } },
      { id: 'out', type: 'response', config: { output: { answer: '<team.content>', helpers: '<team.delegations>' } } },
    ]);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'o1', name: 'delegate_to_helper', arguments: { task: 'say hi' } }] }, { text: 'hi' }, { text: 'The helper says hi.' });
    const run = await json<Execution>(await post(ann, `/workflows/${id}/execute`, { variables: { ask: 'greet me' } }), 200);
    assert.equal(run.output.answer, 'The helper says hi.');
    assert.deepEqual(run.output.helpers.map((d: { agent_name: string; output: string }) => [d.agent_name, d.output]), [['helper', 'hi']]);
    assert.equal(vendor.chats()[0]!.body.messages.at(-1).content, 'greet me');
  });
});
