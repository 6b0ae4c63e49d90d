// Approval hooks over HTTP: a run pauses on approval_requested, is answered
// at POST /api/agents/{id}/runs/{run_id}/approvals/{approval_id} (approve,
// approve with new arguments, deny), a timeout denies, and a paused run
// survives its streaming client going away and finishes after the answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { sseStream, untilEvent } from '../helpers/sse.ts';

type Event = Record<string, unknown> & { type: string };
type RunRecord = { id: string; status: string; output: string | null; approvals: Array<{ id: string; status: string; tool_name: string; arguments: unknown; decided_arguments: unknown; message: string }>; messages: Array<{ role: string; content: string; latency_ms: number | null }> };

/** Server-sent events as they arrive. */
describe('agent approvals', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let bob: string;
  const { api, json, post } = aiApi(() => p);

  /** An agent with code_execute whose PreToolUse asks a human. */
  const approvalAgent = async (config: Record<string, unknown>) => {
    const agent = (await json<{ id: string }>(await post(ann, '/agents', { name: 'careful', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/agents/${agent}/tools`, { tool_name: 'code_execute' }), 201);
    await json(await post(ann, `/agents/${agent}/hooks`, { event: 'PreToolUse', type: 'approval', config, matcher: 'code_execute' }), 201);
    // Limited to another tool by its matcher: never asked.
    await json(await post(ann, `/agents/${agent}/hooks`, { event: 'PreToolUse', type: 'approval', config: {}, matcher: 'http_request' }), 201);
    return agent;
  };
  const runRecord = (agent: string, run: string) => api(ann, `/agents/${agent}/runs/${run}`).then((r) => json<RunRecord>(r, 200));

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-approvals@example.com')).access_token;
    bob = (await signUp(p, 'bob-approvals@example.com')).access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('pauses on approval_requested; the owner approves with new arguments, once; others cannot answer', async () => {
    const agent = await approvalAgent({ message: 'Run this code?' });
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'c1', name: 'code_execute', arguments: { code: 'return 1' } }] }, { text: 'Done.' });
    const stream = sseStream<Event>(await post(ann, `/agents/${agent}/run/stream`, { message: 'compute' }));
    const start = await untilEvent(stream, 'start');
    const asked = await untilEvent(stream, 'approval_requested');
    assert.deepEqual([asked.run_id, asked.session_id, asked.event, asked.message], [start.run_id, start.session_id, 'PreToolUse', 'Run this code?']);
    assert.deepEqual(asked.tool_call, { id: 'c1', name: 'code_execute', arguments: { code: 'return 1' } });
    assert.ok(Date.parse(asked.expires_at as string) - Date.now() > 200_000, 'the default timeout is 300 s');

    const paused = await runRecord(agent, start.run_id as string);
    assert.equal(paused.status, 'waiting_approval');
    assert.deepEqual(paused.approvals.map((a) => [a.id, a.status, a.tool_name, a.message]), [[asked.approval_id, 'pending', 'code_execute', 'Run this code?']]);

    const path = `/agents/${agent}/runs/${start.run_id}/approvals/${asked.approval_id}`;
    assert.equal((await post(bob, path, { decision: 'approve' })).status, 404, 'another user cannot answer');
    assert.equal((await api(bob, `/agents/${agent}/runs/${start.run_id}`)).status, 404, 'nor read the run');
    const bad = await json<{ error: string }>(await post(ann, path, { decision: 'maybe' }), 400);
    assert.match(bad.error, /decision must be "approve" or "deny"/);
    assert.equal((await post(ann, path, { decision: 'approve', arguments: 'x' })).status, 400);
    assert.equal((await post(ann, `/agents/${agent}/runs/${start.run_id}/approvals/00000000-0000-0000-0000-000000000000`, { decision: 'approve' })).status, 404);

    const answered = await json<{ status: string; decided_arguments: unknown }>(await post(ann, path, { decision: 'approve', arguments: { code: 'return 7' } }), 200);
    assert.deepEqual([answered.status, answered.decided_arguments], ['approved', { code: 'return 7' }]);
    const again = await json<{ error: string }>(await post(ann, path, { decision: 'deny' }), 409);
    assert.match(again.error, /already answered/);

    const rest: Event[] = [];
    await untilEvent(stream, 'complete', rest);
    assert.deepEqual(rest.filter((e) => e.type !== 'content_delta').map((e) => e.type), ['approval_resolved', 'hook', 'tool_result', 'usage', 'complete']);
    const result = rest.find((e) => e.type === 'tool_result')!;
    assert.equal(JSON.parse(result.result as string).result, 7, 'the approver’s arguments ran');
    const done = await runRecord(agent, start.run_id as string);
    assert.deepEqual([done.status, done.output, done.approvals[0]!.status], ['completed', 'Done.', 'approved']);
    assert.ok(done.messages.filter((m) => m.role !== 'user').every((m) => typeof m.latency_ms === 'number'), 'model turns and tool calls record their latency');
  });

  it('a deny blocks the call and the model reads why; a timeout denies as timed_out', async () => {
    const agent = await approvalAgent({ timeout: 1 });
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'd1', name: 'code_execute', arguments: { code: 'return 1' } }] }, { text: 'Not allowed.' });
    const stream = sseStream<Event>(await post(ann, `/agents/${agent}/run/stream`, { message: 'one' }));
    const asked = await untilEvent(stream, 'approval_requested');
    await json(await post(ann, `/agents/${agent}/runs/${asked.run_id}/approvals/${asked.approval_id}`, { decision: 'deny' }), 200);
    const denied = await untilEvent(stream, 'tool_result');
    assert.deepEqual([denied.ok, denied.error], [false, 'Denied by hook: the approver denied it']);
    await untilEvent(stream, 'complete');
    assert.equal(vendor.chats()[1]!.body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === 'd1').content, 'Error: Denied by hook: the approver denied it');

    vendor.script({ toolCalls: [{ id: 't1', name: 'code_execute', arguments: { code: 'return 2' } }] }, { text: 'Timed out.' });
    const late = sseStream<Event>(await post(ann, `/agents/${agent}/run/stream`, { message: 'two' }));
    const waited = await untilEvent(late, 'approval_requested');
    const resolved = await untilEvent(late, 'approval_resolved');
    assert.equal(resolved.status, 'timed_out');
    const timedOut = await untilEvent(late, 'tool_result');
    assert.deepEqual([timedOut.ok, timedOut.error], [false, 'Denied by hook: no approval within 1 s']);
    await untilEvent(late, 'complete');
    const tooLate = await json<{ error: string }>(await post(ann, `/agents/${agent}/runs/${waited.run_id}/approvals/${waited.approval_id}`, { decision: 'approve' }), 409);
    assert.match(tooLate.error, /timed_out/);
  });

  it('a paused run survives its client going away, resumes on the answer and finishes on its own', async () => {
    const agent = await approvalAgent({ message: 'ok?' });
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'g1', name: 'code_execute', arguments: { code: 'return 40 + 2' } }] }, { text: 'It is 42.' });
    const client = new AbortController();
    const stream = sseStream<Event>(await fetch(`${p.url}/api/agents/${agent}/run/stream`, { method: 'POST', headers: aiApi(() => p).headers(ann), body: JSON.stringify({ message: 'compute' }), signal: client.signal }));
    const asked = await untilEvent(stream, 'approval_requested');
    client.abort();
    await new Promise((r) => setTimeout(r, 300));
    const run = asked.run_id as string;
    assert.equal((await runRecord(agent, run)).status, 'waiting_approval', 'the client left; the run waits on');

    await json(await post(ann, `/agents/${agent}/runs/${run}/approvals/${asked.approval_id}`, { decision: 'approve' }), 200);
    let record = await runRecord(agent, run);
    for (let i = 0; i < 100 && record.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      record = await runRecord(agent, run);
    }
    assert.deepEqual([record.status, record.output], ['completed', 'It is 42.']);
    const tool = record.messages.find((m) => m.role === 'tool')!;
    assert.equal(JSON.parse(tool.content).result, 42, 'the tool ran after the answer');
    const sessions = await json<Array<{ id: string }>>(await api(ann, '/sessions'), 200);
    assert.ok(sessions.some((s) => s.id === asked.session_id), 'and the conversation is kept in its session');
  });

  it('asks before a delegation to a sub-agent (OnDelegation), and a deny keeps the sub-agent from running', async () => {
    const helper = (await json<{ id: string }>(await post(ann, '/agents', { name: 'helper', model: 'gpt-4.1-mini' }), 201)).id;
    const lead = (await json<{ id: string }>(await post(ann, '/agents', { name: 'lead', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/agents/${lead}/tools`, { agent_id: helper }), 201);
    await json(await post(ann, `/agents/${lead}/hooks`, { event: 'OnDelegation', type: 'approval', config: { message: 'Let the helper do it?' }, matcher: 'delegate_to_helper' }), 201);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'd1', name: 'delegate_to_helper', arguments: { task: 'say hi' } }] }, { text: 'I did it myself.' });
    const stream = sseStream<Event>(await post(ann, `/agents/${lead}/run/stream`, { message: 'greet' }));
    const asked = await untilEvent(stream, 'approval_requested');
    assert.deepEqual([asked.event, asked.message, asked.tool_call], ['OnDelegation', 'Let the helper do it?', { id: 'd1', name: 'delegate_to_helper', arguments: { task: 'say hi' } }]);
    await json(await post(ann, `/agents/${lead}/runs/${asked.run_id}/approvals/${asked.approval_id}`, { decision: 'deny' }), 200);
    const result = await untilEvent(stream, 'tool_result');
    assert.deepEqual([result.ok, result.error], [false, 'Denied by hook: the approver denied it']);
    await untilEvent(stream, 'complete');
    assert.equal(vendor.chats().length, 2, 'the sub-agent’s model was never called');
  });
});
