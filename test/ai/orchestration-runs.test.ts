// Orchestration runs over HTTP against a scripted OpenAI-compatible server:
// the coordinator gets one delegate tool per agent entity (described by its
// role_description), members run their own loop and tools on the task,
// delegation events stream, non-agent entities are skipped, neither the
// orchestration's hooks nor the members' fire, DELEGATE_MAX_STEPS caps a
// member, a failing member is an error the coordinator reads, and the run
// record carries delegations and usage from the ledger.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { sseEvents } from '../helpers/sse.ts';

type Usage = { tokens_in: number; tokens_out: number; cost_usd: number };
type Delegation = { id: string; agent_id: string; agent_name: string; task: string; status: string; output: string | null; error: string | null; stop_reason: string | null; steps: number; usage: Usage };
type RunAnswer = { session_id: string; run_id: string; status: string; output: string; stop_reason: string; steps: number; delegations: Delegation[]; usage: Usage };
type Event = Record<string, unknown> & { type: string };

describe('orchestration runs', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let hookServer: http.Server;
  let hookBase: string;
  const hookCalls: string[] = [];
  let ann: string;
  let bob: string;
  let orchestration: string;
  let researcher: string;
  let writer: string;
  const { api, json, post, put } = aiApi(() => p);

  before(async () => {
    vendor = await startVendorServer();
    hookServer = http.createServer((req, res) => {
      hookCalls.push(req.url!);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"decision": "deny", "reason": "hooks must not fire here"}');
    });
    await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
    hookBase = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}`;
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-orch-runs@example.com')).access_token;
    bob = (await signUp(p, 'bob-orch-runs@example.com')).access_token;

    const agent = async (body: Record<string, unknown>) => (await json<{ id: string }>(await post(ann, '/agents', body), 201)).id;
    researcher = await agent({ name: 'researcher', model: 'gpt-4.1-mini', system_prompt: 'You research.' });
    writer = await agent({ name: 'writer', model: 'gpt-4.1-mini', system_prompt: 'You write.' });
    await json(await post(ann, `/agents/${researcher}/tools`, { tool_name: 'code_execute' }), 201);
    for (const event of ['OnRunStart', 'PreToolUse', 'PostToolUse', 'PreResponse', 'OnRunComplete']) {
      await json(await post(ann, `/agents/${researcher}/hooks`, { event, type: 'http', config: { url: `${hookBase}/member/${event}` } }), 201);
    }
    orchestration = (await json<{ id: string }>(await post(ann, '/orchestrations', { name: 'newsroom', model: 'gpt-4.1' }), 201)).id;
    await json(await post(ann, `/orchestrations/${orchestration}/entities`, { entity_type: 'agent', entity_ref_id: writer, role_description: 'Writes prose', position: 2 }), 201);
    await json(await post(ann, `/orchestrations/${orchestration}/entities`, { entity_type: 'agent', entity_ref_id: researcher, role_description: 'Finds facts', position: 1 }), 201);
    await json(await post(ann, `/orchestrations/${orchestration}/entities`, { entity_type: 'workflow', entity_ref_id: 'wf-1', position: 3 }), 201);
    await json(await post(ann, `/orchestrations/${orchestration}/hooks`, { event: 'OnRunStart', type: 'http', config: { url: `${hookBase}/orchestration` } }), 201);
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
    hookServer.close();
  });

  it('streams delegations: the coordinator hands tasks to members by role, members use their tools, no hook fires', async () => {
    vendor.reset();
    hookCalls.length = 0;
    vendor.script(
      { toolCalls: [{ id: 'c1', name: 'delegate_to_researcher', arguments: { task: 'find the answer' } }] },
      { toolCalls: [{ id: 'r1', name: 'code_execute', arguments: { code: 'return 6 * 7' } }] },
      { text: 'The answer is 42.' },
      { toolCalls: [{ id: 'c2', name: 'delegate_to_writer', arguments: { task: 'write one line about 42' } }] },
      { text: 'Forty-two, the answer.' },
      { text: 'Done: Forty-two, the answer.' },
    );
    const res = await post(ann, `/orchestrations/${orchestration}/run/stream`, { message: 'What is the answer? Write it up.' });
    assert.equal(res.status, 200);
    const events = await sseEvents<Event>(res);
    const kinds = events.filter((e) => !['content_delta', 'delegation_delta'].includes(e.type)).map((e) => (e.delegation_id && e.type.startsWith('tool') ? `member ${e.type}` : e.type));
    assert.deepEqual(kinds, [
      'start', 'entity_skipped',
      'tool_call', 'delegation_started', 'member tool_call', 'member tool_result', 'delegation_completed', 'tool_result',
      'tool_call', 'delegation_started', 'delegation_completed', 'tool_result',
      'usage', 'complete',
    ]);
    const skipped = events.find((e) => e.type === 'entity_skipped')!;
    assert.equal(skipped.entity_type, 'workflow');
    const [first, second] = events.filter((e) => e.type === 'delegation_completed');
    assert.deepEqual([first!.agent_name, first!.output, first!.ok, first!.steps], ['researcher', 'The answer is 42.', true, 2]);
    assert.deepEqual([second!.agent_name, second!.output], ['writer', 'Forty-two, the answer.']);
    assert.equal(events.find((e) => e.type === 'delegation_started')!.task, 'find the answer');
    assert.equal(JSON.parse(events.find((e) => e.type === 'tool_result' && e.delegation_id)!.result as string).result, 42, 'the member ran its own tool');
    assert.equal(events.filter((e) => e.type === 'delegation_delta').map((e) => e.delta).join(''), 'The answer is 42.Forty-two, the answer.');
    assert.equal(events.at(-1)!.output, 'Done: Forty-two, the answer.');
    assert.deepEqual(hookCalls, [], 'neither the orchestration’s hooks nor the members’ fired');

    const [coordinator, member] = vendor.chats();
    assert.equal(coordinator!.body.model, 'gpt-4.1');
    assert.match(coordinator!.body.messages[0].content, /newsroom/);
    assert.deepEqual(coordinator!.body.tools.map((t: { function: { name: string; description: string } }) => [t.function.name, t.function.description]),
      [['delegate_to_researcher', 'Finds facts'], ['delegate_to_writer', 'Writes prose']], 'one delegate tool per agent entity, in position order');
    assert.deepEqual(member!.body.messages, [{ role: 'system', content: 'You research.' }, { role: 'user', content: 'find the answer' }], 'the member gets its prompt and the task alone');
    assert.deepEqual(member!.body.tools.map((t: { function: { name: string } }) => t.function.name), ['code_execute']);
    const back = vendor.chats()[3]!.body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === 'c1');
    assert.equal(back.content, 'The answer is 42.', 'the member’s answer goes back to the coordinator');

    const run = await json<{ status: string; output: string; usage: Usage; delegations: Array<Delegation & { tool_calls: Array<{ name: string }> }> }>(await api(ann, `/orchestrations/runs/${events[0]!.run_id}`), 200);
    assert.deepEqual([run.status, run.output], ['completed', 'Done: Forty-two, the answer.']);
    assert.deepEqual(run.delegations.map((d) => [d.agent_name, d.task, d.status, d.steps, d.usage.tokens_in, d.usage.tokens_out]),
      [['researcher', 'find the answer', 'completed', 2, 24, 10], ['writer', 'write one line about 42', 'completed', 1, 12, 5]]);
    assert.deepEqual(run.delegations[0]!.tool_calls.map((c) => c.name), ['code_execute']);
    assert.deepEqual([run.usage.tokens_in, run.usage.tokens_out], [72, 30], 'six model calls in all');
    const { rows } = await p.adminPool.query<{ feature: string; step: string }>('select feature, step from ai.usage where run_id = $1 order by id', [events[0]!.run_id]);
    const d1 = run.delegations[0]!.id;
    assert.deepEqual(rows.map((r) => r.step), ['step-1', `${d1}/step-1`, `${d1}/step-2`, 'step-2', `${run.delegations[1]!.id}/step-1`, 'step-3']);
    assert.ok(rows.every((r) => r.feature === 'orchestration'));
    assert.equal((await api(bob, `/orchestrations/runs/${events[0]!.run_id}`)).status, 404, 'a run is private to the user who started it');
  });

  it('caps members at DELEGATE_MAX_STEPS; a failing member is an error the coordinator reads; sessions continue', async () => {
    await json(await put(p.keys.serviceRoleKey, '/settings', { settings: { DELEGATE_MAX_STEPS: '1' } }), 200);
    const broken = (await json<{ id: string }>(await post(ann, '/agents', { name: 'broken', model: 'claude-sonnet-4-5' }), 201)).id;
    const team = (await json<{ id: string }>(await post(ann, '/orchestrations', { name: 'small team', system_prompt: 'Coordinate.' }), 201)).id;
    await json(await post(ann, `/orchestrations/${team}/entities`, { entity_type: 'agent', entity_ref_id: researcher }), 201);
    await json(await post(ann, `/orchestrations/${team}/entities`, { entity_type: 'agent', entity_ref_id: broken, role: 'Never works' }), 201);
    vendor.reset();
    vendor.script(
      { toolCalls: [{ id: 'a', name: 'delegate_to_researcher', arguments: { task: 'loop' } }, { id: 'b', name: 'delegate_to_broken', arguments: { task: 'anything' } }] },
      { toolCalls: [{ id: 'r', name: 'code_execute', arguments: { code: 'return 1' } }] },
      { text: 'Partly done.' },
    );
    const run = await json<RunAnswer>(await post(ann, `/orchestrations/${team}/run`, { message: 'go' }), 200);
    assert.deepEqual(run.delegations.map((d) => [d.agent_name, d.status, d.stop_reason, d.steps]), [['researcher', 'completed', 'max_steps', 1], ['broken', 'failed', null, 1]]);
    assert.match(run.delegations[1]!.error!, /provider_key_decrypt_failed/);
    const tools = vendor.chats()[2]!.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content);
    assert.match(tools[1], /^Error: broken could not do it: provider_key_decrypt_failed/);
    assert.deepEqual([run.status, run.output], ['completed', 'Partly done.']);
    assert.equal(vendor.chats()[0]!.body.messages[0].content, 'Coordinate.');
    assert.equal(vendor.chats()[0]!.body.tools[1].function.description, 'Never works', 'role is an alias of role_description');

    vendor.script({ text: 'As I said.' });
    const again = await json<RunAnswer>(await post(ann, `/orchestrations/${team}/run`, { message: 'and now?', session_id: run.session_id }), 200);
    assert.equal(again.session_id, run.session_id);
    assert.deepEqual(vendor.chats().at(-1)!.body.messages.map((m: { role: string }) => m.role), ['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'user'], 'the coordinator’s conversation continues');
    // The coordinator's answer went in with its model call's ledger row; the run's end with its last events (sql/0080, sql/0081).
    const { rows: [together] } = await p.adminPool.query<{ charged: boolean; ended: boolean }>(
      `select exists (select 1 from ai.usage u join ai.session_messages m on m.orchestration_run_id = r.id and m.role = 'assistant' and m.xmin = u.xmin where u.run_id = r.id::text) as charged,
              (select bool_and(e.xmin = r.xmin) from ai.run_events e where e.orchestration_run_id = r.id and e.event ->> 'type' in ('usage', 'complete')) as ended
         from ai.orchestration_runs r where r.id = $1 and r.status = 'completed'`, [again.run_id]);
    assert.deepEqual(together, { charged: true, ended: true });
    // The session answers its orchestration runs and names them on its messages, as an agent's session does.
    const runs = await json<Array<{ id: string; agent_id: string | null; status: string; output: string }>>(await api(ann, `/sessions/${run.session_id}/runs`), 200);
    assert.deepEqual(runs.map((r) => [r.id, r.agent_id, r.status, r.output]), [[run.run_id, null, 'completed', 'Partly done.'], [again.run_id, null, 'completed', 'As I said.']]);
    const messages = await json<Array<{ run_id: string; role: string }>>(await api(ann, `/sessions/${run.session_id}/messages`), 200);
    assert.deepEqual([...new Set(messages.map((m) => m.run_id))], [run.run_id, again.run_id]);
    assert.equal((await api(ann, `/sessions/${run.session_id}/runs/${again.run_id}/retrieved-context`)).status, 200);
    assert.equal((await post(bob, `/orchestrations/${team}/run`, { message: 'x' })).status, 404);
    assert.equal((await post(ann, `/orchestrations/${team}/run`, {})).status, 400);
    assert.equal((await post(ann, `/orchestrations/${team}/run/stream`, { message: 'x', session_id: '00000000-0000-0000-0000-000000000000' })).status, 404);
    await json(await put(p.keys.serviceRoleKey, '/settings', { settings: { DELEGATE_MAX_STEPS: '10' } }), 200);
  });
});
