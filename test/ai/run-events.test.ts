// Runs a client can come back to (issue 29, items 3 and 5): every event is
// stored and numbered before it is sent; GET …/events replays from a cursor
// (Last-Event-ID or ?after=) on any replica and follows the rest live; a
// client that leaves does not stop the run; a cancel sent to another replica
// stops it at once. Two platforms on one database; runs start on A.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { delegateToolName } from '../../server/ai/agents/loop.ts';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { numberedEvents, sseStream, untilEvent } from '../helpers/sse.ts';

type Numbered = ReturnType<typeof numberedEvents<{ type: string; [k: string]: any }>>;

describe('runs a client can come back to', () => {
  let a: TestPlatform;
  let b: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let bob: string;
  let slow: http.Server;
  let slowUrl: string;
  // The slow endpoint answers when the test opens the gate.
  let open: () => void = () => undefined;
  let gate = Promise.resolve();
  const closeGate = () => (gate = new Promise<void>((r) => (open = r)));
  const onA = aiApi(() => a);
  const onB = aiApi(() => b);

  before(async () => {
    vendor = await startVendorServer();
    slow = http.createServer((_req, res) => void gate.then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"slow":true}')));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
    const env = { ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };
    a = await startTestPlatform(env);
    b = await startTestPlatform(env, { databaseUrl: a.config.DATABASE_URL! });
    await storeOpenAiKey(a);
    ann = (await signUp(a, 'ann-events@example.com')).access_token;
    bob = (await signUp(a, 'bob-events@example.com')).access_token;
  });
  after(async () => {
    open();
    await b?.stop();
    await stopTestPlatform(a);
    await vendor.close();
    slow.close();
  });

  const agentWith = async (tool: string) => {
    const agent = await onA.json<{ id: string }>(await onA.post(ann, '/agents', { name: `events-${tool}-${Math.random()}`, model: 'gpt-4.1-mini' }), 201);
    await onA.json(await onA.post(ann, `/agents/${agent.id}/tools`, { tool_name: tool }), 201);
    return agent.id;
  };
  const follow = async (on: typeof onA, token: string, path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${on === onA ? a.url : b.url}/api${path}`, { headers: { ...on.headers(token), ...headers } });
    assert.equal(res.status, 200, await res.clone().text());
    return numberedEvents(await res.text()) as Numbered;
  };

  it('numbers a stream\'s events; any replica replays them, all or after a cursor', async () => {
    const agent = await agentWith('code_execute');
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'c1', name: 'code_execute', arguments: { code: 'return 6 * 7' } }] }, { text: 'It is 42.' });
    const streamed = numberedEvents(await (await onA.post(ann, `/agents/${agent}/run/stream`, { message: 'Compute' })).text()) as Numbered;
    const ids = streamed.map((e) => e.id!);
    assert.deepEqual(ids, ids.map((_, i) => i + 1), 'every event numbered 1, 2, 3, ...');
    assert.equal(streamed[0]!.event.type, 'start');
    assert.equal(streamed.at(-1)!.event.type, 'complete');
    assert.deepEqual(streamed.filter((e) => e.event.type === 'tool_result').map((e) => JSON.parse(e.event.result).result), [42]);
    const runId = streamed[0]!.event.run_id as string;
    const path = `/agents/${agent}/runs/${runId}/events`;

    assert.deepEqual(await follow(onB, ann, path), streamed, 'a replay from the first equals the stream');
    assert.deepEqual(await follow(onB, ann, path, { 'last-event-id': '2' }), streamed.slice(2));
    assert.deepEqual(await follow(onA, ann, `${path}?after=3`), streamed.slice(3));
    assert.deepEqual(await follow(onB, ann, `${path}?after=${ids.length}`), []);
    assert.equal((await onB.api(bob, path)).status, 404, 'another user\'s run is not there');
    assert.equal((await onB.api(ann, `${path}?after=x`)).status, 400);
    // The record says where its events end and what each model call cost.
    const record = await onA.json<{ last_event_id: number; model_calls: Array<{ step: string; model: string; tokens_in: number; ok: boolean }> }>(await onA.api(ann, `/agents/${agent}/runs/${runId}`), 200);
    assert.equal(record.last_event_id, ids.length);
    assert.deepEqual(record.model_calls.map((c) => [c.step, c.model, c.ok]), [['step-1', 'gpt-4.1-mini', true], ['step-2', 'gpt-4.1-mini', true]]);
  });

  it('goes on when its client leaves; the client follows the rest from another replica, live', async () => {
    const agent = await agentWith('http_request');
    closeGate();
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'h1', name: 'http_request', arguments: { url: slowUrl, method: 'GET' } }] }, { text: 'Done waiting.' });
    const client = new AbortController();
    const res = await fetch(`${a.url}/api/agents/${agent}/run/stream`, { method: 'POST', headers: onA.headers(ann), body: JSON.stringify({ message: 'Wait for it' }), signal: client.signal });
    const stream = sseStream(res);
    const start = await untilEvent(stream, 'start');
    await untilEvent(stream, 'tool_call');
    client.abort();
    const runId = start.run_id as string;
    // Following from B while the run waits on the slow call; the rest arrives as it is stored on A.
    const following = follow(onB, ann, `/agents/${agent}/runs/${runId}/events?after=1`);
    await new Promise((r) => setTimeout(r, 200));
    open();
    const rest = await following;
    assert.deepEqual(rest.map((e) => e.event.type).filter((t) => t !== 'content_delta'), ['tool_call', 'tool_result', 'usage', 'complete']);
    assert.equal(rest.at(-1)!.event.output, 'Done waiting.');
    assert.equal(rest[0]!.id, 2);
    assert.equal((await onA.json<{ status: string }>(await onA.api(ann, `/agents/${agent}/runs/${runId}`), 200)).status, 'completed');
  });

  it('stops at once when cancelled on another replica, and says so', async () => {
    const agent = await agentWith('http_request');
    closeGate();
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'h2', name: 'http_request', arguments: { url: slowUrl, method: 'GET' } }] }, { text: 'never' });
    const res = await onA.post(ann, `/agents/${agent}/run/stream`, { message: 'Wait forever' });
    const stream = sseStream(res);
    const start = await untilEvent(stream, 'start');
    await untilEvent(stream, 'tool_call');
    const cancel = `/agents/${agent}/runs/${start.run_id}/cancel`;
    assert.equal((await onB.post(bob, cancel, {})).status, 404, 'only who can see the run cancels it');
    assert.deepEqual(await onB.json(await onB.post(ann, cancel, {}), 200), { cancelled: true, run_id: start.run_id });
    const last = await untilEvent(stream, 'error');
    assert.equal(last.error_code, 'RUN_CANCELLED');
    assert.equal(last.run_id, start.run_id);
    open();
    const record = await onA.json<{ status: string; error: string }>(await onA.api(ann, `/agents/${agent}/runs/${start.run_id}`), 200);
    assert.deepEqual([record.status, record.error], ['cancelled', 'The run was cancelled']);
    assert.deepEqual(await onB.json(await onB.post(ann, cancel, {}), 200), { cancelled: false, run_id: start.run_id }, 'a second cancel finds it ended');
    const replay = await follow(onB, ann, `/agents/${agent}/runs/${start.run_id}/events`);
    assert.equal(replay.at(-1)!.event.error_code, 'RUN_CANCELLED', 'the replay ends as the stream did');
  });

  it('keeps a JSON run\'s events too (no streamed text), for a client that lost the answer', async () => {
    const agent = await agentWith('code_execute');
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'j1', name: 'code_execute', arguments: { code: 'return 1 + 1' } }] }, { text: 'Two.' });
    const run = await onA.json<{ run_id: string }>(await onA.post(ann, `/agents/${agent}/run`, { message: 'Add' }), 200);
    const events = await follow(onB, ann, `/agents/${agent}/runs/${run.run_id}/events`);
    assert.deepEqual(events.map((e) => e.event.type), ['start', 'tool_call', 'tool_result', 'usage', 'complete']);
  });

  it('numbers an orchestration\'s events, its members\' included, and replays them', async () => {
    const member = await agentWith('code_execute');
    const team = await onA.json<{ id: string }>(await onA.post(ann, '/orchestrations', { name: 'events team' }), 201);
    const entity = await onA.json<{ id: string }>(await onA.post(ann, `/orchestrations/${team.id}/entities`, { entity_type: 'agent', entity_ref_id: member, role_description: 'computes' }), 201);
    assert.ok(entity.id);
    vendor.reset();
    vendor.script({ text: 'No delegation needed.' });
    const streamed = numberedEvents(await (await onA.post(ann, `/orchestrations/${team.id}/run/stream`, { message: 'Hello' })).text()) as Numbered;
    assert.deepEqual(streamed.map((e) => e.id), streamed.map((_, i) => i + 1));
    const runId = streamed[0]!.event.run_id as string;
    assert.deepEqual(await follow(onB, ann, `/orchestrations/runs/${runId}/events`), streamed);
    assert.equal((await onB.api(bob, `/orchestrations/runs/${runId}/events`)).status, 404);
    assert.deepEqual(await onB.json(await onB.post(ann, `/orchestrations/runs/${runId}/cancel`, {}), 200), { cancelled: false, run_id: runId });
  });

  it('ends an orchestration\'s delegation in flight when the run is cancelled: its record says failed, not running', async () => {
    const member = await agentWith('http_request');
    const memberName = (await onA.json<{ name: string }>(await onA.api(ann, `/agents/${member}`), 200)).name;
    const team = await onA.json<{ id: string }>(await onA.post(ann, '/orchestrations', { name: 'cancelled team' }), 201);
    await onA.json(await onA.post(ann, `/orchestrations/${team.id}/entities`, { entity_type: 'agent', entity_ref_id: member, role_description: 'waits' }), 201);
    closeGate();
    vendor.reset();
    vendor.script(
      { toolCalls: [{ id: 'o1', name: delegateToolName(memberName), arguments: { task: 'wait' } }] },
      { toolCalls: [{ id: 'm1', name: 'http_request', arguments: { url: slowUrl, method: 'GET' } }] },
      { text: 'never' },
    );
    const stream = sseStream(await onA.post(ann, `/orchestrations/${team.id}/run/stream`, { message: 'Delegate and wait' }));
    const start = await untilEvent(stream, 'start');
    await untilEvent(stream, 'delegation_started');
    await untilEvent(stream, 'tool_call');
    assert.deepEqual(await onB.json(await onB.post(ann, `/orchestrations/runs/${start.run_id}/cancel`, {}), 200), { cancelled: true, run_id: start.run_id });
    assert.equal((await untilEvent(stream, 'error')).error_code, 'RUN_CANCELLED');
    open();
    const run = await onA.json<{ status: string; delegations: Array<{ status: string; error: string | null; finished_at: string | null }> }>(await onA.api(ann, `/orchestrations/runs/${start.run_id}`), 200);
    assert.equal(run.status, 'cancelled');
    assert.deepEqual(run.delegations.map((d) => [d.status, d.error, d.finished_at !== null]), [['failed', 'The run was cancelled', true]]);
  });

  it('numbers a workflow\'s events, streamed or queued, and replays them', async () => {
    const w = await onA.json<{ id: string }>(await onA.post(ann, '/workflows', { name: 'events flow' }), 201);
    await onA.json(await onA.put(ann, `/workflows/${w.id}/graph`, { blocks: [{ id: 'start', type: 'starter' }, { id: 'out', type: 'response', config: { output: 'Hi <start.name>' } }], edges: [{ source: 'start', target: 'out' }] }), 200);
    const streamed = numberedEvents(await (await onA.post(ann, `/workflows/${w.id}/execute/stream`, { variables: { name: 'Ada' } })).text()) as Numbered;
    assert.deepEqual(streamed.map((e) => e.id), streamed.map((_, i) => i + 1));
    assert.deepEqual([streamed[0]!.event.type, streamed.at(-1)!.event.type], ['run_started', 'run_completed']);
    const executionId = streamed[0]!.event.execution_id as string;
    assert.deepEqual(await follow(onB, ann, `/workflows/${w.id}/executions/${executionId}/events`), streamed);
    assert.deepEqual(await follow(onB, ann, `/workflows/${w.id}/executions/${executionId}/events`, { 'last-event-id': '1' }), streamed.slice(1));
    // A queued run is followed from its start to its end.
    const queued = await onA.json<{ execution_id: string }>(await onA.post(ann, `/workflows/${w.id}/execute`, { variables: { name: 'Bo' }, mode: 'async' }), 202);
    const events = await follow(onB, ann, `/workflows/${w.id}/executions/${queued.execution_id}/events`);
    assert.equal(events.at(-1)!.event.type, 'run_completed');
    assert.equal(events.at(-1)!.event.output, 'Hi Bo');
    assert.equal((await onB.api(bob, `/workflows/${w.id}/executions/${executionId}/events`)).status, 404);
  });
});
