// Runs carried by the workers (issue 29, item 1; AI_RUN_PLACEMENT=worker,
// sql/0079): the server that takes a run's request runs no worker; it only
// begins the run (its session, record and `start` event) and hands it to the
// ai_run_resume job, which a separate `npm run worker` takes and carries
// from its first step. The request follows the run's stored events: a
// stream sends the same events an in-request run sends (no `resumed`), a JSON
// answer has the same shape, the run's OnRunStart hooks fire once, and its
// record names the worker's process as its runner; a run waiting on an
// approval parks in the worker and goes on after the answer. Workflow runs (sync,
// streamed, webhook) are queued for the worker and answered the same way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startWorkerCli, type WorkerCli } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { startCallRecorder, type CallRecorder } from '../helpers/recorder.ts';
import { numberedEvents, sseStream, untilEvent } from '../helpers/sse.ts';
import { eventually } from '../helpers/eventually.ts';

type Event = { type: string; [key: string]: any };
const types = (events: Event[]) => events.map((e) => e.type).filter((t, i, all) => t !== 'content_delta' || all[i - 1] !== t);

describe('runs carried by the workers (AI_RUN_PLACEMENT=worker)', () => {
  let api: TestPlatform;
  let worker: WorkerCli | undefined;
  let vendor: VendorServer;
  let tool: CallRecorder;
  let hook: CallRecorder;
  let ann: string;
  let agentId: string;
  const { json, post, put, api: call } = aiApi(() => api);
  /** The process that carried the run, and whether the server's own process did. */
  const runnerOf = async (table: 'agent_runs' | 'orchestration_runs' | 'workflow_executions', runId: string) => {
    const { rows: [row] } = await api.adminPool.query<{ runner: string | null; status: string }>(`select runner, status from ai.${table} where id = $1`, [runId]);
    return { status: row!.status, byServer: row!.runner === api.realtime.nodeId, runner: row!.runner };
  };

  before(async () => {
    tool = await startCallRecorder();
    hook = await startCallRecorder();
    vendor = await startVendorServer();
    const ai = { ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };
    api = await startTestPlatform({ ...ai, LOG_LEVEL: 'warn', WORKER: 'off', AI_RUN_PLACEMENT: 'worker' });
    // The worker lets go of a run waiting on an approval after 300 ms (it parks: a row and a job).
    worker = await startWorkerCli(api, { ...ai, AI_APPROVAL_PARK_AFTER_MS: '300' });
    await storeOpenAiKey(api);
    ann = (await signUp(api, 'ann-in-workers@example.com')).access_token;
    agentId = (await json<{ id: string }>(await post(ann, '/agents', { name: 'recorder', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, '/tools', { name: 'record', description: 'Record a number', type: 'http', input_schema: { type: 'object' }, config: { endpoint: `${tool.url}/record` } }), 201);
    await json(await post(ann, `/agents/${agentId}/tools`, { tool_name: 'record' }), 201);
    await json(await post(ann, `/agents/${agentId}/hooks`, { event: 'OnRunStart', type: 'http', config: { url: `${hook.url}/start` } }), 201);
  });
  after(async () => {
    await worker?.kill();
    await stopTestPlatform(api);
    await vendor.close();
    tool.close();
    hook.close();
  });

  it('streams an agent run a worker carries: the events of a run carried in the request, its hooks once, the worker its runner', async () => {
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'c1', name: 'record', arguments: { n: 1 } }] }, { text: 'Recorded.' });
    tool.calls.length = 0;
    hook.calls.length = 0;
    const res = await post(ann, `/agents/${agentId}/run/stream`, { message: 'Record 1' });
    assert.equal(res.status, 200);
    const events = numberedEvents<Event>(await res.text());
    const runId = events[0]!.event.run_id as string;
    assert.deepEqual(types(events.map((e) => e.event)), ['start', 'hook', 'tool_call', 'tool_result', 'content_delta', 'usage', 'complete'], `${JSON.stringify(events.map((e) => e.event))}\nworker:\n${worker!.output().slice(-2000)}`);
    assert.ok(events.every((e, i) => e.id === i + 1), 'numbered from 1 without a gap');
    assert.equal(events.at(-1)!.event.output, 'Recorded.');
    assert.deepEqual(tool.calls.map((c) => c.n), [1], 'the tool called once');
    assert.equal(hook.calls.length, 1, 'OnRunStart fired once, by the worker');
    const carried = await runnerOf('agent_runs', runId);
    assert.deepEqual([carried.status, carried.byServer, carried.runner !== null], ['completed', false, true], 'carried by the worker\'s process');
    assert.match(worker!.output(), new RegExp(`agent run ${runId} carried`));
    // The replay equals the stream.
    const replay = numberedEvents<Event>(await (await call(ann, `/agents/${agentId}/runs/${runId}/events`)).text());
    assert.deepEqual(replay, events);
  });

  it('answers a JSON agent run a worker carries with the same body as one carried in the request', async () => {
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'c2', name: 'record', arguments: { n: 2 } }] }, { text: 'Recorded two.' });
    const body = await json<{ run_id: string; session_id: string; status: string; output: string; stop_reason: string; steps: number; tool_calls: Array<{ id: string; ok: boolean; result: string; arguments: unknown }>; usage: { tokens_in: number } }>(
      await post(ann, `/agents/${agentId}/run`, { message: 'Record 2' }), 200);
    assert.deepEqual({ status: body.status, output: body.output, stop_reason: body.stop_reason, steps: body.steps }, { status: 'completed', output: 'Recorded two.', stop_reason: 'answered', steps: 2 });
    assert.deepEqual(body.tool_calls.map(({ id, ok, result, arguments: a }) => ({ id, ok, result, arguments: a })), [{ id: 'c2', ok: true, result: '{"recorded":true}', arguments: { n: 2 } }]);
    assert.ok(body.usage.tokens_in > 0 && typeof body.session_id === 'string');
    assert.equal((await runnerOf('agent_runs', body.run_id)).byServer, false);
  });

  it('cancels a run a worker carries from the server that took its request: the worker stops it, the stream ends with the cancel', async () => {
    vendor.reset();
    vendor.script({ hang: true });
    const res = await post(ann, `/agents/${agentId}/run/stream`, { message: 'Wait' });
    const stream = sseStream<Event>(res);
    const runId = (await untilEvent(stream, 'start')).run_id as string;
    await eventually('the worker to take the run', () => runnerOf('agent_runs', runId), (r) => r.runner !== null && !r.byServer);
    // Its OnRunStart hook has answered (a cancel during the hook's call would end the hook as an error instead).
    assert.equal((await untilEvent(stream, 'hook')).type, 'hook');
    await json(await post(ann, `/agents/${agentId}/runs/${runId}/cancel`, {}), 200);
    const rest: Event[] = [];
    for (let r = await stream.next(); !r.done; r = await stream.next()) rest.push(r.value);
    assert.deepEqual(rest.map((e) => [e.type, e.error_code]), [['error', 'RUN_CANCELLED']], 'then the cancel');
    assert.equal((await runnerOf('agent_runs', runId)).status, 'cancelled');
  });

  it('stops a run cancelled as the worker claims it, before the worker watches it for a cancel', async () => {
    // The cancel lands in the claim's own transaction (a trigger, for the test only): the worker hears it
    // before it has read the run and begun watching it, which used to lose it (the run went on).
    await api.adminPool.query(`create function public.cancel_at_claim() returns trigger language plpgsql as $$
      begin
        if old.runner is null and new.runner is not null and new.input = 'Cancel at claim' then
          new.status := 'cancelled'; new.error := 'The run was cancelled'; new.finished_at := now();
          perform pg_notify('ai_runs', 'cancel:' || new.id);
        end if;
        return new;
      end $$;
      create trigger cancel_at_claim before update on ai.agent_runs for each row execute function public.cancel_at_claim();`);
    try {
      vendor.reset();
      vendor.script({ hang: true });
      const res = await post(ann, `/agents/${agentId}/run/stream`, { message: 'Cancel at claim' });
      const events: Event[] = [];
      for await (const e of sseStream<Event>(res)) events.push(e);
      assert.deepEqual(events.map((e) => [e.type, e.error_code]).filter(([t]) => !String(t).startsWith('hook')), [['start', undefined], ['error', 'RUN_CANCELLED']],
        'its start, then the cancel (its OnRunStart hook, if it fires, is cut short by it)');
      const runId = events[0]!.run_id as string;
      assert.equal((await runnerOf('agent_runs', runId)).status, 'cancelled');
    } finally {
      await api.adminPool.query('drop trigger cancel_at_claim on ai.agent_runs; drop function public.cancel_at_claim()');
    }
  });

  it('ends a run cancelled between its beginning and its hand-off here, with its cancel as its last event, JSON and streamed', async () => {
    // The cancel lands as the run's first events are stored, before the server lets go of it (a trigger, for the test only).
    await api.adminPool.query(`create function public.cancel_on_start() returns trigger language plpgsql as $$
      begin
        if new.event ->> 'type' = 'start' then
          update ai.agent_runs set status = 'cancelled', finished_at = now() where id = new.agent_run_id and input = 'Cancel me';
        end if;
        return new;
      end $$;
      create trigger cancel_on_start after insert on ai.run_events for each row execute function public.cancel_on_start();`);
    try {
      const eventsOf = async (runId: string) => (await api.adminPool.query<{ type: string; code: string | null }>(
        `select event ->> 'type' as type, event ->> 'error_code' as code from ai.run_events where agent_run_id = $1 order by seq`, [runId])).rows.map((r) => [r.type, r.code]);
      const answer = await post(ann, `/agents/${agentId}/run`, { message: 'Cancel me' });
      const body = (await answer.json()) as { error: string; run_id: string };
      assert.deepEqual([answer.status, body.error], [409, 'The run was cancelled']);
      assert.deepEqual(await eventsOf(body.run_id), [['start', null], ['error', 'RUN_CANCELLED']], 'its events end with the cancel');
      const streamed = numberedEvents<Event>(await (await post(ann, `/agents/${agentId}/run/stream`, { message: 'Cancel me' })).text()).map((e) => e.event);
      assert.deepEqual(streamed.map((e) => [e.type, e.error_code]), [['start', undefined], ['error', 'RUN_CANCELLED']]);
      assert.deepEqual(await eventsOf(streamed[0]!.run_id as string), [['start', null], ['error', 'RUN_CANCELLED']]);
      assert.equal((await runnerOf('agent_runs', streamed[0]!.run_id as string)).status, 'cancelled', 'no worker took it');
    } finally {
      await api.adminPool.query('drop trigger cancel_on_start on ai.run_events; drop function public.cancel_on_start()');
    }
  });

  it('parks a run a worker carries on its approval and carries it on after the answer, the server\'s stream following throughout', async () => {
    const asker = (await json<{ id: string }>(await post(ann, '/agents', { name: 'asker', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/agents/${asker}/tools`, { tool_name: 'record' }), 201);
    await json(await post(ann, `/agents/${asker}/hooks`, { event: 'PreToolUse', type: 'approval', config: { message: 'May I?', timeout: 3600 } }), 201);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'a1', name: 'record', arguments: { n: 4 } }] }, { text: 'Recorded four.' });
    tool.calls.length = 0;
    const stream = sseStream<Event>(await post(ann, `/agents/${asker}/run/stream`, { message: 'Record 4' }));
    const asked = await untilEvent(stream, 'approval_requested');
    const runId = asked.run_id as string;
    await eventually('the worker to park the run', () => runnerOf('agent_runs', runId), (r) => r.status === 'waiting_approval' && r.runner === null, { tries: 400 });
    await json(await post(ann, `/agents/${asker}/runs/${runId}/approvals/${asked.approval_id}`, { decision: 'approve' }), 200);
    const rest: Event[] = [];
    for (let r = await stream.next(); !r.done; r = await stream.next()) rest.push(r.value);
    assert.deepEqual(types(rest), ['resumed', 'approval_resolved', 'hook', 'tool_result', 'content_delta', 'usage', 'complete'], JSON.stringify(rest));
    assert.equal(rest.at(-1)!.output, 'Recorded four.');
    assert.deepEqual(tool.calls.map((c) => c.n), [4], 'the tool ran once, after the answer');
    const done = await runnerOf('agent_runs', runId);
    assert.deepEqual([done.status, done.byServer], ['completed', false]);
  });

  it('carries an orchestration run in a worker: its JSON answer with its delegation, and its stream', async () => {
    const team = (await json<{ id: string }>(await post(ann, '/orchestrations', { name: 'worker desk', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/orchestrations/${team}/entities`, { entity_type: 'agent', entity_ref_id: agentId, role_description: 'Records numbers', position: 1 }), 201);
    const script = () => vendor.script({ toolCalls: [{ id: 'd1', name: 'delegate_to_recorder', arguments: { task: 'Record 3' } }] }, { toolCalls: [{ id: 'm1', name: 'record', arguments: { n: 3 } }] }, { text: 'Recorded 3.' }, { text: 'The desk recorded it.' });
    vendor.reset();
    script();
    const body = await json<{ run_id: string; status: string; output: string; delegations: Array<{ status: string; agent_name: string; output: string }> }>(await post(ann, `/orchestrations/${team}/run`, { message: 'Record 3' }), 200);
    assert.deepEqual({ status: body.status, output: body.output }, { status: 'completed', output: 'The desk recorded it.' });
    assert.deepEqual(body.delegations.map((d) => [d.status, d.agent_name, d.output]), [['completed', 'recorder', 'Recorded 3.']]);
    assert.equal((await runnerOf('orchestration_runs', body.run_id)).byServer, false);

    vendor.reset();
    script();
    const events = numberedEvents<Event>(await (await post(ann, `/orchestrations/${team}/run/stream`, { message: 'Record 3' })).text()).map((e) => e.event);
    assert.deepEqual(types(events).filter((t) => t !== 'delegation_delta'),
      ['start', 'tool_call', 'delegation_started', 'tool_call', 'tool_result', 'delegation_completed', 'tool_result', 'content_delta', 'usage', 'complete'], JSON.stringify(events));
    assert.equal((await runnerOf('orchestration_runs', events[0]!.run_id as string)).byServer, false);
  });

  it('carries workflow runs in a worker: a sync answer, a failure with its execution id, a stream, a webhook', async () => {
    const service = api.keys.serviceRoleKey;
    const flow = async (name: string, blocks: unknown[], edges: unknown[]) => {
      const w = await json<{ id: string }>(await post(service, '/workflows', { name }), 201);
      const saved = await json<{ blocks: Array<{ id: string; config: { webhook_id?: string; webhook_secret?: string } }> }>(await put(service, `/workflows/${w.id}/graph`, { blocks, edges }), 200);
      return { id: w.id, hook: saved.blocks.find((b) => b.id === 'hook')?.config };
    };
    const echo = await flow('echo', [{ id: 'start', type: 'starter' }, { id: 'out', type: 'response', config: { output: { said: '<variables.msg>' } } }], [{ source: 'start', target: 'out' }]);
    const ran = await json<{ execution_id: string; status: string; output: unknown }>(await post(service, `/workflows/${echo.id}/execute`, { variables: { msg: 'hi' } }), 200);
    assert.deepEqual({ status: ran.status, output: ran.output }, { status: 'succeeded', output: { said: 'hi' } });
    const carried = await runnerOf('workflow_executions', ran.execution_id);
    assert.deepEqual([carried.status, carried.byServer, carried.runner !== null], ['succeeded', false, true], 'carried by the worker\'s process');

    const broken = await flow('broken', [{ id: 'start', type: 'starter' }, { id: 'call', type: 'general_api', config: { url: 'http://127.0.0.1:1/' } }], [{ source: 'start', target: 'call' }]);
    const failed = await post(service, `/workflows/${broken.id}/execute`, {});
    const failure = await failed.json() as { error: string; error_code: string; execution_id: string };
    assert.deepEqual([failed.status, failure.error_code, typeof failure.execution_id], [500, 'EXECUTION_FAILED', 'string'], JSON.stringify(failure));
    assert.match(failure.error, /Block "call" \(general_api\) failed/);

    const streamed = numberedEvents<Event>(await (await post(service, `/workflows/${echo.id}/execute/stream`, { variables: { msg: 'yo' } })).text()).map((e) => e.event);
    assert.deepEqual(streamed.map((e) => e.type), ['run_started', 'block_started', 'block_completed', 'block_started', 'block_completed', 'run_completed']);
    assert.deepEqual(streamed.at(-1)!.output, { said: 'yo' });

    const hooked = await flow('hooked', [{ id: 'hook', type: 'webhook' }, { id: 'out', type: 'response', config: { output: { got: '<variables.msg>' } } }], [{ source: 'hook', target: 'out' }]);
    await json(await post(service, `/workflows/${hooked.id}/deploy`, {}), 200);
    const called = await fetch(`${api.url}/api/webhooks/${hooked.hook!.webhook_id}`, { method: 'POST', headers: { authorization: `Bearer ${hooked.hook!.webhook_secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ msg: 'ping' }) });
    const answered = await called.json() as { execution_id: string; status: string; output: unknown };
    assert.deepEqual([called.status, answered.status, answered.output], [200, 'succeeded', { got: 'ping' }], JSON.stringify(answered));
    assert.equal((await runnerOf('workflow_executions', answered.execution_id)).byServer, false);
  });
});
