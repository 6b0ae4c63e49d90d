// Secrets inside project resources are masked (containment item 6): a
// project custom tool's config.headers and an HTTP hook's come back masked to
// every signed-in user (GET, list, the copilot's view of the row), in clear
// to the service role only; they are stored encrypted; the mask sent back
// keeps the stored value; the runner sends the real values; nothing stores a
// header in clear, whatever path writes the row.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const SECRET = 'Bearer sk-live-0123456789abcdef';
const MASK = 'Bea...cdef';

describe('secrets inside tools and hooks', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let echo: http.Server;
  let base: string;
  let user: string;
  const seen: Array<{ path: string; authorization: string | undefined }> = [];
  const { api, post, put, json } = aiApi(() => p);
  const service = () => p.keys.serviceRoleKey;

  before(async () => {
    vendor = await startVendorServer();
    echo = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push({ path: req.url!, authorization: req.headers.authorization });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    p = await startTestPlatform({ WORKER: 'off', ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
    await storeOpenAiKey(p);
    user = (await signUp(p, 'secrets@example.com')).access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
    echo.closeAllConnections();
    await new Promise<void>((r) => echo.close(() => r()));
  });

  const toolBody = (headers: Record<string, string>, path = '/tool') => ({
    name: 'vendor_lookup', description: 'Looks a thing up at the vendor', type: 'http',
    input_schema: { type: 'object', properties: { q: { type: 'string' } } },
    config: { endpoint: `${base}${path}`, method: 'POST', headers },
  });

  it('stores a project tool\'s headers encrypted, shows users the mask, the service role the value, and keeps the value when the mask comes back', async () => {
    const made = await json<{ id: string; config: { headers: Record<string, string> } }>(await post(service(), '/tools', toolBody({ authorization: SECRET, 'x-team': 'blue-team-7' })), 201);
    assert.equal(made.config.headers.authorization, SECRET, 'the service role reads the value');
    const asUser = await json<{ config: { headers: Record<string, string> } }>(await api(user, `/tools/${made.id}`), 200);
    assert.deepEqual(asUser.config.headers, { authorization: MASK, 'x-team': '••••••••' });
    const listed = await json<Array<{ id: string; config?: { headers?: Record<string, string> } }>>(await api(user, '/tools'), 200);
    assert.deepEqual(listed.find((t) => t.id === made.id)!.config!.headers, { authorization: MASK, 'x-team': '••••••••' });
    const { rows: [stored] } = await p.adminPool.query(`select config, headers_encrypted is not null as sealed, headers_unsealed from ai.tools where id = $1`, [made.id]);
    assert.deepEqual([stored.config.headers.authorization, stored.sealed, stored.headers_unsealed], [MASK, true, false], 'stored masked, the value encrypted');
    assert.ok(!JSON.stringify(stored.config).includes('sk-live'));
    // A client saves what it read (the masks) with one header changed: the other keeps its value.
    const saved = await json<{ config: { headers: Record<string, string> } }>(await put(service(), `/tools/${made.id}`, { config: { ...toolBody({}).config, headers: { authorization: MASK, 'x-team': 'red-team-9' } } }), 200);
    assert.deepEqual(saved.config.headers, { authorization: SECRET, 'x-team': 'red-team-9' });
  });

  it('sends the real headers when an agent calls the tool, and never lets a user read them', async () => {
    const tool = await json<{ id: string }>(await post(service(), '/tools', { ...toolBody({ authorization: SECRET }, '/called'), name: 'called_tool' }), 201);
    const agent = await json<{ id: string }>(await post(service(), '/agents', { name: 'caller', model: 'gpt-4.1-mini' }), 201);
    await json(await post(service(), `/agents/${agent.id}/tools`, { tool_name: 'called_tool' }), 201);
    vendor.script({ toolCalls: [{ id: 'c1', name: 'called_tool', arguments: { q: 'x' } }] }, { text: 'Done.' });
    const run = await json<{ output: string }>(await post(user, `/agents/${agent.id}/run`, { message: 'look it up' }), 200);
    assert.equal(run.output, 'Done.');
    assert.deepEqual(seen.filter((s) => s.path === '/called').map((s) => s.authorization), [SECRET], 'the runner decrypts');
    const refused = await p.adminPool.query(`begin; set local role authenticated; select headers_encrypted from ai.tools where id = '${tool.id}'`).then(() => 'read', (err: Error) => err.message);
    await p.adminPool.query('rollback');
    assert.match(refused, /permission denied/);
  });

  it('masks an HTTP hook\'s headers to users and sends the value when it fires', async () => {
    const agent = await json<{ id: string }>(await post(service(), '/agents', { name: 'hooked', model: 'gpt-4.1-mini' }), 201);
    const hook = await json<{ id: string; config: { headers: Record<string, string> } }>(await post(service(), `/agents/${agent.id}/hooks`, { event: 'OnRunStart', type: 'http', config: { url: `${base}/hook`, headers: { authorization: SECRET } } }), 201);
    assert.equal(hook.config.headers.authorization, SECRET);
    const asUser = await json<Array<{ config: { headers: Record<string, string> } }>>(await api(user, `/agents/${agent.id}/hooks`), 200);
    assert.deepEqual(asUser.map((h) => h.config.headers), [{ authorization: MASK }]);
    vendor.script({ text: 'Hello.' });
    await json(await post(user, `/agents/${agent.id}/run`, { message: 'hi' }), 200);
    assert.deepEqual(seen.filter((s) => s.path === '/hook').map((s) => s.authorization), [SECRET]);
  });

  it('refuses to store a header in clear, whatever writes the row', async () => {
    await assert.rejects(p.adminPool.query(`insert into ai.tools (name, description, type, input_schema, config) values ('raw', 'd', 'http', '{}', '{"headers": {"authorization": "clear"}}')`),
      /Headers must be sealed by the server/);
    const { rows } = await p.adminPool.query(`select count(*)::int as n from ai.tools where name = 'raw'`);
    assert.equal(rows[0].n, 0);
  });
});
