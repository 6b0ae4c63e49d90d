// A run's timeline without a tracing backend (issue 31, sql/0072): GET of an
// agent run, an orchestration run and a workflow execution includes its span
// tree, built from what the run stored: each step with its start, duration,
// model, tokens, cost and error; tool calls with their approvals; a
// delegation (or a sub-agent's call) with its member's model calls and tool
// calls (sql/0078); a block with its model calls.
// (Tracing is off here: the timeline needs none.)
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Node = { name: string; kind: string; start: string; duration_ms: number; tokens_in: number; tokens_out: number; cost_usd: number; status?: string; ok?: boolean; error?: string | null; model?: string; children: Node[] };

/** The tree's shape: names, nested. */
const shape = (n: Node): unknown => (n.children.length ? { [n.name]: n.children.map(shape) } : n.name);
const end = (n: Node) => Date.parse(n.start) + n.duration_ms;

describe('run timelines', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let receiver: http.Server;
  let ann: string;
  const { json, post, put, api } = aiApi(() => p);

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"full"}'), 30));
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', LOG_LEVEL: 'warn', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-timeline@example.com')).access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
    receiver.close();
  });

  it('an agent run: run > step > chat and execute_tool, with timings, tokens, cost and the failed call\'s error', async () => {
    const agentId = (await json<{ id: string }>(await post(ann, '/agents', { name: 'timed', model: 'gpt-4.1-mini' }), 201)).id;
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/store`;
    await json(await post(ann, '/tools', { name: 'store', description: 'Store a thing', type: 'http', input_schema: { type: 'object' }, config: { endpoint } }), 201);
    await json(await post(ann, `/agents/${agentId}/tools`, { tool_name: 'store' }), 201);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 's1', name: 'store', arguments: { x: 1 } }] }, { text: 'The store was full.' });
    const body = await json<{ run_id: string }>(await post(ann, `/agents/${agentId}/run`, { message: 'Store x' }), 200);
    const run = await json<{ timeline: Node; tokens_in: number; cost_usd: number; trace_id: string | null }>(await api(ann, `/agents/${agentId}/runs/${body.run_id}`), 200);
    const t = run.timeline;
    assert.deepEqual(shape(t), { 'agent run': [{ 'step 1': ['chat gpt-4.1-mini', 'execute_tool store'] }, { 'step 2': ['chat gpt-4.1-mini'] }] });
    assert.equal(run.trace_id, null, 'no trace while tracing is off');
    assert.deepEqual([t.kind, t.status, t.tokens_in, t.cost_usd], ['run', 'completed', run.tokens_in, run.cost_usd]);
    const [step1, step2] = t.children as [Node, Node];
    const [chat, tool] = step1.children as [Node, Node];
    assert.deepEqual([chat.kind, chat.model, chat.ok, chat.tokens_in > 0, chat.tokens_out > 0], ['model_call', 'gpt-4.1-mini', true, true, true]);
    assert.deepEqual([tool.kind, tool.ok, tool.error], ['tool_call', false, 'store answered HTTP 500: {"error":"full"}']);
    assert.ok(tool.duration_ms >= 25, `the tool call took its time (${tool.duration_ms} ms)`);
    // A step spans its children; steps follow one another inside the run.
    assert.equal(Date.parse(step1.start), Date.parse(chat.start));
    assert.ok(Math.abs(end(step1) - end(tool)) <= 1);
    assert.ok(Date.parse(step2.start) >= end(step1) - 1 && Date.parse(step1.start) >= Date.parse(t.start) - 1 && end(step2) <= end(t) + 1);
    assert.equal(step1.tokens_in + step2.tokens_in, t.tokens_in, 'the steps\' tokens add up to the run\'s');
  });

  /** The helper: an agent with the store tool (its calls fail), which each delegation below hands a task to. */
  let helper: string;
  const helperScript = () => [{ toolCalls: [{ id: 'h1', name: 'store', arguments: { x: 2 } }] }, { text: 'Helped.' }];

  it('an orchestration run: a delegation under its tool call, with the member\'s model calls and tool calls', async () => {
    helper = (await json<{ id: string }>(await post(ann, '/agents', { name: 'helper', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/agents/${helper}/tools`, { tool_name: 'store' }), 201);
    const team = (await json<{ id: string }>(await post(ann, '/orchestrations', { name: 'timed team', model: 'gpt-4.1' }), 201)).id;
    await json(await post(ann, `/orchestrations/${team}/entities`, { entity_type: 'agent', entity_ref_id: helper, role_description: 'Helps', position: 1 }), 201);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'd1', name: 'delegate_to_helper', arguments: { task: 'help' } }] }, ...helperScript(), { text: 'Done.' });
    const body = await json<{ run_id: string }>(await post(ann, `/orchestrations/${team}/run`, { message: 'Go' }), 200);
    const run = await json<{ timeline: Node }>(await api(ann, `/orchestrations/runs/${body.run_id}`), 200);
    assert.deepEqual(shape(run.timeline), { 'orchestration run': [
      { 'step 1': ['chat gpt-4.1', { 'execute_tool delegate_to_helper': [{ 'delegation helper': ['chat gpt-4.1-mini', 'execute_tool store', 'chat gpt-4.1-mini'] }] }] },
      { 'step 2': ['chat gpt-4.1'] },
    ] });
    const delegation = run.timeline.children[0]!.children[1]!.children[0]!;
    assert.deepEqual([delegation.kind, delegation.status, delegation.tokens_in > 0], ['delegation', 'completed', true]);
    const memberTool = delegation.children[1]!;
    assert.deepEqual([memberTool.kind, memberTool.ok, memberTool.error], ['tool_call', false, 'store answered HTTP 500: {"error":"full"}']);
    assert.ok(memberTool.duration_ms >= 25 && Date.parse(memberTool.start) >= Date.parse(delegation.children[0]!.start), `the member's call in its place (${memberTool.duration_ms} ms)`);
  });

  it('an agent run with a sub-agent: the sub-agent\'s model calls and tool calls under the call that delegated', async () => {
    const lead = (await json<{ id: string }>(await post(ann, '/agents', { name: 'timed lead', model: 'gpt-4.1' }), 201)).id;
    await json(await post(ann, `/agents/${lead}/tools`, { agent_id: helper }), 201);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 's1', name: 'delegate_to_helper', arguments: { task: 'help' } }] }, ...helperScript(), { text: 'Done.' });
    const body = await json<{ run_id: string }>(await post(ann, `/agents/${lead}/run`, { message: 'Go' }), 200);
    const run = await json<{ timeline: Node }>(await api(ann, `/agents/${lead}/runs/${body.run_id}`), 200);
    assert.deepEqual(shape(run.timeline), { 'agent run': [
      { 'step 1': ['chat gpt-4.1', { 'execute_tool delegate_to_helper': ['chat gpt-4.1-mini', 'execute_tool store', 'chat gpt-4.1-mini'] }] },
      { 'step 2': ['chat gpt-4.1'] },
    ] });
  });

  it('a workflow execution: run > block, an agent block with its model calls, a failed block with its error', async () => {
    const service = p.keys.serviceRoleKey;
    const w = (await json<{ id: string }>(await post(service, '/workflows', { name: 'timed flow' }), 201)).id;
    await json(await put(service, `/workflows/${w}/graph`, {
      blocks: [
        { id: 'start', type: 'starter' },
        { id: 'think', type: 'agent', config: { model: 'gpt-4.1-mini', system_prompt: 'Be brief.' } },
        { id: 'out', type: 'response', config: { output: '<think.content>' } },
      ],
      edges: [{ source: 'start', target: 'think' }, { source: 'think', target: 'out' }],
    }), 200);
    vendor.reset();
    vendor.script({ text: 'Brief.' });
    const ran = await json<{ execution_id: string }>(await post(service, `/workflows/${w}/execute`, {}), 200);
    const execution = await json<{ timeline: Node; status: string }>(await api(service, `/workflows/${w}/executions/${ran.execution_id}`), 200);
    assert.deepEqual(shape(execution.timeline), { 'workflow run': ['block start', { 'block think': ['chat gpt-4.1-mini'] }, 'block out'] });
    const think = execution.timeline.children[1]!;
    assert.deepEqual([think.kind, think.status, think.tokens_in > 0, execution.timeline.tokens_in], ['block', 'succeeded', true, think.tokens_in]);
    const { logs } = await json<{ logs: Array<{ block_id: string; tokens_in: number }> }>(await api(service, `/workflows/${w}/executions/${ran.execution_id}/logs`), 200);
    assert.equal(logs.find((l) => l.block_id === 'think')!.tokens_in, think.tokens_in, 'the logs count an agent block\'s own model calls too');
  });
});
