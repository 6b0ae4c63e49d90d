// Waiting on a person costs nothing (issue 29, sql/0068): a run whose
// approval is not answered within AI_APPROVAL_PARK_AFTER_MS lets go of its
// process: a row and a resume job due at the deadline. Its client notices
// nothing: a stream goes on, a JSON answer still comes. The answer, on any
// server, has a worker carry the run on. And a run paused on an approval
// survives its server being killed: started on one process, resumed by a
// second, decided and followed on a third, all on one database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { resumeDiagnostics, startPlatformProcess, type PlatformProcess } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { startCallRecorder, type CallRecorder } from '../helpers/recorder.ts';
import { numberedEvents, sseStream, untilEvent } from '../helpers/sse.ts';

const FAST = { REALTIME_NODE_HEARTBEAT_MS: '300', REALTIME_NODE_REAP_MS: '1500', AI_RUN_SWEEP_INTERVAL_MS: '500', LOG_LEVEL: 'warn' };
type Event = { type: string; [key: string]: any };
/** The events' types, a model's text (content_delta however many chunks) once. */
const types = (events: Event[]) => events.map((e) => e.type).filter((t, i, all) => t !== 'content_delta' || all[i - 1] !== t);

describe('a run waiting on an approval', () => {
  let api: TestPlatform;
  let third: TestPlatform | undefined;
  let vendor: VendorServer;
  let dying: PlatformProcess | undefined;
  let ann: string;
  let agentId: string;
  let receiver: CallRecorder;
  const calls = () => receiver.calls;
  const { json, post, api: call, headers } = aiApi(() => api);
  const decide = (p: TestPlatform, runId: string, approvalId: string) =>
    fetch(`${p.url}/api/agents/${agentId}/runs/${runId}/approvals/${approvalId}`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ decision: 'approve' }) });
  const script = () => vendor.script({ toolCalls: [{ id: 'c1', name: 'record', arguments: { n: 1 } }] }, { text: 'Recorded.' });
  const runner = async (runId: string) => (await api.adminPool.query<{ status: string; runner: string | null }>('select status, runner from ai.agent_runs where id = $1', [runId])).rows[0]!;
  const pendingApproval = (runId: string) => eventually('the approval to be asked', async () =>
    (await api.adminPool.query<{ id: string }>(`select id from ai.agent_run_approvals where run_id = $1 and status = 'pending'`, [runId])).rows[0], (r) => r !== undefined, { tries: 400 }).then((r) => r!);

  before(async () => {
    receiver = await startCallRecorder();
    const base = receiver.url;
    vendor = await startVendorServer();
    api = await startTestPlatform({ ...FAST, ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1', AI_APPROVAL_PARK_AFTER_MS: '300' });
    await storeOpenAiKey(api);
    ann = (await signUp(api, 'ann-park@example.com')).access_token;
    agentId = (await json<{ id: string }>(await post(ann, '/agents', { name: 'asker', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, '/tools', { name: 'record', description: 'Record a number', type: 'http', input_schema: { type: 'object' }, config: { endpoint: `${base}/record` } }), 201);
    await json(await post(ann, `/agents/${agentId}/tools`, { tool_name: 'record' }), 201);
    await json(await post(ann, `/agents/${agentId}/hooks`, { event: 'PreToolUse', type: 'approval', config: { message: 'May I?', timeout: 3 * 86400 } }), 201);
  });
  after(async () => {
    await dying?.kill();
    if (third) await third.stop();
    await stopTestPlatform(api);
    await vendor.close();
    receiver.close();
  });

  it('lets go of its process while it waits; its stream goes on and the answer has a worker finish it', async () => {
    vendor.reset();
    script();
    calls().length = 0;
    const stream = sseStream<Event>(await fetch(`${api.url}/api/agents/${agentId}/run/stream`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ message: 'Record 1' }) }));
    const seen: Event[] = [];
    const asked = await untilEvent(stream, 'approval_requested', seen);
    const runId = asked.run_id as string;
    await eventually('the run to park', () => runner(runId), (r) => r.runner === null, { tries: 200 });
    assert.equal((await runner(runId)).status, 'waiting_approval', 'a row, waiting, no process');
    const job = (await api.adminPool.query<{ due: boolean }>(`select run_at > now() + interval '2 days' as due from graphile_worker.jobs where key = $1`, [`ai-run-resume:${runId}`])).rows[0];
    assert.deepEqual(job, { due: true }, 'a job due at the deadline, three days away');

    await json(await decide(api, runId, asked.approval_id), 200);
    const complete = await untilEvent(stream, 'complete', seen);
    assert.equal(complete.output, 'Recorded.');
    assert.deepEqual(types(seen), ['start', 'tool_call', 'approval_requested', 'resumed', 'approval_resolved', 'hook', 'tool_result', 'content_delta', 'usage', 'complete'],
      'the stream went on: the resumed run told the answer and finished');
    assert.deepEqual(calls().map((c) => c.n), [1], 'the tool ran once, after the answer');
    const steps = (await api.adminPool.query<{ step: string }>('select step from ai.usage where run_id = $1 order by id', [runId])).rows.map((r) => r.step);
    assert.deepEqual(steps, ['step-1', 'step-2'], 'each model call charged once');
  });

  it('answers a JSON run after a parked wait as it would have without one', async () => {
    vendor.reset();
    script();
    const answer = post(ann, `/agents/${agentId}/run`, { message: 'Record 1' });
    const approval = await eventually('an approval', async () => (await api.adminPool.query<{ id: string; run_id: string }>(
      `select a.id, a.run_id from ai.agent_run_approvals a join ai.agent_runs r on r.id = a.run_id where a.status = 'pending' and r.runner is null`)).rows[0], (r) => r !== undefined, { tries: 200 }).then((r) => r!);
    await json(await decide(api, approval.run_id, approval.id), 200);
    const body = await json<{ run_id: string; status: string; output: string; steps: number; tool_calls: Array<{ id: string; name: string; arguments: unknown; ok: boolean; result: string }> }>(await answer, 200);
    assert.deepEqual({ run: body.run_id, status: body.status, output: body.output, steps: body.steps }, { run: approval.run_id, status: 'completed', output: 'Recorded.', steps: 2 });
    assert.deepEqual(body.tool_calls.map(({ id, name, arguments: a, ok, result }) => ({ id, name, a, ok, result })), [{ id: 'c1', name: 'record', a: { n: 1 }, ok: true, result: '{"recorded":true}' }]);
  });

  it('is resumed by its job at the deadline when nobody answers: the call is denied as timed out and the run ends', async () => {
    const hurried = (await json<{ id: string }>(await post(ann, '/agents', { name: 'hurried', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/agents/${hurried}/tools`, { tool_name: 'record' }), 201);
    await json(await post(ann, `/agents/${hurried}/hooks`, { event: 'PreToolUse', type: 'approval', config: { timeout: 1 } }), 201);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'c1', name: 'record', arguments: { n: 1 } }] }, { text: 'Nobody answered.' });
    calls().length = 0;
    const body = await json<{ run_id: string; output: string; tool_calls: Array<{ ok: boolean; error: string }> }>(await post(ann, `/agents/${hurried}/run`, { message: 'Record 1' }), 200);
    assert.equal(body.output, 'Nobody answered.');
    assert.deepEqual(body.tool_calls.map((c) => [c.ok, c.error]), [[false, 'Denied by hook: no approval within 1 s']]);
    assert.deepEqual(calls(), [], 'the tool never ran');
    const approval = (await api.adminPool.query<{ status: string }>('select status from ai.agent_run_approvals where run_id = $1', [body.run_id])).rows;
    assert.deepEqual(approval, [{ status: 'timed_out' }]);
    const resumed = (await api.adminPool.query<{ n: number }>(`select count(*)::int as n from ai.run_events where agent_run_id = $1 and event ->> 'type' = 'resumed'`, [body.run_id])).rows[0]!.n;
    assert.equal(resumed, 1, 'it had parked: its deadline job carried it on');
  });

  it('answers a parked JSON run that is cancelled with 409 (RUN_CANCELLED), at once', async () => {
    vendor.reset();
    script();
    const answer = post(ann, `/agents/${agentId}/run`, { message: 'Record 1' });
    const parked = await eventually('a parked run', async () => (await api.adminPool.query<{ id: string }>(
      `select r.id from ai.agent_runs r where r.agent_id = $1 and r.status = 'waiting_approval' and r.runner is null`, [agentId])).rows[0], (r) => r !== undefined, { tries: 200 }).then((r) => r!);
    assert.deepEqual(await json(await post(ann, `/agents/${agentId}/runs/${parked.id}/cancel`, {}), 200), { cancelled: true, run_id: parked.id });
    const res = await answer;
    const error = await json<{ error: string; run_id: string; session_id: string }>(res, 409);
    assert.deepEqual([error.error, error.run_id], ['The run was cancelled', parked.id], 'the agents surface\'s error body ({error, ...details}), from the run\'s last event');
  });

  it('survives its server being killed: resumed by another process, decided and followed on a third', async () => {
    vendor.reset();
    script();
    calls().length = 0;
    // The first server keeps the wait in its process (it would park only after an hour).
    dying = await startPlatformProcess(api, { ...FAST, ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1', AI_APPROVAL_PARK_AFTER_MS: '3600000' });
    const res = await fetch(`${dying.url}/api/agents/${agentId}/run/stream`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ message: 'Record 1' }) });
    const stream = sseStream<Event>(res);
    const asked = await untilEvent(stream, 'approval_requested');
    const runId = asked.run_id as string;
    await dying.kill();
    await stream.return(undefined).catch(() => undefined);

    // The second server (this process's `api`, with a worker) resumes it: it waits on the same approval, parked.
    // Handed to its resume job (no runner), resumed (its `resumed` event), then parked again (no runner).
    await eventually('the run to be resumed and parked again', async () => (await api.adminPool.query<{ resumes: number; runner: string | null; resumed: boolean }>(
      `select r.resumes, r.runner, exists (select 1 from ai.run_events e where e.agent_run_id = r.id and e.event ->> 'type' = 'resumed') as resumed from ai.agent_runs r where r.id = $1`, [runId])).rows[0]!,
    (r) => r.resumes === 1 && r.runner === null && r.resumed, { tries: 1200, explain: () => resumeDiagnostics(api, { table: 'agent_runs', id: runId }) });
    assert.equal((await pendingApproval(runId)).id, asked.approval_id, 'the same question, not asked twice');

    // A third server, without a worker, takes the answer and streams the run.
    third = await startTestPlatform({ ...FAST, WORKER: 'off' }, { databaseUrl: api.config.DATABASE_URL! });
    const follow = fetch(`${third.url}/api/agents/${agentId}/runs/${runId}/events`, { headers: headers(ann) });
    await json(await decide(third, runId, asked.approval_id), 200);
    const events = numberedEvents<Event>(await (await follow).text()).map((e) => e.event);
    assert.deepEqual(types(events), ['start', 'tool_call', 'approval_requested', 'resumed', 'resumed', 'approval_resolved', 'hook', 'tool_result', 'content_delta', 'usage', 'complete'],
      'from the first event: the run once, each resume marked (after the crash, after the answer)');
    assert.deepEqual(calls().map((c) => c.n), [1], 'the tool ran once, after the answer');
    const run = await json<{ status: string; approvals: unknown[] }>(await call(ann, `/agents/${agentId}/runs/${runId}`), 200);
    assert.deepEqual([run.status, run.approvals.length], ['completed', 1]);
  });

  it('parks an /api/v1 streaming request\'s run; the answer comes from another client and the chunks go on to [DONE]', async () => {
    const since = new Date();
    vendor.reset();
    script();
    calls().length = 0;
    const res = await fetch(`${api.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ann}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'agent/asker', messages: [{ role: 'user', content: 'Record 1' }], stream: true, stream_options: { include_usage: true } }) });
    assert.equal(res.status, 200);
    const text = res.text();
    const approval = await eventually('the run to park', async () => (await api.adminPool.query<{ id: string; run_id: string }>(
      `select a.id, a.run_id from ai.agent_run_approvals a join ai.agent_runs r on r.id = a.run_id where a.status = 'pending' and r.runner is null and r.status = 'waiting_approval' and r.agent_id = $1 and r.started_at >= $2`, [agentId, since])).rows[0], (r) => r !== undefined, { tries: 200 }).then((r) => r!);
    await json(await decide(api, approval.run_id, approval.id), 200);
    const chunks = (await text).split('\n\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
    assert.equal(chunks.at(-1), '[DONE]');
    const parsed = chunks.slice(0, -1).map((c) => JSON.parse(c) as { id: string; choices: Array<{ delta: { content?: string }; finish_reason: string | null }>; usage?: { completion_tokens: number } });
    assert.equal(parsed[0]!.id, `chatcmpl-${approval.run_id}`);
    assert.equal(parsed.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Recorded.', 'the answer\'s text, streamed after the park');
    assert.equal(parsed.find((c) => c.choices[0]?.finish_reason)!.choices[0]!.finish_reason, 'stop');
    assert.ok(parsed.at(-1)!.usage, 'usage last, as asked');
    assert.deepEqual(calls().map((c) => c.n), [1], 'the tool ran once, after the answer');
  });

  it('answers a JSON /api/v1 request and an MCP agent tool call after a parked approval', async () => {
    let since = new Date();
    vendor.reset();
    script();
    const answer = fetch(`${api.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ann}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'agent/asker', messages: [{ role: 'user', content: 'Record 1' }] }) });
    const parked = () => eventually('the run to park', async () => (await api.adminPool.query<{ id: string; run_id: string }>(
      `select a.id, a.run_id from ai.agent_run_approvals a join ai.agent_runs r on r.id = a.run_id where a.status = 'pending' and r.runner is null and r.status = 'waiting_approval' and r.agent_id = $1 and r.started_at >= $2`, [agentId, since])).rows[0], (r) => r !== undefined, { tries: 200 }).then((r) => r!);
    let approval = await parked();
    await json(await decide(api, approval.run_id, approval.id), 200);
    const body = await json<{ id: string; choices: Array<{ message: { content: string } }> }>(await answer, 200);
    assert.deepEqual([body.id, body.choices[0]!.message.content], [`chatcmpl-${approval.run_id}`, 'Recorded.']);

    since = new Date();
    vendor.reset();
    script();
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${ann}` } } }));
    try {
      const result = client.callTool({ name: 'agent_asker', arguments: { message: 'Record 1' } }, undefined, { timeout: 60_000 });
      approval = await parked();
      await json(await decide(api, approval.run_id, approval.id), 200);
      const done = await result as { content: Array<{ text: string }>; isError?: boolean };
      assert.ok(!done.isError, JSON.stringify(done));
      const out = JSON.parse(done.content[0]!.text) as { output: string; run_id: string };
      assert.deepEqual([out.output, out.run_id], ['Recorded.', approval.run_id]);
    } finally {
      await client.close();
    }
  });
});
