// A workflow run that waits holds no process (issue 46): a wait block for a
// duration or for an event parks the run as a row and a resume job; the
// process that ran it may die meanwhile and another server takes it up, on
// time, once. A week-long wait cancelled leaves nothing behind. A split
// whose process dies after six of ten items runs only the other four.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { resumeDiagnostics, startPlatformProcess, type PlatformProcess } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { numberedEvents, sseStream, untilEvent } from '../helpers/sse.ts';

const FAST = { REALTIME_NODE_HEARTBEAT_MS: '300', REALTIME_NODE_REAP_MS: '1500', AI_RUN_SWEEP_INTERVAL_MS: '500', LOG_LEVEL: 'warn', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };
type Event = { type: string; [key: string]: any };

describe('a workflow run that waits', () => {
  let api: TestPlatform;
  let dying: PlatformProcess | undefined;
  let ann: string;
  let receiver: http.Server;
  let base: string;
  const calls: Array<{ path: string; key: string }> = [];
  let hangOn: string | undefined;
  let arrived: () => void = () => undefined;
  const { json, post, put, api: call, headers } = aiApi(() => api);

  const ended = (executionId: string) => eventually('the execution to end', async () =>
    (await api.adminPool.query<{ status: string }>('select status from ai.workflow_executions where id = $1', [executionId])).rows[0]!.status,
  (s) => s !== 'running', { tries: 1200, explain: () => resumeDiagnostics(api, { table: 'workflow_executions', id: executionId }) });
  const eventsOf = async (workflowId: string, executionId: string) =>
    numberedEvents<Event>(await (await call(ann, `/workflows/${workflowId}/executions/${executionId}/events`)).text()).map((e) => e.event);
  /** trigger -> pause (a wait block with `config`) -> answer; answers the workflow's id, and its webhook's id and secret when it starts at one. */
  const waiting = async (name: string, config: Record<string, unknown>, trigger: 'starter' | 'webhook' = 'starter') => {
    const w = await json<{ id: string }>(await post(ann, '/workflows', { name }), 201);
    const saved = await json<{ blocks: Array<{ id: string; config: { webhook_id?: string; webhook_secret?: string } }> }>(await put(ann, `/workflows/${w.id}/graph`, {
      blocks: [{ id: 'start', type: trigger }, { id: 'pause', type: 'wait', config }, { id: 'answer', type: 'response', config: { output: { pause: '<pause>' } } }],
      edges: [{ source: 'start', target: 'pause' }, { source: 'pause', target: 'answer' }],
    }), 200);
    const hook = saved.blocks.find((b) => b.id === 'start')!.config;
    return { id: w.id, webhookId: hook.webhook_id, secret: hook.webhook_secret };
  };
  const streamOn = async (url: string, workflowId: string) =>
    sseStream<Event>(await fetch(`${url}/api/workflows/${workflowId}/execute/stream`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ variables: {} }) }));

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url!.split('?')[0]!;
        calls.push({ path, key: req.headers['idempotency-key'] as string });
        if (path === hangOn) {
          hangOn = undefined;
          arrived();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ from: path }));
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    api = await startTestPlatform(FAST);
    ann = (await signUp(api, 'ann-waits@example.com')).access_token;
  });
  after(async () => {
    await dying?.kill();
    await stopTestPlatform(api);
    receiver.closeAllConnections();
    receiver.close();
  });

  it('waits 3 seconds holding no process; its server killed, another takes it up on time, once', async () => {
    const w = await waiting('three seconds', { seconds: 3 });
    dying = await startPlatformProcess(api, FAST);
    const stream = await streamOn(dying.url, w.id);
    const executionId = (await untilEvent(stream, 'run_started')).execution_id as string;
    const wait = await untilEvent(stream, 'block_waiting');
    assert.equal(wait.block_id, 'pause');
    const row = await eventually('the run to park', async () => (await api.adminPool.query<{ runner: string | null; job: boolean }>(
      `select e.runner, exists (select 1 from graphile_worker.jobs j where j.key = 'ai-workflow-resume:' || e.id) as job from ai.workflow_executions e where e.id = $1`, [executionId])).rows[0]!, (r) => r.runner === null);
    assert.equal(row.job, true, 'a row and a resume job, no process');
    await dying.kill();
    await stream.return(undefined).catch(() => undefined);

    assert.equal(await ended(executionId), 'succeeded');
    const timing = (await api.adminPool.query<{ late_ms: number }>(
      `select (extract(epoch from l.finished_at - w.due_at) * 1000)::float8 as late_ms from ai.workflow_waits w join ai.workflow_block_logs l on l.execution_id = w.execution_id and l.block_id = 'pause' where w.execution_id = $1`, [executionId])).rows;
    assert.equal(timing.length, 1, 'the wait settled once');
    assert.ok(timing[0]!.late_ms >= 0 && timing[0]!.late_ms < 1500, `taken up within the second it was due (${timing[0]!.late_ms} ms late)`);
    const events = await eventsOf(w.id, executionId);
    assert.deepEqual(events.map((e) => e.type), ['run_started', 'block_started', 'block_completed', 'block_started', 'block_waiting', 'resumed', 'block_completed', 'block_started', 'block_completed', 'run_completed']);
    assert.equal(events.at(-1)!.output.pause.waited, true);
  });

  it('waits for an event sent through its webhook; its server killed, the event sent to another, the run finishes once with its data', async () => {
    const w = await waiting('until approved', { event: 'approved', timeout_seconds: 600 }, 'webhook');
    await json(await post(ann, `/workflows/${w.id}/deploy`, {}), 200);
    dying = await startPlatformProcess(api, FAST);
    const answer = fetch(`${dying.url}/api/webhooks/${w.webhookId}`, { method: 'POST', headers: { authorization: `Bearer ${w.secret}`, 'content-type': 'application/json' }, body: '{}' }).catch(() => undefined);
    const executionId = (await eventually('the run to park', async () => (await api.adminPool.query<{ id: string }>(
      `select e.id from ai.workflow_executions e join ai.workflow_waits x on x.execution_id = e.id where e.workflow_id = $1 and e.runner is null and x.status = 'waiting'`, [w.id])).rows[0]?.id, (id) => id !== undefined))!;
    await dying.kill();
    await answer;

    const send = (secret: string, body: unknown) => fetch(`${api.url}/api/webhooks/${w.webhookId}/executions/${executionId}/events`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await send('wrong', { event: 'approved' })).status, 401);
    assert.deepEqual(await json(await send(w.secret!, { event: 'rejected' }), 409), { error: 'No step of this run waits for the event rejected: it has not reached its wait yet, the wait ended, or the run ended', error_code: 'CONFLICT' });
    assert.deepEqual(await json(await send(w.secret!, { event: 'approved', data: { by: 'ops' } }), 202), { execution_id: executionId, event: 'approved', delivered: 1 });
    assert.equal(await ended(executionId), 'succeeded');
    const events = await eventsOf(w.id, executionId);
    assert.equal(events.filter((e) => e.type === 'run_completed').length, 1);
    assert.deepEqual(events.at(-1)!.output.pause.data, { by: 'ops' });
    assert.equal((await send(w.secret!, { event: 'approved' })).status, 409, 'the wait ended: a second event finds nothing waiting');
  });

  it('answers a JSON run after its wait, and takes an event as the caller who ran it', async () => {
    const w = await waiting('json and event', { event: 'go' });
    const answer = post(ann, `/workflows/${w.id}/execute`, { variables: {} });
    const executionId = (await eventually('the run to wait', async () => (await api.adminPool.query<{ id: string }>(
      `select execution_id as id from ai.workflow_waits x join ai.workflow_executions e on e.id = x.execution_id where e.workflow_id = $1 and x.status = 'waiting'`, [w.id])).rows[0]?.id, (id) => id !== undefined))!;
    type Node = { name: string; status?: string; waited?: { kind: string; event: string | null; ended: string | null }; children: Node[] };
    const timeline = async () => (await json<{ timeline: Node }>(await call(ann, `/workflows/${w.id}/executions/${executionId}`), 200)).timeline.children;
    const waitingNode = (await timeline()).find((n) => n.name === 'wait pause');
    assert.deepEqual([waitingNode?.status, waitingNode?.waited], ['waiting', { kind: 'event', event: 'go', until: null, ended: null }], 'the timeline shows what it waits for');
    const bob = (await signUp(api, 'bob-waits@example.com')).access_token;
    assert.equal((await post(bob, `/workflows/${w.id}/executions/${executionId}/events`, { event: 'go' })).status, 404, 'another user cannot see the run');
    assert.equal((await post(ann, `/workflows/${w.id}/executions/${executionId}/events`, { event: 'a b' })).status, 400);
    assert.equal((await post(ann, `/workflows/${w.id}/executions/${executionId}/events`, { event: 'go', data: [1, 2] })).status, 202);
    const body = await json<{ execution_id: string; status: string; output: { pause: { event: string; data: unknown } } }>(await answer, 200);
    assert.deepEqual({ id: body.execution_id, status: body.status, event: body.output.pause.event, data: body.output.pause.data }, { id: executionId, status: 'succeeded', event: 'go', data: [1, 2] });
    const settled = (await timeline()).find((n) => n.name === 'block pause');
    assert.deepEqual(settled?.waited, { kind: 'event', event: 'go', until: null, ended: 'received' }, 'and, once it ended, how');
    assert.ok(!(await timeline()).some((n) => n.name === 'wait pause'), 'no wait left waiting');
  });

  it('waits until a time, and ends an event wait at its timeout: going on, or failing, as on_timeout says', async () => {
    const until = await waiting('until a time', { until: new Date(Date.now() + 1500).toISOString() });
    const t0 = Date.now();
    const timed = await json<{ status: string; output: { pause: { waited: boolean } } }>(await post(ann, `/workflows/${until.id}/execute`, { variables: {} }), 200);
    assert.deepEqual([timed.status, timed.output.pause.waited], ['succeeded', true]);
    assert.ok(Date.now() - t0 >= 1000, 'it waited for its time');

    const goesOn = await waiting('times out, goes on', { event: 'never', timeout_seconds: 1 });
    const on = await json<{ output: { pause: { event: string; timed_out: boolean; data: unknown } } }>(await post(ann, `/workflows/${goesOn.id}/execute`, { variables: {} }), 200);
    assert.deepEqual(on.output.pause, { event: 'never', timed_out: true, data: null });

    const fails = await waiting('times out, fails', { event: 'never', timeout_seconds: 1, on_timeout: 'fail' });
    const failed = await json<{ error: string; error_code: string }>(await post(ann, `/workflows/${fails.id}/execute`, { variables: {} }), 500);
    assert.equal(failed.error_code, 'EXECUTION_FAILED');
    assert.match(failed.error, /wait: no never event came before its timeout/);
  });

  it('fails a wait whose config says nothing sensible, saying why', async () => {
    const w = await waiting('bad wait', { seconds: -1 });
    const body = await json<{ error: string; error_code: string }>(await post(ann, `/workflows/${w.id}/execute`, { variables: {} }), 500);
    assert.equal(body.error_code, 'EXECUTION_FAILED');
    assert.match(body.error, /wait: seconds must be a number of seconds from 0/);
  });

  it('cancels a week-long wait: its job goes and nothing is left waiting', async () => {
    const w = await waiting('a week', { seconds: 7 * 86400 });
    const stream = await streamOn(api.url, w.id);
    const executionId = (await untilEvent(stream, 'run_started')).execution_id as string;
    await untilEvent(stream, 'block_waiting');
    const job = await eventually('the resume job', async () => (await api.adminPool.query<{ days: number }>(
      `select extract(day from run_at - now())::int as days from graphile_worker.jobs where key = $1`, [`ai-workflow-resume:${executionId}`])).rows[0], (r) => r !== undefined);
    assert.equal(job!.days, 6, 'due in a week');
    assert.deepEqual(await json(await post(ann, `/workflows/${w.id}/executions/${executionId}/cancel`, {}), 200), { cancelled: true, execution_id: executionId });
    const last = await untilEvent(stream, 'error');
    assert.equal(last.error, 'The run was cancelled');
    const left = (await api.adminPool.query<{ status: string; jobs: number; wait: string }>(
      `select e.status, (select count(*)::int from graphile_worker.jobs j where j.key = 'ai-workflow-resume:' || e.id) as jobs, (select status from ai.workflow_waits x where x.execution_id = e.id) as wait
         from ai.workflow_executions e where e.id = $1`, [executionId])).rows[0];
    assert.deepEqual(left, { status: 'cancelled', jobs: 0, wait: 'cancelled' });
  });

  it('runs only the items a split had not finished when its process died', async () => {
    const w = await json<{ id: string }>(await post(ann, '/workflows', { name: 'ten items' }), 201);
    await json(await put(ann, `/workflows/${w.id}/graph`, {
      blocks: [
        { id: 'start', type: 'starter' },
        { id: 'each', type: 'split', config: { items: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], concurrency: 1 } },
        { id: 'fetch', type: 'general_api', config: { method: 'POST', url: `${base}/item/<each.index>` } },
      ],
      edges: [{ source: 'start', target: 'each' }, { source: 'each', target: 'fetch' }],
    }), 200);
    calls.length = 0;
    dying = await startPlatformProcess(api, FAST);
    hangOn = '/item/6';
    const atSeventh = new Promise<void>((r) => (arrived = r));
    const stream = await streamOn(dying.url, w.id);
    const executionId = (await untilEvent(stream, 'run_started')).execution_id as string;
    await atSeventh;
    await dying.kill();
    await stream.return(undefined).catch(() => undefined);
    assert.equal(await ended(executionId), 'succeeded');

    const paths = calls.map((c) => c.path);
    assert.deepEqual(paths, [0, 1, 2, 3, 4, 5, 6, 6, 7, 8, 9].map((i) => `/item/${i}`), 'six items finished before the crash are not run again; four are');
    assert.equal(calls[6]!.key, calls[7]!.key, 'the item in flight is called again with the same Idempotency-Key');
    const events = await eventsOf(w.id, executionId);
    const output = events.at(-1)!.output as Array<{ body: { from: string } }>;
    assert.deepEqual(output.map((o) => o.body.from), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `/item/${i}`), 'every item\'s result, in order');
  });
});
