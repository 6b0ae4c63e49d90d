// An agent run survives the death of the process running it (issue 29):
// real processes, a real SIGKILL. A platform process starts a streamed run
// whose scripted model makes three tool calls, one per step; while the third
// call is at its receiver the process is killed. Another server on the same
// database resumes the run from its checkpoints: the run completes, the
// first two calls are not made again, the third is made again with the same
// Idempotency-Key, the ledger charges each model call once, the model reads
// the same conversation byte for byte, and the events read back from the
// first equal an uninterrupted run's (a `resumed` event aside). The same for
// an orchestration whose delegation is in flight: its member goes on from
// its own last stored step.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startVendorServer, type Step, type VendorServer } from '../helpers/openai-server.ts';
import { resumeDiagnostics, startPlatformProcess, type PlatformProcess } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { numberedEvents, sseStream, untilEvent } from '../helpers/sse.ts';
import { startHoldingRecorder, type HoldingRecorder } from '../helpers/recorder.ts';

const FAST = { REALTIME_NODE_HEARTBEAT_MS: '300', REALTIME_NODE_REAP_MS: '1500', AI_RUN_SWEEP_INTERVAL_MS: '500', LOG_LEVEL: 'warn' };
type Event = { type: string; [key: string]: any };

/** What a run's events say, without what differs between two runs (ids, timings, the resume marker). */
const gist = (events: Event[]) => events.filter((e) => e.type !== 'resumed').map(({ run_id: _r, session_id: _s, latency_ms: _l, ...e }) => e);

