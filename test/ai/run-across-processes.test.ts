// Two servers and a separate `npm run worker` on one database (issue 29):
// neither server runs a worker, so every resume is the standalone worker's.
// A run started on one server, which is then killed, is resumed by the worker,
// waits on its approval without a process, is streamed from the other server
// and decided there, and the worker carries it to its end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { resumeDiagnostics, startPlatformProcess, startWorkerCli, type PlatformProcess, type WorkerCli } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { startCallRecorder, type CallRecorder } from '../helpers/recorder.ts';
import { numberedEvents, sseStream, untilEvent } from '../helpers/sse.ts';

const FAST = { REALTIME_NODE_HEARTBEAT_MS: '300', REALTIME_NODE_REAP_MS: '1500', AI_RUN_SWEEP_INTERVAL_MS: '500' };
type Event = { type: string; [key: string]: any };
const types = (events: Event[]) => events.map((e) => e.type).filter((t, i, all) => t !== 'content_delta' || all[i - 1] !== t);

describe('a run across two servers and a separate worker', () => {
  let second: TestPlatform;
  let first: PlatformProcess | undefined;
  let worker: WorkerCli | undefined;
  let vendor: VendorServer;
  let receiver: CallRecorder;
  const { json, post, headers } = aiApi(() => second);

  before(async () => {
    receiver = await startCallRecorder();
    vendor = await startVendorServer();
    const ai = { ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };
    second = await startTestPlatform({ ...FAST, ...ai, LOG_LEVEL: 'warn', WORKER: 'off' });
    worker = await startWorkerCli(second, { ...FAST, ...ai, AI_APPROVAL_PARK_AFTER_MS: '300' });
    // The first server would keep the wait in its process for an hour: only its death lets go of the run.
    first = await startPlatformProcess(second, { ...FAST, ...ai, LOG_LEVEL: 'warn', WORKER: 'off', AI_APPROVAL_PARK_AFTER_MS: '3600000' });
  });
  after(async () => {
    await first?.kill();
    await worker?.kill();
    await stopTestPlatform(second);
    await vendor.close();
    receiver.close();
  });

  it('started on one server (killed), resumed by the worker, streamed from and decided on the other, finished by the worker', async () => {
    const ann = (await signUp(second, 'ann-apart@example.com')).access_token;
    await storeOpenAiKey(second);
    const agentId = (await json<{ id: string }>(await post(ann, '/agents', { name: 'asker', model: 'gpt-4.1-mini' }), 201)).id;
    const endpoint = `${receiver.url}/record`;
    await json(await post(ann, '/tools', { name: 'record', description: 'Record a number', type: 'http', input_schema: { type: 'object' }, config: { endpoint } }), 201);
    await json(await post(ann, `/agents/${agentId}/tools`, { tool_name: 'record' }), 201);
    await json(await post(ann, `/agents/${agentId}/hooks`, { event: 'PreToolUse', type: 'approval', config: { message: 'May I?', timeout: 86400 } }), 201);
    vendor.script({ toolCalls: [{ id: 'c1', name: 'record', arguments: { n: 1 } }] }, { text: 'Recorded.' });

    const started = await fetch(`${first!.url}/api/agents/${agentId}/run/stream`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ message: 'Record 1' }) });
    const stream = sseStream<Event>(started);
    const asked = await untilEvent(stream, 'approval_requested');
    const runId = asked.run_id as string;
    await first!.kill();
    await stream.return(undefined).catch(() => undefined);

    // Only the worker can resume it: it does, finds the same approval and parks the run (no process holds it).
    // Handed to its resume job (no runner), resumed (its `resumed` event), then parked again (no runner).
    const state = async () => (await second.adminPool.query<{ resumes: number; runner: string | null; status: string; pending: string | null; resumed: boolean }>(
      `select r.resumes, r.runner, r.status, (select a.id::text from ai.agent_run_approvals a where a.run_id = r.id and a.status = 'pending') as pending,
              exists (select 1 from ai.run_events e where e.agent_run_id = r.id and e.event ->> 'type' = 'resumed') as resumed
         from ai.agent_runs r where r.id = $1`, [runId])).rows[0]!;
    const parked = await eventually('the worker to resume and park the run', state, (r) => r.resumes === 1 && r.resumed && r.runner === null && r.pending !== null,
      { tries: 1200, explain: async () => `${await resumeDiagnostics(second, { table: 'agent_runs', id: runId })}\nworker:\n${worker!.output().slice(-3000)}` });
    assert.deepEqual([parked.status, parked.pending], ['waiting_approval', asked.approval_id], 'the same question, not asked twice');

    // The other server streams it from the first event and takes the answer; the worker finishes the run.
    const follow = fetch(`${second.url}/api/agents/${agentId}/runs/${runId}/events`, { headers: headers(ann) });
    const decided = await fetch(`${second.url}/api/agents/${agentId}/runs/${runId}/approvals/${asked.approval_id}`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ decision: 'approve' }) });
    await json(decided, 200);
    const events = numberedEvents<Event>(await (await follow).text());
    assert.deepEqual(types(events.map((e) => e.event)), ['start', 'tool_call', 'approval_requested', 'resumed', 'resumed', 'approval_resolved', 'hook', 'tool_result', 'content_delta', 'usage', 'complete'],
      'the run once from its first event, each resume marked (after the crash, after the answer)');
    assert.ok(events.every((e, i) => i === 0 || e.id! > events[i - 1]!.id!), 'ids strictly increase');
    assert.equal(events.at(-1)!.event.output, 'Recorded.');
    assert.deepEqual(receiver.calls.map((c) => c.n), [1], 'the tool ran once, after the answer, from the worker');
    const resumedBy = worker!.output().split('\n').filter((l) => l.includes('"msg":"run resumed"') && l.includes(runId));
    assert.equal(resumedBy.length, 2, `the standalone worker resumed it both times:\n${worker!.output().slice(-3000)}`);
    const steps = (await second.adminPool.query<{ step: string }>('select step from ai.usage where run_id = $1 order by id', [runId])).rows.map((r) => r.step);
    assert.deepEqual(steps, ['step-1', 'step-2'], 'each model call charged once');
    assert.equal((await state()).status, 'completed');

    // The worker stops as an operator stops it.
    assert.equal(await worker!.stop(), 0, worker!.output().slice(-2000));
  });
});
