// A run inside a workflow run is part of it (issue 46): real processes, a
// real SIGKILL. A workflow's agent block (an agent with a tool, an inline
// agent, an orchestration) is in flight when its process is killed; another
// server on the same database resumes the workflow, which takes its block's
// child back and carries it on from its last stored step: one child run,
// each finished tool call made once, the one in flight made again with the
// same Idempotency-Key, each model call charged once, and the events read
// back equal to an uninterrupted run's. An approval inside an agent block
// parks the workflow (no process holds it); the server is killed, the
// approval is answered on another, and a worker finishes the run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startVendorServer, type Step, type VendorServer } from '../helpers/openai-server.ts';
import { resumeDiagnostics, startPlatformProcess, type PlatformProcess } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { numberedEvents, sseStream, untilEvent } from '../helpers/sse.ts';
import { startHoldingRecorder, type HoldingRecorder } from '../helpers/recorder.ts';

const FAST = { REALTIME_NODE_HEARTBEAT_MS: '300', REALTIME_NODE_REAP_MS: '1500', AI_RUN_SWEEP_INTERVAL_MS: '500', LOG_LEVEL: 'warn', AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };
type Event = { type: string; [key: string]: any };
/** A block's output without what differs between two runs (its child's ids, totals and timings), at any depth. */
const sameOutput = (o: any): any => (Array.isArray(o) ? o.map(sameOutput) : o && typeof o === 'object'
  ? Object.fromEntries(Object.entries(o).filter(([k]) => !['run_id', 'session_id', 'usage', 'latency_ms', 'id', 'started_at', 'finished_at'].includes(k)).map(([k, v]) => [k, sameOutput(v)])) : o);
/** What a workflow run's events say, without what differs between two runs. */
const gist = (events: Event[]) => events.filter((e) => e.type !== 'resumed' && e.type !== 'run_started')
  .map(({ execution_id: _e, duration_ms: _d, ...e }) => (e.output !== undefined ? { ...e, output: sameOutput(e.output) } : e));

