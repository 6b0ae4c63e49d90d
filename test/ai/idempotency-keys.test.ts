// Every call a run makes to an HTTP tool, a custom tool, a general_api block
// or an HTTP hook carries an Idempotency-Key (issue 29): its own per call,
// the same when that call is made again (a block's retry), and the
// platform's even where a tool's configured headers name a fixed one.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const KEY = /^[0-9a-f]{32}$/;

describe('idempotency keys on the calls a run makes', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let ann: string;
  let receiver: http.Server;
  let base: string;
  const seen: Array<{ path: string; key: string | undefined }> = [];
  let flaky = 0;
  const { json, post, put } = aiApi(() => p);

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url!.split('?')[0]!;
        seen.push({ path, key: req.headers['idempotency-key'] as string | undefined });
        if (path === '/flaky' && flaky++ === 0) return void res.writeHead(500).end('{}');
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-keys@example.com')).access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
    receiver.close();
  });
  const keysOf = (path: string) => seen.filter((s) => s.path === path).map((s) => s.key);

  it('gives each tool and hook call of an agent run its own key, the configured one replaced', async () => {
    const agent = await json<{ id: string }>(await post(ann, '/agents', { name: 'caller', model: 'gpt-4.1-mini' }), 201);
    await json(await post(ann, '/tools', { name: 'notify', description: 'Notify', type: 'http', input_schema: { type: 'object' }, config: { endpoint: `${base}/custom`, headers: { 'Idempotency-Key': 'fixed' } } }), 201);
    await json(await post(ann, `/agents/${agent.id}/tools`, { tool_name: 'http_request' }), 201);
    await json(await post(ann, `/agents/${agent.id}/tools`, { tool_name: 'notify' }), 201);
    await json(await post(ann, `/agents/${agent.id}/hooks`, { event: 'PostToolUse', type: 'http', config: { url: `${base}/hook` } }), 201);
    vendor.reset();
    vendor.script(
      { toolCalls: [{ id: 'c1', name: 'http_request', arguments: { url: `${base}/tool`, method: 'POST', body: { n: 1 } } }, { id: 'c2', name: 'notify', arguments: { n: 2 } }] },
      { toolCalls: [{ id: 'c1', name: 'http_request', arguments: { url: `${base}/tool`, method: 'POST', body: { n: 1 } } }] },
      { text: 'Done.' },
    );
    await json(await post(ann, `/agents/${agent.id}/run`, { message: 'Call around' }), 200);
    const tool = keysOf('/tool');
    const custom = keysOf('/custom');
    const hooks = keysOf('/hook');
    assert.equal(tool.length, 2);
    assert.equal(custom.length, 1);
    assert.equal(hooks.length, 3, 'PostToolUse after each of the three calls');
    for (const key of [...tool, ...custom, ...hooks]) assert.match(key ?? '', KEY);
    assert.notEqual(tool[0], tool[1], 'the same arguments in another step are another call (the model even reused its id)');
    assert.notEqual(custom[0], 'fixed', 'the platform\'s key replaces a configured one');
    assert.equal(new Set([...tool, ...custom, ...hooks]).size, 6, 'every call its own key');
  });

  it('keeps a block\'s key across its retries and gives each split item its own, in each run', async () => {
    const w = await json<{ id: string }>(await post(ann, '/workflows', { name: 'keys' }), 201);
    const graph = {
      blocks: [
        { id: 'start', type: 'starter' },
        { id: 'retrying', type: 'general_api', config: { url: `${base}/flaky`, retry: { max: 2, backoff_ms: 10 } } },
        { id: 'each', type: 'split', config: { items: '<variables.items>', concurrency: 2 } },
        { id: 'call', type: 'general_api', config: { url: `${base}/item?i=<each.index>` } },
      ],
      edges: [{ source: 'start', target: 'retrying' }, { source: 'retrying', target: 'each' }, { source: 'each', target: 'call' }],
    };
    await json(await put(ann, `/workflows/${w.id}/graph`, graph), 200);
    const execute = async () => json(await post(ann, `/workflows/${w.id}/execute`, { variables: { items: ['a', 'b', 'c'] } }), 200);
    flaky = 0;
    await execute();
    const [failed, retried] = keysOf('/flaky');
    assert.match(failed ?? '', KEY);
    assert.equal(retried, failed, 'a retry is the same call: the same key');
    const items = keysOf('/item');
    assert.equal(new Set(items).size, 3, 'each split item calls with its own key');
    flaky = 1;
    await execute();
    assert.notEqual(keysOf('/flaky')[2], failed, 'another run, another key');
    assert.equal(new Set(keysOf('/item')).size, 6);
  });
});