describe('an agent run whose process is killed', () => {
  let api: TestPlatform;
  let vendor: VendorServer;
  let dying: PlatformProcess | undefined;
  let ann: string;
  let agentId: string;
  let receiver: HoldingRecorder;
  let base: string;
  let calls: HoldingRecorder['calls'];
  const { json, post, api: call, headers } = aiApi(() => api);
  /** Waits (up to a minute) for a resumed run to end, saying what it waits on if it does not. */
  const ended = (table: string, runId: string) => eventually(`the ${table} row to end`, async () =>
    (await api.adminPool.query<{ status: string }>(`select status from ai.${table} where id = $1`, [runId])).rows[0]!.status,
  (s) => s !== 'running' && s !== 'waiting_approval', { tries: 1200, explain: () => resumeDiagnostics(api, { table: table as 'agent_runs', id: runId }) });
  const script = () => vendor.script(
    { toolCalls: [{ id: 'c1', name: 'record', arguments: { n: 1 } }] },
    { toolCalls: [{ id: 'c2', name: 'record', arguments: { n: 2 } }] },
    { toolCalls: [{ id: 'c3', name: 'record', arguments: { n: 3 } }] },
    { text: 'All three are recorded.' },
  );

  /**
   * Streams 'Record 1, 2 and 3' (as `scripted` scripts it) on a platform
   * process of its own until the call recording `hang` is at its receiver;
   * answers the stream and the run's id.
   */
  const runUntilCall = async (scripted: () => void, hang: number) => {
    dying = await startPlatformProcess(api, { ...FAST, ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
    vendor.reset();
    scripted();
    const atCall = receiver.holdAt(hang);
    const stream = sseStream<Event>(await fetch(`${dying.url}/api/agents/${agentId}/run/stream`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ message: 'Record 1, 2 and 3' }) }));
    const runId = (await untilEvent(stream, 'start')).run_id as string;
    await atCall;
    return { stream, runId };
  };

  before(async () => {
    receiver = await startHoldingRecorder();
    base = receiver.url;
    calls = receiver.calls;
    vendor = await startVendorServer();
    api = await startTestPlatform({ ...FAST, ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
    await storeOpenAiKey(api);
    ann = (await signUp(api, 'ann-resume@example.com')).access_token;
    agentId = (await json<{ id: string }>(await post(ann, '/agents', { name: 'recorder', model: 'gpt-4.1-mini', system_prompt: 'Record what you are asked to.' }), 201)).id;
    await json(await post(ann, '/tools', { name: 'record', description: 'Record a number', type: 'http', input_schema: { type: 'object', properties: { n: { type: 'number' } } }, config: { endpoint: `${base}/record` } }), 201);
    await json(await post(ann, `/agents/${agentId}/tools`, { tool_name: 'record' }), 201);
  });
  after(async () => {
    await dying?.kill();
    await stopTestPlatform(api);
    await vendor.close();
    receiver.close();
  });

  it('resumes on another server from its last step: no call made twice but the one in flight, each model call charged once', async () => {
    // The uninterrupted run, for comparison.
    vendor.reset();
    script();
    const whole = numberedEvents<Event>(await (await post(ann, `/agents/${agentId}/run/stream`, { message: 'Record 1, 2 and 3' })).text()).map((e) => e.event);
    assert.equal(whole.at(-1)!.type, 'complete', JSON.stringify(whole.at(-1)));
    const wholeChats = vendor.chats().map((c) => JSON.stringify(c.body.messages));
    calls.length = 0;

    const { stream, runId } = await runUntilCall(script, 3);
    await dying!.kill();
    await stream.return(undefined).catch(() => undefined);
    await ended('agent_runs', runId);

    // Any replica follows it from the first event; the run goes on elsewhere.
    const replay = numberedEvents<Event>(await (await call(ann, `/agents/${agentId}/runs/${runId}/events`)).text());
    const events = replay.map((e) => e.event);
    assert.equal(events.at(-1)!.type, 'complete', `${JSON.stringify(events.at(-1))}\n${dying!.output().slice(-2000)}`);
    assert.deepEqual(replay.map((e) => e.id), replay.map((_, i) => i + 1), 'numbered on without a gap');
    assert.deepEqual(events.find((e) => e.type === 'resumed'), { type: 'resumed', run_id: runId, step: 3, resumes: 1 }, 'the resume is marked, at the step it picked up');
    assert.deepEqual(gist(events), gist(whole), 'the replay equals an uninterrupted run');

    assert.deepEqual(calls.map((c) => c.n), [1, 2, 3, 3], 'only the call in flight is made again');
    assert.equal(calls[2]!.key, calls[3]!.key, 'with the same idempotency key');
    assert.equal(new Set(calls.slice(0, 3).map((c) => c.key)).size, 3, 'each call has its own');
    const steps = (await api.adminPool.query<{ step: string; n: number }>('select step, count(*)::int as n from ai.usage where run_id = $1 group by step order by step', [runId])).rows;
    assert.deepEqual(steps, ['step-1', 'step-2', 'step-3', 'step-4'].map((step) => ({ step, n: 1 })), 'each model call charged once');
    assert.deepEqual(vendor.chats().map((c) => JSON.stringify(c.body.messages)), wholeChats, 'the model read the same conversation, byte for byte');

    const run = await json<{ status: string; output: string; steps: number; model_calls: unknown[] }>(await call(ann, `/agents/${agentId}/runs/${runId}`), 200);
    assert.deepEqual({ status: run.status, output: run.output, steps: run.steps, calls: run.model_calls.length }, { status: 'completed', output: 'All three are recorded.', steps: 4, calls: 4 });
    const record = (await api.adminPool.query<{ resumes: number; runner: string }>('select resumes, runner from ai.agent_runs where id = $1', [runId])).rows[0]!;
    assert.equal(record.resumes, 1);
    assert.equal(record.runner, api.realtime.nodeId, 'carried on by the live server');
  });

  it('tells followers a result the crash kept from them: a stored tool result whose event was lost is sent after the resume, not run again', async () => {
    // Two calls in one step: the first finishes, the second is in flight at the crash.
    const twoInOne = () => vendor.script(
      { toolCalls: [{ id: 'c1', name: 'record', arguments: { n: 1 } }] },
      { toolCalls: [{ id: 'c2', name: 'record', arguments: { n: 2 } }, { id: 'c3', name: 'record', arguments: { n: 3 } }] },
      { text: 'All three are recorded.' },
    );
    vendor.reset();
    twoInOne();
    const whole = numberedEvents<Event>(await (await post(ann, `/agents/${agentId}/run/stream`, { message: 'Record 1, 2 and 3' })).text()).map((e) => e.event);
    assert.equal(whole.at(-1)!.type, 'complete', JSON.stringify(whole.at(-1)));
    calls.length = 0;

    const { stream, runId } = await runUntilCall(twoInOne, 3);
    await dying!.kill();
    await stream.return(undefined).catch(() => undefined);
    // The crash came after c2's result was stored and before its event was: what a kill between the two leaves
    // (the kill may have come before the event was stored; otherwise it and what followed it are deleted here).
    const stored = await api.adminPool.query(`select 1 from ai.session_messages where run_id = $1 and role = 'tool' and tool_call_id = 'c2'`, [runId]);
    assert.equal(stored.rowCount, 1, 'c2\'s result is stored');
    await api.adminPool.query(`delete from ai.run_events where agent_run_id = $1 and seq >= (select seq from ai.run_events
      where agent_run_id = $1 and event ->> 'type' = 'tool_result' and event ->> 'id' = 'c2')`, [runId]);
    const told = await api.adminPool.query(`select 1 from ai.run_events where agent_run_id = $1 and event ->> 'type' = 'tool_result' and event ->> 'id' = 'c2'`, [runId]);
    assert.equal(told.rowCount, 0, 'c2\'s result is not among the events');
    await ended('agent_runs', runId);

    const replay = numberedEvents<Event>(await (await call(ann, `/agents/${agentId}/runs/${runId}/events`)).text());
    const events = replay.map((e) => e.event);
    assert.equal(events.at(-1)!.type, 'complete', `${JSON.stringify(events.at(-1))}\n${dying!.output().slice(-2000)}`);
    assert.deepEqual(replay.map((e) => e.id), replay.map((_, i) => i + 1), 'numbered on without a gap');
    assert.deepEqual(gist(events), gist(whole), 'the replay equals an uninterrupted run: c2\'s result told once, after the resume');
    assert.deepEqual(calls.map((c) => c.n), [1, 2, 3, 3], 'c2 is not run again; only the call in flight is');
  });

  it('is handed over when its server stops for a deploy (SIGTERM): another server finishes it, nothing failed', async () => {
    calls.length = 0;
    const { stream, runId } = await runUntilCall(script, 2);
    const seen: Event[] = [];
    const stopped = dying!.stop();
    // The stream ends without an error: the run was handed over, not failed.
    for (let r = await stream.next(); !r.done; r = await stream.next()) seen.push(r.value);
    await stopped;
    assert.ok(!seen.some((e) => e.type === 'error'), JSON.stringify(seen));
    await ended('agent_runs', runId);
    const events = numberedEvents<Event>(await (await call(ann, `/agents/${agentId}/runs/${runId}/events`)).text()).map((e) => e.event);
    assert.equal(events.at(-1)!.type, 'complete', `${JSON.stringify(events.at(-1))}\n${dying!.output().slice(-2000)}`);
    assert.deepEqual(calls.map((c) => c.n), [1, 2, 2, 3], 'the call in flight at the stop is made once more');
    assert.equal(calls[1]!.key, calls[2]!.key, 'with the same idempotency key');
    const record = (await api.adminPool.query<{ status: string; resumes: number }>('select status, resumes from ai.agent_runs where id = $1', [runId])).rows[0]!;
    assert.deepEqual(record, { status: 'completed', resumes: 1 });
  });

  /** The recorder as a delegated member: it records 1, then 2, then answers. */
  const memberScript = () => [
    { toolCalls: [{ id: 'm1', name: 'record', arguments: { n: 1 } }] },
    { toolCalls: [{ id: 'm2', name: 'record', arguments: { n: 2 } }] },
    { text: 'Recorded 1 and 2.' },
  ];
  /**
   * A streamed run (POST `path`) whose model delegates to the recorder with
   * `delegate`, then answers `answer`: once uninterrupted, then on a process
   * killed while the member's second call is at its receiver, resumed by the
   * live server. Checks what both kinds of delegation share: the replay
   * equals the uninterrupted run (beside `same`'s differences), only the
   * member's call in flight is made again, with its key, and the member and
   * its lead read the same conversations after the crash. Answers the run id.
   */
  const delegationCrash = async (o: { path: string; delegate: Step; answer: string; table: 'agent_runs' | 'orchestration_runs'; events: (runId: string) => string; same: (es: Event[]) => unknown }) => {
    const lead = () => vendor.script(o.delegate, ...memberScript(), { text: o.answer });
    vendor.reset();
    lead();
    const whole = numberedEvents<Event>(await (await post(ann, o.path, { message: 'Record 1 and 2' })).text()).map((e) => e.event);
    assert.equal(whole.at(-1)!.type, 'complete', JSON.stringify(whole.at(-1)));
    // The lead's first call, the member's three, the lead's answer.
    const wholeChats = vendor.chats().map((c) => JSON.stringify(c.body.messages));
    assert.equal(wholeChats.length, 5);
    calls.length = 0;

    dying = await startPlatformProcess(api, { ...FAST, ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
    vendor.reset();
    lead();
    const second = receiver.holdAt(2);
    const stream = sseStream<Event>(await fetch(`${dying.url}/api${o.path}`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ message: 'Record 1 and 2' }) }));
    const start = await untilEvent(stream, 'start');
    await second;
    await dying.kill();
    await stream.return(undefined).catch(() => undefined);
    // The member goes on from its second step: only its answer and the lead's are left to make.
    vendor.reset();
    vendor.script(memberScript().at(-1)!, { text: o.answer });
    const runId = start.run_id as string;
    await ended(o.table, runId);

    const events = numberedEvents<Event>(await (await call(ann, o.events(runId))).text()).map((e) => e.event);
    assert.equal(events.at(-1)!.type, 'complete', `${JSON.stringify(events.at(-1))}\n${dying.output().slice(-2000)}`);
    assert.deepEqual(o.same(gist(events)), o.same(gist(whole)), 'the replay equals an uninterrupted run');
    assert.deepEqual(calls.map((c) => c.n), [1, 2, 2], 'only the member\'s call in flight is made again');
    assert.equal(calls[1]!.key, calls[2]!.key, 'with the same key');
    assert.deepEqual(vendor.chats().map((c) => JSON.stringify(c.body.messages)), wholeChats.slice(3), 'the member and its lead read the same conversations, byte for byte');
    return runId;
  };
  const storedRoles = async (column: 'agent_run_id' | 'orchestration_run_id', runId: string) =>
    (await api.adminPool.query<{ role: string }>(`select role from ai.member_messages where ${column} = $1 order by id`, [runId])).rows.map((r) => r.role);

  it('resumes an orchestration with a delegation in flight: the delegation goes on under its id from its member\'s last step', async () => {
    const team = (await json<{ id: string }>(await post(ann, '/orchestrations', { name: 'records desk', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/orchestrations/${team}/entities`, { entity_type: 'agent', entity_ref_id: agentId, role_description: 'Records numbers', position: 1 }), 201);
    // A delegation's id and its record's usage differ between two runs.
    const same = (es: Event[]) => es.map(({ delegation_id: _d, ...e }) => (e.type === 'delegation_completed' ? { ...e, id: undefined, usage: undefined } : e.type === 'usage' ? { type: 'usage' } : e));
    const runId = await delegationCrash({
      path: `/orchestrations/${team}/run/stream`, delegate: { toolCalls: [{ id: 'd1', name: 'delegate_to_recorder', arguments: { task: 'Record 1 and 2' } }] },
      answer: 'The desk recorded them.', table: 'orchestration_runs', events: (id) => `/orchestrations/runs/${id}/events`, same,
    });
    const delegations = (await api.adminPool.query<{ status: string; steps: number; calls: Array<{ id: string; ok: boolean; result: string; arguments: unknown }> }>(
      'select status, steps, tool_calls as calls from ai.orchestration_delegations where run_id = $1', [runId])).rows;
    assert.deepEqual(delegations.map((d) => ({ ...d, calls: d.calls.map(({ id, ok, result, arguments: a }) => ({ id, ok, result, arguments: a })) })),
      [{ status: 'completed', steps: 3, calls: [{ id: 'm1', ok: true, result: '{"recorded":1}', arguments: { n: 1 } }, { id: 'm2', ok: true, result: '{"recorded":2}', arguments: { n: 2 } }] }],
      'one delegation, under its id, with every tool call its member made, before the crash and after');
    const steps = (await api.adminPool.query<{ step: string }>('select step from ai.usage where run_id = $1 order by id', [runId])).rows.map((r) => r.step.replace(/^[0-9a-f-]{36}\//, 'member/'));
    assert.deepEqual(steps, ['step-1', 'member/step-1', 'member/step-2', 'member/step-3', 'step-2'], 'each model call charged once');
    assert.deepEqual(await storedRoles('orchestration_run_id', runId), ['assistant', 'tool', 'assistant', 'tool', 'assistant'], 'its member\'s steps stored as it made them');
    // GET of the run shows them: the delegation's model calls and tool calls, before the crash and after, each once.
    type Node = { name: string; children: Node[] };
    const { timeline } = await json<{ timeline: Node }>(await call(ann, `/orchestrations/runs/${runId}`), 200);
    const delegation = timeline.children[0]!.children.find((c) => c.name === 'execute_tool delegate_to_recorder')!.children[0]!;
    assert.deepEqual(delegation.children.map((c) => c.name), ['chat gpt-4.1-mini', 'execute_tool record', 'chat gpt-4.1-mini', 'execute_tool record', 'chat gpt-4.1-mini']);
  });

  it('resumes an agent run with a sub-agent in flight: the sub-agent goes on from its last step, each of its model calls charged once', async () => {
    const lead = (await json<{ id: string }>(await post(ann, '/agents', { name: 'lead', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/agents/${lead}/tools`, { agent_id: agentId }), 201);
    const runId = await delegationCrash({
      path: `/agents/${lead}/run/stream`, delegate: { toolCalls: [{ id: 's1', name: 'delegate_to_recorder', arguments: { task: 'Record 1 and 2' } }] },
      answer: 'The recorder did it.', table: 'agent_runs', events: (id) => `/agents/${lead}/runs/${id}/events`,
      same: (es) => es.map((e) => (e.type === 'usage' ? { type: 'usage' } : e)),
    });
    const steps = (await api.adminPool.query<{ step: string }>('select step from ai.usage where run_id = $1 order by id', [runId])).rows.map((r) => r.step);
    assert.deepEqual(steps, ['step-1', 's1/step-1', 's1/step-2', 's1/step-3', 'step-2'], 'each model call charged once');
    assert.deepEqual(await storedRoles('agent_run_id', runId), ['assistant', 'tool', 'assistant', 'tool', 'assistant'], 'its steps stored beside the run');
  });

  /** Hands a run to another live process (a node with a fresh heartbeat, so the sweep leaves it alone), as when this one was taken for dead. */
  const takeOver = async (table: 'agent_runs' | 'orchestration_runs', runId: string) => {
    const other = '77777777-7777-4777-8777-777777777777';
    await api.adminPool.query('insert into realtime.nodes (id) values ($1) on conflict (id) do update set seen_at = now()', [other]);
    await api.adminPool.query(`update ai.${table} set runner = $2 where id = $1`, [runId, other]);
    return other;
  };

  it('stops writing when another process has taken its run (it was taken for dead): nothing more stored, the record left to the other', async () => {
    vendor.reset();
    script();
    calls.length = 0;
    const first = receiver.holdAt(1);
    const answer = post(ann, `/agents/${agentId}/run`, { message: 'Record 1, 2 and 3' });
    await first;
    const { rows: [run] } = await api.adminPool.query<{ id: string }>(`select id from ai.agent_runs where agent_id = $1 and status = 'running' order by started_at desc limit 1`, [agentId]);
    const told = () => api.adminPool.query<{ type: string }>(`select event ->> 'type' as type from ai.run_events where agent_run_id = $1 order by seq`, [run!.id]).then((r) => r.rows.map((e) => e.type));
    // What it told before it was taken for dead is stored (a JSON run's events gather for 50 ms first).
    await eventually('the call\'s event to be stored', told, (types) => types.includes('tool_call'));
    const other = await takeOver('agent_runs', run!.id);
    receiver.dropConnections(); // the call in flight fails: the run goes on to store its result, and may not
    const res = await answer;
    assert.equal(res.status, 503, await res.text());
    const after = (await api.adminPool.query<{ status: string; runner: string; tool_messages: number }>(
      `select status, runner, (select count(*)::int from ai.session_messages m where m.run_id = r.id and m.role = 'tool') as tool_messages from ai.agent_runs r where r.id = $1`, [run!.id])).rows[0]!;
    assert.deepEqual(after, { status: 'running', runner: other, tool_messages: 0 }, 'nothing written after the other process took it');
    // Nor told: the call's failure was never stored, so no follower reads a result the other process will not have.
    await new Promise((r) => setTimeout(r, 200)); // the run's events gather briefly before they are stored
    assert.deepEqual(await told(), ['start', 'tool_call'], 'no tool_result event');
    await api.adminPool.query(`update ai.agent_runs set status = 'cancelled' where id = $1`, [run!.id]);
  });

  it('stops a delegation too when another process has taken its run: the member stores nothing more, the delegation is left running for the other', async () => {
    const team = (await json<{ id: string }>(await post(ann, '/orchestrations', { name: 'taken desk', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann, `/orchestrations/${team}/entities`, { entity_type: 'agent', entity_ref_id: agentId, role_description: 'Records numbers', position: 1 }), 201);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'd1', name: 'delegate_to_recorder', arguments: { task: 'Record 1' } }] }, { toolCalls: [{ id: 'm1', name: 'record', arguments: { n: 1 } }] });
    calls.length = 0;
    const first = receiver.holdAt(1);
    const answer = post(ann, `/orchestrations/${team}/run`, { message: 'Record 1' });
    await first;
    const { rows: [run] } = await api.adminPool.query<{ id: string }>(`select id from ai.orchestration_runs where orchestration_id = $1 and status = 'running'`, [team]);
    // What it told before it was taken for dead is stored (its events gather for 50 ms first).
    await eventually('the member\'s call to be told', () => api.adminPool.query(`select 1 from ai.run_events where orchestration_run_id = $1 and event ->> 'id' = 'm1'`, [run!.id]), (r) => r.rowCount === 1);
    await takeOver('orchestration_runs', run!.id);
    receiver.dropConnections(); // the member's call fails: it goes on to store its result, and may not
    const res = await answer;
    assert.equal(res.status, 503, await res.text());
    const after = (await api.adminPool.query<{ status: string; roles: string[] }>(
      `select d.status, array(select m.role from ai.member_messages m where m.orchestration_run_id = d.run_id order by m.id) as roles from ai.orchestration_delegations d where d.run_id = $1`, [run!.id])).rows;
    assert.deepEqual(after, [{ status: 'running', roles: ['assistant'] }], 'the member\'s first step only; the delegation not failed');
    // Nor is an end of the delegation told to its followers: the other process will tell the real one.
    await new Promise((r) => setTimeout(r, 200)); // the run's events gather briefly before they are stored
    const told = (await api.adminPool.query<{ type: string; id: string | null }>(`select event ->> 'type' as type, event ->> 'id' as id from ai.run_events where orchestration_run_id = $1 order by seq`, [run!.id])).rows;
    assert.ok(!told.some((e) => e.type === 'delegation_completed' || (e.type === 'tool_result' && e.id === 'd1')), JSON.stringify(told));
    await api.adminPool.query(`update ai.orchestration_runs set status = 'cancelled' where id = $1`, [run!.id]);
  });

  it('ends failed, saying why, when its agent is gone', async () => {
    const doomed = (await json<{ id: string }>(await post(ann, '/agents', { name: 'doomed', model: 'gpt-4.1-mini' }), 201)).id;
    const session = (await api.adminPool.query<{ id: string }>(`insert into ai.sessions (owner_id, agent_id, title) select id, $1, 'x' from auth.users where email = 'ann-resume@example.com' returning id`, [doomed])).rows[0]!.id;
    // A run of a process that died, begun as ann (the trigger keeps her as its caller).
    const client = await api.adminPool.connect();
    let runId: string;
    try {
      await client.query('begin');
      await client.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', json_build_object('sub', owner_id, 'role', 'authenticated')::text, true) from ai.sessions where id = $1`, [session]);
      runId = (await client.query<{ id: string }>(`insert into ai.agent_runs (session_id, agent_id, input, runner, context) values ($1, $2, 'go', gen_random_uuid(), '[]') returning id`, [session, doomed])).rows[0]!.id;
      await client.query('commit');
    } finally {
      client.release();
    }
    await json(await call(ann, `/agents/${doomed}`, { method: 'DELETE' }), 200);
    const ended = await eventually('the run to end', async () => (await api.adminPool.query<{ status: string; error: string }>('select status, error from ai.agent_runs where id = $1', [runId])).rows[0]!,
      (r) => r.status !== 'running', { tries: 300 });
    assert.deepEqual(ended, { status: 'failed', error: 'The run cannot resume: its agent was deleted' });
    // Its last event is stored just after its record ends (one statement later).
    const last = await eventually('its last event', async () => (await api.adminPool.query<{ event: Event }>('select event from ai.run_events where agent_run_id = $1 order by seq desc limit 1', [runId])).rows[0]?.event,
      (e) => e !== undefined);
    assert.equal(last!.error_code, 'RUN_NOT_RESUMABLE');
  });
});