describe('a workflow run whose agent block is in flight when its process is killed', () => {
  let api: TestPlatform;
  let vendor: VendorServer;
  let dying: PlatformProcess | undefined;
  let ann: string;
  let recorder: string;
  let receiver: HoldingRecorder;
  let base: string;
  let calls: HoldingRecorder['calls'];
  const { json, post, put, api: call, headers } = aiApi(() => api);

  const ended = (executionId: string) => eventually('the execution to end', async () =>
    (await api.adminPool.query<{ status: string }>('select status from ai.workflow_executions where id = $1', [executionId])).rows[0]!.status,
  (s) => s !== 'running', { tries: 1200, explain: () => resumeDiagnostics(api, { table: 'workflow_executions', id: executionId }) });

  /** start -> `block` -> answer (the block's content). */
  const workflowWith = async (name: string, block: { type: string; config: Record<string, unknown> }) => {
    const w = await json<{ id: string }>(await post(ann, '/workflows', { name }), 201);
    await json(await put(ann, `/workflows/${w.id}/graph`, {
      blocks: [{ id: 'start', type: 'starter' }, { id: 'work', ...block }, { id: 'answer', type: 'response', config: { output: { answer: '<work.content>' } } }],
      edges: [{ source: 'start', target: 'work' }, { source: 'work', target: 'answer' }],
    }), 200);
    return w.id;
  };

  /**
   * Runs the workflow uninterrupted, then on a process of its own killed
   * while the call recording `hang` is at its receiver; `after` scripts what
   * the model says once the run resumes. Checks what every kind shares and
   * answers the execution's id.
   */
  const crash = async (workflowId: string, script: () => void, hang: number, after: () => void) => {
    vendor.reset();
    script();
    const whole = numberedEvents<Event>(await (await post(ann, `/workflows/${workflowId}/execute/stream`, { variables: {} })).text()).map((e) => e.event);
    assert.equal(whole.at(-1)!.type, 'run_completed', JSON.stringify(whole.at(-1)));
    calls.length = 0;

    dying = await startPlatformProcess(api, { ...FAST, ...vendor.env });
    vendor.reset();
    script();
    const atCall = receiver.holdAt(hang);
    const stream = sseStream<Event>(await fetch(`${dying.url}/api/workflows/${workflowId}/execute/stream`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ variables: {} }) }));
    const executionId = (await untilEvent(stream, 'run_started')).execution_id as string;
    await atCall;
    await dying.kill();
    await stream.return(undefined).catch(() => undefined);
    vendor.reset();
    after();
    assert.equal(await ended(executionId), 'succeeded', dying.output().slice(-2000));

    const events = numberedEvents<Event>(await (await call(ann, `/workflows/${workflowId}/executions/${executionId}/events`)).text()).map((e) => e.event);
    assert.equal(events.at(-1)!.type, 'run_completed', JSON.stringify(events.at(-1)));
    assert.equal(events.filter((e) => e.type === 'run_completed').length, 1, 'finished once');
    assert.deepEqual(gist(events), gist(whole), 'the replay equals an uninterrupted run');
    return executionId;
  };

  before(async () => {
    receiver = await startHoldingRecorder();
    base = receiver.url;
    calls = receiver.calls;
    vendor = await startVendorServer();
    api = await startTestPlatform({ ...FAST, ...vendor.env });
    await storeOpenAiKey(api);
    ann = (await signUp(api, 'ann-child-runs@example.com')).access_token;
    recorder = (await json<{ id: string }>(await post(ann, '/agents', { name: 'recorder', model: 'gpt-4.1-mini', system_prompt: 'Record what you are asked to.' }), 201)).id;
    await json(await post(ann, '/tools', { name: 'record', description: 'Record a number', type: 'http', input_schema: { type: 'object', properties: { n: { type: 'number' } } }, config: { endpoint: `${base}/record` } }), 201);
    await json(await post(ann, `/agents/${recorder}/tools`, { tool_name: 'record' }), 201);
  });
  after(async () => {
    await dying?.kill();
    await stopTestPlatform(api);
    await vendor.close();
    receiver.close();
  });

  const childRuns = async (table: 'agent_runs' | 'orchestration_runs', executionId: string) =>
    (await api.adminPool.query<{ id: string; status: string; resumes: number; parent_block: string }>(`select id, status, resumes, parent_block from ai.${table} where parent_execution_id = $1`, [executionId])).rows;
  const charged = async (runId: string) =>
    (await api.adminPool.query<{ step: string; n: number }>('select step, count(*)::int as n from ai.usage where run_id = $1 group by step order by step', [runId])).rows;

  it('an agent block: one child run, carried on from its last step; only the tool call in flight is made again, with its key; each model call charged once', async () => {
    const workflowId = await workflowWith('agent block', { type: 'agent', config: { agent_id: recorder, message: 'Record 1, 2 and 3' } });
    const script = () => vendor.script(
      { toolCalls: [{ id: 'c1', name: 'record', arguments: { n: 1 } }] },
      { toolCalls: [{ id: 'c2', name: 'record', arguments: { n: 2 } }] },
      { toolCalls: [{ id: 'c3', name: 'record', arguments: { n: 3 } }] },
      { text: 'All three are recorded.' },
    );
    const executionId = await crash(workflowId, script, 3, () => vendor.script({ text: 'All three are recorded.' }));
    assert.deepEqual(calls.map((c) => c.n), [1, 2, 3, 3], 'each tool call made once, the one in flight twice');
    assert.equal(calls[2]!.key, calls[3]!.key, 'with the same Idempotency-Key');
    const children = await childRuns('agent_runs', executionId);
    assert.deepEqual(children.map(({ status, resumes, parent_block }) => ({ status, resumes, parent_block })), [{ status: 'completed', resumes: 1, parent_block: 'work' }], 'one child run, resumed once');
    assert.deepEqual(await charged(children[0]!.id), ['step-1', 'step-2', 'step-3', 'step-4'].map((step) => ({ step, n: 1 })), 'each model call charged once');
    type Node = { name: string; children: Node[] };
    const execution = await json<{ status: string; output: unknown; timeline: Node }>(await call(ann, `/workflows/${workflowId}/executions/${executionId}`), 200);
    assert.deepEqual(execution.output, { answer: 'All three are recorded.' });
    const block = execution.timeline.children.find((n) => n.name === 'block work')!;
    assert.deepEqual(block.children.map((n) => [n.name, n.children.map((c) => c.name)]), [['agent run', ['step 1', 'step 2', 'step 3', 'step 4']]],
      'the block\'s node in the run\'s timeline holds its child run, every step once');
  });

  it('an inline agent block: its steps are stored, and it goes on from them', async () => {
    const workflowId = await workflowWith('inline block', { type: 'agent', config: { model: 'gpt-4.1-mini', system_prompt: 'Record what you are asked to.', tools: ['http_request'], message: 'Record 1, 2 and 3' } });
    const request = (id: string, n: number): Step => ({ toolCalls: [{ id, name: 'http_request', arguments: { url: `${base}/record`, method: 'POST', body: { n } } }] });
    const script = () => vendor.script(request('c1', 1), request('c2', 2), request('c3', 3), { text: 'Recorded inline.' });
    const executionId = await crash(workflowId, script, 3, () => vendor.script({ text: 'Recorded inline.' }));
    assert.deepEqual(calls.map((c) => c.n), [1, 2, 3, 3]);
    assert.equal(calls[2]!.key, calls[3]!.key, 'with the same Idempotency-Key');
    const steps = (await api.adminPool.query<{ role: string }>('select role from ai.workflow_block_steps where execution_id = $1 order by id', [executionId])).rows.map((r) => r.role);
    assert.deepEqual(steps, ['assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'], 'every step stored once');
    assert.deepEqual(await charged(executionId), ['work/step-1', 'work/step-2', 'work/step-3', 'work/step-4'].map((step) => ({ step, n: 1 })), 'each model call charged once');
  });

  it('an orchestration block: one child run; its delegation goes on from its member\'s last step', async () => {
    const team = (await json<{ id: string }>(await post(ann, '/orchestrations', { name: 'records desk', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/orchestrations/${team}/entities`, { entity_type: 'agent', entity_ref_id: recorder, role_description: 'Records numbers', position: 1 }), 201);
    const workflowId = await workflowWith('orchestration block', { type: 'orchestration', config: { orchestration_id: team, message: 'Record 1 and 2' } });
    const script = () => vendor.script(
      { toolCalls: [{ id: 'd1', name: 'delegate_to_recorder', arguments: { task: 'Record 1 and 2' } }] },
      { toolCalls: [{ id: 'm1', name: 'record', arguments: { n: 1 } }] },
      { toolCalls: [{ id: 'm2', name: 'record', arguments: { n: 2 } }] },
      { text: 'Recorded 1 and 2.' },
      { text: 'The desk recorded them.' },
    );
    const executionId = await crash(workflowId, script, 2, () => vendor.script({ text: 'Recorded 1 and 2.' }, { text: 'The desk recorded them.' }));
    assert.deepEqual(calls.map((c) => c.n), [1, 2, 2], 'only the member\'s call in flight is made again');
    assert.equal(calls[1]!.key, calls[2]!.key, 'with the same Idempotency-Key');
    const children = await childRuns('orchestration_runs', executionId);
    assert.deepEqual(children.map(({ status, resumes }) => ({ status, resumes })), [{ status: 'completed', resumes: 1 }]);
    const steps = (await api.adminPool.query<{ step: string }>('select step from ai.usage where run_id = $1 order by id', [children[0]!.id])).rows.map((r) => r.step.replace(/^[0-9a-f-]{36}\//, 'member/'));
    assert.deepEqual(steps, ['step-1', 'member/step-1', 'member/step-2', 'member/step-3', 'step-2'], 'each model call charged once');
  });

  it('an approval inside an agent block parks the run; killed, answered on another server, finished by a worker', async () => {
    const asker = (await json<{ id: string }>(await post(ann, '/agents', { name: 'asker', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/agents/${asker}/tools`, { tool_name: 'record' }), 201);
    await json(await post(ann, `/agents/${asker}/hooks`, { event: 'PreToolUse', type: 'approval', config: { message: 'May I?', timeout: 3 * 86400 } }), 201);
    const workflowId = await workflowWith('approval block', { type: 'agent', config: { agent_id: asker, message: 'Record 7' } });
    calls.length = 0;
    dying = await startPlatformProcess(api, { ...FAST, ...vendor.env, AI_APPROVAL_PARK_AFTER_MS: '300' });
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'c1', name: 'record', arguments: { n: 7 } }] }, { text: 'Recorded 7.' });
    const stream = sseStream<Event>(await fetch(`${dying.url}/api/workflows/${workflowId}/execute/stream`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ variables: {} }) }));
    const executionId = (await untilEvent(stream, 'run_started')).execution_id as string;
    const waiting = await untilEvent(stream, 'block_waiting');
    assert.equal(waiting.block_id, 'work');
    const parked = await eventually('the run to park', async () => (await api.adminPool.query<{ runner: string | null; child_runner: string | null; child: string; job_in_days: number }>(
      `select e.runner, r.runner as child_runner, r.id as child, (select extract(day from j.run_at - now())::int from graphile_worker.jobs j where j.key = 'ai-workflow-resume:' || e.id) as job_in_days
         from ai.workflow_executions e join ai.agent_runs r on r.parent_execution_id = e.id where e.id = $1`, [executionId])).rows[0], (r) => r?.runner === null && r.child_runner === null);
    assert.equal(parked!.job_in_days, 2, 'one resume job, for the workflow, due at the approval\'s deadline');
    assert.equal((await api.adminPool.query(`select 1 from graphile_worker.jobs where key = $1`, [`ai-run-resume:${parked!.child}`])).rowCount, 0, 'none for the child: its parent resumes it');
    await dying.kill();
    await stream.return(undefined).catch(() => undefined);

    const approval = (await api.adminPool.query<{ id: string }>(`select id from ai.agent_run_approvals where run_id = $1 and status = 'pending'`, [parked!.child])).rows[0]!;
    await json(await post(ann, `/agents/${asker}/runs/${parked!.child}/approvals/${approval.id}`, { decision: 'approve' }), 200);
    assert.equal(await ended(executionId), 'succeeded');
    const events = numberedEvents<Event>(await (await call(ann, `/workflows/${workflowId}/executions/${executionId}/events`)).text()).map((e) => e.event);
    assert.deepEqual(events.at(-1), { type: 'run_completed', execution_id: executionId, output: { answer: 'Recorded 7.' } });
    assert.deepEqual(calls.map((c) => c.n), [7], 'the tool ran once, after the answer');
    assert.deepEqual((await childRuns('agent_runs', executionId)).map((r) => r.status), ['completed'], 'one child run');
  });
});
