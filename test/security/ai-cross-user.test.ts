// The AI surface's access model across two users, on every resource
// (containment: "keep what held as tests"). Ann owns one of each: workflow
// (with a run), agent (with a tool, a hook, an MCP server, a knowledge
// base), orchestration, custom tool, source, knowledge base, session,
// context handler. Bob, signed in, probes every route on each: every answer
// is 404 (hidden) or 403 (visible but not his), never 2xx, and Ann's
// resources are unchanged afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('AI resources across two users', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let bob: string;
  const ids: Record<string, string> = {};
  const { api, post, put, json, headers } = aiApi(() => p);

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-access@example.com')).access_token;
    bob = (await signUp(p, 'bob-access@example.com')).access_token;
    ids.workflow = (await json<{ id: string }>(await post(ann, '/workflows', { name: 'ann flow' }), 201)).id;
    await json(await put(ann, `/workflows/${ids.workflow}/graph`, { blocks: [{ id: 'start', type: 'starter' }, { id: 'out', type: 'response', config: { output: 'ok' } }], edges: [{ source: 'start', target: 'out' }] }), 200);
    ids.execution = (await json<{ execution_id: string }>(await post(ann, `/workflows/${ids.workflow}/execute`, {}), 200)).execution_id;
    ids.agent = (await json<{ id: string }>(await post(ann, '/agents', { name: 'ann agent', model: 'gpt-4.1-mini' }), 201)).id;
    ids.tool = (await json<{ id: string }>(await post(ann, '/tools', { name: 'ann_tool', description: 'd', type: 'http', input_schema: { type: 'object' }, config: { endpoint: 'https://example.com', headers: { authorization: 'Bearer ann-secret-0123456789' } } }), 201)).id;
    ids.assignment = (await json<{ id: string }>(await post(ann, `/agents/${ids.agent}/tools`, { tool_name: 'ann_tool' }), 201)).id;
    ids.hook = (await json<{ id: string }>(await post(ann, `/agents/${ids.agent}/hooks`, { event: 'OnRunStart', type: 'rule', config: { condition: 'false' } }), 201)).id;
    ids.mcp = (await json<{ id: string }>(await post(ann, `/agents/${ids.agent}/mcp-servers`, { name: 'ann-mcp', url: 'https://mcp.example.com/mcp', enabled: false }), 201)).id;
    ids.orchestration = (await json<{ id: string }>(await post(ann, '/orchestrations', { name: 'ann team', strategy: 'sequential' }), 201)).id;
    ids.kb = (await json<{ id: string }>(await post(ann, '/knowledge-bases', { name: 'ann kb', retrieval_config: { method: 'full_text' } }), 201)).id;
    const form = new FormData();
    form.append('file', new Blob(['Ann\'s private notes.']), 'notes.txt');
    const { 'content-type': _json, ...rest } = headers(ann);
    ids.source = (await json<{ id: string }>(await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: rest, body: form }), 201)).id;
    vendor.script({ text: 'Hello Ann.' });
    ids.session = (await json<{ session_id: string }>(await post(ann, `/agents/${ids.agent}/run`, { message: 'hi' }), 200)).session_id;
    ids.handler = (await json<{ id: string }>(await post(ann, '/context-handlers', { query: 'notes', knowledge_bases: [{ id: ids.kb }] }), 201)).id;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('answers every probe of another user\'s resources with 404 or 403, and changes nothing', async () => {
    const w = `/workflows/${ids.workflow}`;
    const a = `/agents/${ids.agent}`;
    const o = `/orchestrations/${ids.orchestration}`;
    const k = `/knowledge-bases/${ids.kb}`;
    const s = `/sources/${ids.source}`;
    const probes: Array<[string, string, unknown?]> = [
      ['GET', w], ['PATCH', w, { name: 'bob was here' }], ['DELETE', w], ['PUT', `${w}/graph`, { blocks: [] }], ['POST', `${w}/execute`, {}],
      ['POST', `${w}/execute/stream`, {}], ['POST', `${w}/deploy`, {}], ['POST', `${w}/undeploy`, {}], ['POST', `${w}/arm`, {}], ['GET', `${w}/versions`],
      ['GET', `${w}/executions`], ['GET', `${w}/executions/${ids.execution}`], ['GET', `${w}/executions/${ids.execution}/logs`], ['POST', `${w}/executions/${ids.execution}/cancel`, {}],
      ['GET', a], ['PATCH', a, { name: 'bob was here' }], ['DELETE', a], ['GET', `${a}/tools`], ['POST', `${a}/tools`, { tool_name: 'http_request' }],
      ['DELETE', `${a}/tools/${ids.assignment}`], ['POST', `${a}/run`, { message: 'hi' }], ['GET', `${a}/hooks`], ['POST', `${a}/hooks`, { event: 'OnRunStart', type: 'rule', config: {} }],
      ['DELETE', `${a}/hooks/${ids.hook}`], ['GET', `${a}/mcp-servers`], ['POST', `${a}/mcp-servers`, { name: 'x', url: 'https://x.example.com' }], ['DELETE', `${a}/mcp-servers/${ids.mcp}`],
      ['GET', `${a}/knowledge-bases`], ['POST', `${a}/knowledge-bases`, { knowledge_base_id: ids.kb }],
      ['GET', o], ['PUT', o, { name: 'bob was here' }], ['DELETE', o], ['GET', `${o}/entities`], ['POST', `${o}/run`, { message: 'hi' }],
      ['GET', `/tools/${ids.tool}`], ['PUT', `/tools/${ids.tool}`, { name: 'bobs' }], ['DELETE', `/tools/${ids.tool}`],
      ['GET', s], ['PATCH', s, { name: 'bobs' }], ['DELETE', s], ['GET', `${s}/download`], ['GET', `${s}/page-texts`], ['POST', `${s}/reextract`, {}], ['POST', `${s}/cancel`, {}],
      ['GET', k], ['PATCH', k, { name: 'bobs' }], ['DELETE', k], ['GET', `${k}/sources`], ['POST', `${k}/sources`, { source_id: ids.source }], ['POST', `${k}/search`, { query: 'notes' }],
      ['GET', `/sessions/${ids.session}`], ['GET', `/sessions/${ids.session}/messages`], ['GET', `/sessions/${ids.session}/runs`], ['DELETE', `/sessions/${ids.session}`],
      ['GET', `/context-handlers/${ids.handler}`],
    ];
    const answers: string[] = [];
    for (const [method, path, body] of probes) {
      const res = await api(bob, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      await res.body?.cancel();
      if (res.status !== 404 && res.status !== 403) answers.push(`${method} ${path}: ${res.status}`);
    }
    assert.deepEqual(answers, [], `${probes.length} probes; these were not refused`);
    // Ann's resources are as she left them.
    assert.equal((await json<{ name: string }>(await api(ann, w), 200)).name, 'ann flow');
    assert.equal((await json<{ name: string }>(await api(ann, a), 200)).name, 'ann agent');
    assert.equal((await json<Array<unknown>>(await api(ann, `${a}/tools`), 200)).length, 1);
    assert.equal((await json<Array<unknown>>(await api(ann, `${a}/hooks`), 200)).length, 1);
    assert.equal((await json<{ name: string }>(await api(ann, `/tools/${ids.tool}`), 200)).name, 'ann_tool');
    assert.equal((await json<{ name: string }>(await api(ann, k), 200)).name, 'ann kb');
    assert.equal((await api(ann, s)).status, 200);
    assert.equal((await api(ann, `/sessions/${ids.session}`)).status, 200);
    const list = await json<{ items: Array<{ id: string }> }>(await api(bob, '/workflows'), 200);
    assert.ok(!list.items.some((x) => x.id === ids.workflow), 'lists hide it too');
    assert.ok(!p.logs().includes('ann-secret-0123456789'), 'no secret in the logs');
  });
});
