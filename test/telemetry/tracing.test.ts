// Traces (issue 31), turned on by the standard variables alone and read by a
// small OTLP/HTTP receiver in this process (JSON here; protobuf, the
// default, in a child process below). A REST read yields a SERVER span with
// the stable HTTP attributes and its SQL spans beneath; an agent run with a
// tool call yields one trace from the request down to the model's `chat`
// spans (GenAI attributes, tokens), the `execute_tool` span and their SQL;
// a webhook run's trace reaches into its blocks; an async run's worker joins
// the request's trace; no span carries a key, a token, a password or (by
// default) a message.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { GOOD_KEY, startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp.ts';
import { startPlatformProcess } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

describe('traces over OTLP/HTTP', () => {
  let receiver: OtlpReceiver;
  let vendor: VendorServer;
  let p: TestPlatform;
  let tool: http.Server;
  const toolHeaders: http.IncomingHttpHeaders[] = [];
  const { json, post } = aiApi(() => p);
  let ann: { access_token: string };
  let sourceId = '';

  /** The spans of one trace, once `done` holds for them (spans arrive in batches). */
  const traceOf = (traceId: string, done: (spans: ReceivedSpan[]) => boolean) =>
    eventually('the trace to arrive', async () => receiver.spans.filter((s) => s.traceId === traceId), done, { tries: 200, explain: async () => JSON.stringify(receiver.spans.filter((s) => s.traceId === traceId).map((s) => s.name)) });
  const serverSpan = (route: string, method = 'POST') =>
    eventually(`the ${method} ${route} span`, async () => receiver.spans.filter((s) => s.kind === SERVER && s.attributes['http.route'] === route && s.attributes['http.request.method'] === method), (l) => l.length > 0, { tries: 200 });
  const beneath = (spans: ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] => {
    const out: ReceivedSpan[] = [];
    const walk = (id: string) => spans.filter((s) => s.parentSpanId === id).forEach((s) => { out.push(s); walk(s.spanId); });
    walk(root.spanId);
    return out;
  };

  before(async () => {
    receiver = await startOtlpReceiver();
    // The standard variables, as an operator sets them (this file runs in a process of its own).
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'pgbase-test', OTEL_BSP_SCHEDULE_DELAY: '100' });
    tool = http.createServer((req, res) => {
      toolHeaders.push(req.headers);
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"recorded":true}'));
    });
    await new Promise<void>((r) => tool.listen(0, '127.0.0.1', r));
    vendor = await startVendorServer();
    // Small pools, so concurrent requests wait for connections (pool hand-offs must keep each request's trace).
    p = await startTestPlatform({ ...vendor.env, LOG_LEVEL: 'warn', AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1', DB_POOL_MAX: '2', WORKER_CONCURRENCY: '1', AI_APPROVAL_PARK_AFTER_MS: '300' });
    await storeOpenAiKey(p);
    ann = await signUp(p, 'ann-traces@example.com');
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
    await receiver.close();
    tool.close();
  });

  it('a REST read: a SERVER span with the stable HTTP attributes, an incoming traceparent honoured, its SQL beneath by statement', async () => {
    await p.adminPool.query('create table public.traced (id int primary key, secret_word text); grant select on public.traced to anon; insert into public.traced values (1, \'swordfish\')');
    await p.adminPool.query(`notify pgrst, 'reload schema'`);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const read = () => fetch(`${p.url}/rest/v1/traced?id=eq.1`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}`, traceparent: `00-${traceId}-${parent}-01` } });
    let res = await read();
    for (let i = 0; i < 50 && res.status === 404; i++) res = await new Promise((r) => setTimeout(r, 100)).then(read);
    assert.equal(res.status, 200, await res.clone().text());
    const spans = await traceOf(traceId, (l) => l.some((s) => s.kind === SERVER && s.attributes['http.response.status_code'] === 200));
    const request = spans.find((s) => s.kind === SERVER && s.attributes['http.response.status_code'] === 200)!;
    assert.equal(request.parentSpanId, parent, 'the caller\'s traceparent is the parent');
    assert.deepEqual(
      { name: request.name, method: request.attributes['http.request.method'], path: request.attributes['url.path'], scheme: request.attributes['url.scheme'], route: request.attributes['http.route'], surface: request.attributes['pgbase.surface'] },
      { name: 'GET /rest/v1/:table', method: 'GET', path: '/rest/v1/traced', scheme: 'http', route: '/rest/v1/:table', surface: 'rest' });
    assert.equal(request.resource['service.name'], 'pgbase-test', 'OTEL_SERVICE_NAME names the service');
    const sql = beneath(spans, request).filter((s) => s.attributes['db.system.name'] === 'postgresql');
    assert.ok(sql.length >= 1, 'the SQL round trip is a span beneath the request');
    assert.ok(sql.every((s) => s.kind === CLIENT && typeof s.attributes['db.query.summary'] === 'string' && s.name === s.attributes['db.query.summary']));
    assert.ok(sql.some((s) => /^select /.test(s.name)), JSON.stringify(sql.map((s) => s.name)));
    const text = JSON.stringify(spans);
    assert.ok(!text.includes('swordfish') && !text.includes('eq.1'), 'no values, no query string');
  });

  it('a statement the database refuses: its SQL span is an error named by the SQLSTATE, never the refused value', async () => {
    const traceId = '5cf92f3577b34da6a3ce929d0e0e4737';
    const res = await fetch(`${p.url}/rest/v1/traced?id=eq.not-a-number-swordfish`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}`, traceparent: `00-${traceId}-00f067aa0ba902b8-01` } });
    assert.equal(res.status, 400, await res.clone().text());
    assert.equal(((await res.json()) as { code?: string }).code, '22P02');
    const spans = await traceOf(traceId, (l) => l.some((s) => s.attributes['error.type'] === '22P02'));
    const failed = spans.find((s) => s.attributes['error.type'] === '22P02')!;
    assert.equal(failed.kind, CLIENT);
    assert.match(failed.name, /^select /);
    assert.deepEqual(failed.status, { code: 2, message: '22P02' });
    assert.ok(!JSON.stringify(spans).includes('swordfish'), 'the refused value is in no span');
  });

  it('requests waiting for a pooled connection keep their own SQL spans: each sign-in\'s trace holds the same statements', async () => {
    const email = 'pool-waits@example.com';
    await signUp(p, email);
    const ids = Array.from({ length: 12 }, (_, i) => `${(i + 1).toString(16).padStart(2, '0')}${'a'.repeat(30)}`);
    const signIn = (traceId: string) => fetch(`${p.url}/auth/v1/token?grant_type=password`, {
      method: 'POST', headers: { apikey: p.keys.anonKey, 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: JSON.stringify({ email, password: 'a-good-password' }),
    });
    const answers = await Promise.all(ids.map(signIn));
    assert.deepEqual(answers.map((r) => r.status), ids.map(() => 200));
    const statements = async (traceId: string) => (await traceOf(traceId, (l) => l.some((s) => s.kind === SERVER)))
      .filter((s) => s.attributes['db.system.name'] === 'postgresql').map((s) => s.name).sort().join(',');
    const first = await statements(ids[0]!);
    assert.ok(first.length > 0, 'a sign-in makes SQL spans');
    for (const id of ids.slice(1)) assert.equal(await statements(id), first, `trace ${id.slice(0, 2)}`);
  });

  it('an agent run with a tool call: one trace from the request to the chat and execute_tool spans, the tool and the model told the trace', async () => {
    const agentId = (await json<{ id: string }>(await post(ann.access_token, '/agents', { name: 'tracer', model: 'gpt-4.1-mini' }), 201)).id;
    const endpoint = `http://127.0.0.1:${(tool.address() as AddressInfo).port}/record`;
    await json(await post(ann.access_token, '/tools', { name: 'record', description: 'Record a number', type: 'http', input_schema: { type: 'object' }, config: { endpoint, headers: { 'x-secret-header': 'tool-header-secret-value' } } }), 201);
    await json(await post(ann.access_token, `/agents/${agentId}/tools`, { tool_name: 'record' }), 201);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'c1', name: 'record', arguments: { n: 7 } }] }, { text: 'Recorded seven.' });
    toolHeaders.length = 0;
    const body = await json<{ run_id: string; session_id: string; output: string }>(await post(ann.access_token, `/agents/${agentId}/run`, { message: 'Please record the number seven' }), 200);
    assert.equal(body.output, 'Recorded seven.');

    const [request] = await serverSpan('/api/agents/:id/run');
    const spans = await traceOf(request!.traceId, (l) => l.filter((s) => s.name === 'chat gpt-4.1-mini').length === 2 && l.some((s) => s.name === 'execute_tool record') && l.some((s) => s.name === 'invoke_agent'));
    const run = spans.find((s) => s.name === 'invoke_agent')!;
    assert.equal(run.parentSpanId, request!.spanId, 'the run span is the request\'s child');
    assert.deepEqual([run.attributes['pgbase.run_id'], run.attributes['pgbase.session_id'], run.attributes['gen_ai.agent.id'], run.attributes['gen_ai.conversation.id']], [body.run_id, body.session_id, agentId, body.session_id]);
    const under = beneath(spans, run);
    const chats = under.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    assert.equal(chats.length, 2);
    for (const chat of chats) {
      assert.equal(chat.kind, CLIENT);
      assert.equal(chat.attributes['gen_ai.provider.name'], 'openai');
      assert.equal(chat.attributes['gen_ai.request.model'], 'gpt-4.1-mini');
      assert.equal(typeof chat.attributes['gen_ai.response.model'], 'string');
      assert.ok(Number(chat.attributes['gen_ai.usage.input_tokens']) > 0 && Number(chat.attributes['gen_ai.usage.output_tokens']) > 0, JSON.stringify(chat.attributes));
      assert.ok(Array.isArray(chat.attributes['gen_ai.response.finish_reasons']));
    }
    assert.deepEqual(chats.map((c) => c.attributes['gen_ai.response.finish_reasons']), [['tool_calls'], ['stop']]);
    const toolSpan = under.find((s) => s.name === 'execute_tool record')!;
    assert.deepEqual([toolSpan.attributes['gen_ai.operation.name'], toolSpan.attributes['gen_ai.tool.name'], toolSpan.attributes['gen_ai.tool.call.id']], ['execute_tool', 'record', 'c1']);
    const outbound = beneath(spans, toolSpan).find((s) => s.kind === CLIENT && s.attributes['http.request.method'] === 'POST')!;
    assert.equal(outbound.attributes['http.response.status_code'], 200);
    assert.ok(under.some((s) => s.attributes['db.system.name'] === 'postgresql' && s.name === 'select ai.begin_run'), 'the run\'s SQL beneath it');
    assert.ok(beneath(spans, toolSpan).some((s) => s.attributes['db.system.name'] === 'postgresql'), 'the tool\'s stored result beneath its span');
    assert.equal(under.filter((s) => /^step /.test(s.name)).length, 2, 'a span per step');
    // The receivers were told the trace: the tool (its HTTP span is the parent) and the model vendor.
    assert.equal(toolHeaders[0]!.traceparent, `00-${request!.traceId}-${outbound.spanId}-01`);
    assert.ok(vendor.chats().every((c) => String(c.headers.traceparent).startsWith(`00-${request!.traceId}-`)));
    // Nothing secret, and no message content while capture is off.
    const text = JSON.stringify(spans);
    for (const secret of [ann.access_token, p.keys.anonKey, p.keys.serviceRoleKey, p.keys.jwtSecret, GOOD_KEY, 'tool-header-secret-value', 'a-good-password', new URL(p.adminUrl).password].filter(Boolean)) {
      assert.ok(!text.includes(secret), `a secret in the trace: ${secret.slice(0, 8)}…`);
    }
    assert.ok(!text.includes('record the number seven') && !text.includes('Recorded seven') && !text.includes('gen_ai.input.messages'), 'no message content by default');
  });

  it('a failed model call is an error span that names the failure, never the vendor\'s message (which may quote a key)', async () => {
    const agentId = (await json<{ id: string }>(await post(ann.access_token, '/agents', { name: 'refused', model: 'gpt-4.1-mini' }), 201)).id;
    vendor.reset();
    vendor.script({ status: 401, message: `Incorrect API key provided: ${GOOD_KEY}` });
    const res = await post(ann.access_token, `/agents/${agentId}/run`, { message: 'hello' });
    assert.ok(res.status >= 400, await res.clone().text());
    const [request] = await eventually('the failed run\'s request span', async () => receiver.spans.filter((s) => s.kind === SERVER && s.attributes['http.route'] === '/api/agents/:id/run' && Number(s.attributes['http.response.status_code']) >= 400), (l) => l.length > 0, { tries: 200, explain: async () => JSON.stringify(receiver.spans.filter((s) => s.kind === SERVER).slice(-5).map((s) => [s.name, s.attributes])) });
    const spans = await traceOf(request!.traceId, (l) => l.some((s) => s.name === 'chat gpt-4.1-mini'));
    const chat = spans.find((s) => s.name === 'chat gpt-4.1-mini')!;
    assert.equal(chat.status.code, 2, 'an error span');
    assert.equal(typeof chat.attributes['error.type'], 'string');
    assert.deepEqual(spans.filter((s) => JSON.stringify(s).includes(GOOD_KEY)), [], 'the key the vendor quoted is in no span');
  });

  it('a webhook run: its trace reaches from the request into its blocks', async () => {
    const service = { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' };
    const w = (await (await fetch(`${p.url}/api/workflows`, { method: 'POST', headers: service, body: JSON.stringify({ name: 'traced hook' }) })).json()) as { id: string };
    const saved = (await (await fetch(`${p.url}/api/workflows/${w.id}/graph`, { method: 'PUT', headers: service, body: JSON.stringify({
      blocks: [{ id: 'hook', type: 'webhook' }, { id: 'out', type: 'response', config: { output: { msg: '<variables.msg>' } } }],
      edges: [{ source: 'hook', target: 'out' }],
    }) })).json()) as { blocks: Array<{ config: { webhook_id: string; webhook_secret: string } }> };
    await fetch(`${p.url}/api/workflows/${w.id}/deploy`, { method: 'POST', headers: service });
    const { webhook_id: hookId, webhook_secret: secret } = saved.blocks[0]!.config;
    const res = await fetch(`${p.url}/api/webhooks/${hookId}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: JSON.stringify({ msg: 'hi' }) });
    const run = await json<{ execution_id: string }>(res, 200);
    const [request] = await serverSpan('/api/webhooks/:webhookId');
    const spans = await traceOf(request!.traceId, (l) => l.some((s) => s.name === 'block out'));
    const workflow = spans.find((s) => s.name === 'workflow webhook')!;
    assert.equal(workflow.parentSpanId, request!.spanId);
    assert.deepEqual([workflow.attributes['pgbase.execution_id'], workflow.attributes['pgbase.workflow_id']], [run.execution_id, w.id]);
    const blocks = beneath(spans, workflow).filter((s) => s.name.startsWith('block '));
    assert.deepEqual(blocks.map((b) => [b.attributes['pgbase.block.id'], b.attributes['pgbase.block.type']]).sort(), [['hook', 'webhook'], ['out', 'response']]);
    assert.ok(!JSON.stringify(spans).includes(secret), 'the webhook secret is in no span');
  });

  it('an async run: the worker that runs it joins the trace of the request that queued it', async () => {
    const service = { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' };
    const w = (await (await fetch(`${p.url}/api/workflows`, { method: 'POST', headers: service, body: JSON.stringify({ name: 'traced async' }) })).json()) as { id: string };
    await fetch(`${p.url}/api/workflows/${w.id}/graph`, { method: 'PUT', headers: service, body: JSON.stringify({
      blocks: [{ id: 'start', type: 'starter' }, { id: 'out', type: 'response', config: { output: 'done' } }], edges: [{ source: 'start', target: 'out' }],
    }) });
    const queued = await json<{ execution_id: string }>(await fetch(`${p.url}/api/workflows/${w.id}/execute`, { method: 'POST', headers: service, body: JSON.stringify({ mode: 'async' }) }), 202);
    const [request] = await serverSpan('/api/workflows/:id/execute');
    const spans = await traceOf(request!.traceId, (l) => l.some((s) => s.name === 'workflow manual' && s.attributes['pgbase.execution_id'] === queued.execution_id) && l.some((s) => s.name === 'block out'));
    const workflow = spans.find((s) => s.name === 'workflow manual')!;
    assert.equal(workflow.parentSpanId, request!.spanId, 'the run, carried by the worker\'s job, continues the request\'s trace');
    // The job's own span ends after the run (and so may come in a later batch).
    await eventually('the job\'s span', async () => receiver.spans.some((s) => s.kind === CONSUMER && s.name === 'job ai_workflow_run'), (seen) => seen, { tries: 200 });
  });

  it('a run that parks on an approval and is resumed by a job stays in the trace of the request that started it', async () => {
    const agentId = (await json<{ id: string }>(await post(ann.access_token, '/agents', { name: 'patient', model: 'gpt-4.1-mini' }), 201)).id;
    await json(await post(ann.access_token, `/agents/${agentId}/tools`, { tool_name: 'record' }), 201);
    await json(await post(ann.access_token, `/agents/${agentId}/hooks`, { event: 'PreToolUse', type: 'approval', config: { message: 'May I?', timeout: 3600 } }), 201);
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'p1', name: 'record', arguments: { n: 1 } }] }, { text: 'Recorded after waiting.' });
    const answer = post(ann.access_token, `/agents/${agentId}/run`, { message: 'Record once approved' });
    const approval = await eventually('a parked approval', async () => (await p.adminPool.query<{ id: string; run_id: string }>(
      `select a.id, a.run_id from ai.agent_run_approvals a join ai.agent_runs r on r.id = a.run_id where r.agent_id = $1 and a.status = 'pending' and r.runner is null`, [agentId])).rows[0], (r) => r !== undefined, { tries: 300 }).then((r) => r!);
    await json(await post(ann.access_token, `/agents/${agentId}/runs/${approval.run_id}/approvals/${approval.id}`, { decision: 'approve' }), 200);
    assert.equal((await json<{ output: string }>(await answer, 200)).output, 'Recorded after waiting.');
    const runs = await eventually('both halves of the run', async () => receiver.spans.filter((s) => s.name === 'invoke_agent' && s.attributes['pgbase.run_id'] === approval.run_id), (l) => l.length === 2, { tries: 200 });
    assert.equal(runs[0]!.traceId, runs[1]!.traceId, 'the resumed half is in the same trace');
    // Spans arrive in batches: wait for the request's own (it ends last, with the answer).
    const spans = await traceOf(runs[0]!.traceId, (l) => l.some((s) => s.kind === SERVER && s.attributes['http.route'] === '/api/agents/:id/run'));
    const request = spans.find((s) => s.kind === SERVER)!;
    assert.equal(beneath(spans, request).filter((s) => s.name === 'invoke_agent').length, 2, 'both halves beneath the request that started the run');
    assert.equal(runs.filter((r) => r.attributes['pgbase.outcome'] === 'parked').length, 1, 'the first half ended parked, not failed');
  });

  it('an upload\'s extraction, run by a job, joins the upload\'s trace: extract > parse, store derivatives', async () => {
    const form = new FormData();
    form.append('file', new Blob(['Traced text.\n\nA second paragraph.']), 'traced.txt');
    const made = await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: { apikey: p.keys.anonKey, authorization: `Bearer ${ann.access_token}` }, body: form });
    const source = await json<{ id: string }>(made, 201);
    sourceId = source.id;
    const [request] = await serverSpan('/api/sources/upload');
    const spans = await traceOf(request!.traceId, (l) => l.some((s) => s.name === 'extract' && s.attributes['pgbase.extraction.status'] === 'extracted'));
    const extract = spans.find((s) => s.name === 'extract')!;
    assert.equal(extract.attributes['pgbase.source_id'], source.id);
    assert.equal(extract.parentSpanId, request!.spanId, 'the job\'s extraction continues the upload\'s trace');
    assert.deepEqual(beneath(spans, extract).filter((s) => s.attributes['db.system.name'] === undefined).map((s) => s.name).sort(), ['parse', 'store derivatives']);
  });

  it('an indexing and a search: index > chunk; retrieval with its method, candidates and timings', async () => {
    const kb = await json<{ id: string }>(await post(ann.access_token, '/knowledge-bases', { name: 'traced kb', indexing_config: { embedding_model: null }, retrieval_config: { method: 'full_text' } }), 201);
    await json(await post(ann.access_token, `/knowledge-bases/${kb.id}/sources`, { source_id: sourceId }), 202);
    const index = await eventually('the index span', async () => receiver.spans.find((s) => s.name === 'index' && s.attributes['pgbase.indexing.status'] === 'indexed'), (x) => x !== undefined, { tries: 300 });
    const indexing = receiver.spans.filter((s) => s.traceId === index!.traceId);
    assert.deepEqual(beneath(indexing, index!).filter((s) => s.attributes['db.system.name'] === undefined).map((s) => s.name), ['chunk']);
    assert.ok(Number(index!.attributes['pgbase.indexing.items']) >= 1);
    await json(await post(ann.access_token, `/knowledge-bases/${kb.id}/build-bm25`, {}), 202);
    await eventually('the BM25 build', async () => (await p.adminPool.query<{ s: string }>('select bm25_status as s from ai.knowledge_bases where id = $1', [kb.id])).rows[0]!.s, (st) => st === 'ready', { tries: 300 });
    const found = await json<{ results: Array<{ _type?: string }> }>(await post(ann.access_token, `/knowledge-bases/${kb.id}/search`, { query: 'traced paragraph' }), 200);
    const hits = found.results.filter((r) => r._type !== 'retrieval_diagnostics');
    assert.ok(hits.length >= 1);
    const [request] = await serverSpan('/api/knowledge-bases/:id/search');
    const spans = await traceOf(request!.traceId, (l) => l.some((s) => s.name === 'retrieval'));
    const retrieval = spans.find((s) => s.name === 'retrieval')!;
    assert.deepEqual([retrieval.attributes['gen_ai.data_source.id'], retrieval.attributes['pgbase.retrieval.method'], retrieval.attributes['pgbase.retrieval.returned']], [kb.id, 'full_text', hits.length]);
    assert.ok(Number(retrieval.attributes['pgbase.retrieval.candidates']) >= 1 && typeof retrieval.attributes['pgbase.retrieval.ms'] === 'number');
    assert.ok('full_text' in JSON.parse(String(retrieval.attributes['pgbase.retrieval.methods'])), 'each method\'s figures');
    assert.ok(!JSON.stringify(spans).includes('traced paragraph'), 'no query text by default');
  });
});

describe('traces over OTLP/HTTP, protobuf by default', () => {
  it('sends application/x-protobuf to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces when no protocol is set', async () => {
    const receiver = await startOtlpReceiver();
    const beside = await startTestPlatform({ WORKER: 'off', LOG_LEVEL: 'warn' });
    const child = await startPlatformProcess(beside, { WORKER: 'off', LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: '', OTEL_BSP_SCHEDULE_DELAY: '100' });
    try {
      assert.equal((await fetch(`${child.url}/auth/v1/settings?apikey=${beside.keys.anonKey}`)).status, 200);
      // Decoded as a collector would: the request's SERVER span with its attributes, its service, nothing as JSON.
      const span = await eventually('a protobuf export of the request', async () => receiver.spans.find((s) => s.name === 'GET /auth/v1/settings'), (s) => s !== undefined, { tries: 200 });
      assert.equal(span!.protocol, 'protobuf');
      assert.equal(span!.kind, SERVER);
      assert.equal(span!.attributes['http.response.status_code'], 200);
      assert.equal(span!.attributes['http.route'], '/auth/v1/settings');
      assert.equal(span!.resource['service.name'], 'pgbase-test');
      assert.match(span!.traceId, /^[0-9a-f]{32}$/);
      assert.ok(receiver.raw.every((r) => r.contentType === 'application/x-protobuf'), 'nothing was sent as JSON');
    } finally {
      await child.kill();
      await stopTestPlatform(beside);
      await receiver.close();
    }
  });
});
