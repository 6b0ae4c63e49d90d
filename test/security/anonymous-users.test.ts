// Anonymous users and the AI surface (containment round 2, item 5). Before,
// with anonymous sign-ins on, an anonymous user created and ran agents on
// the project's model key and used /api/v1, MCP, workflows and uploads. Now
// every AI entry point refuses an `is_anonymous` token (403) unless
// AI_ANONYMOUS_USERS lets them in, a webhook of a workflow an anonymous user
// owns does not run then, and anonymous sign-ins have a rate limit of their
// own, apart from sign-ups.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { aiApi, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const REFUSED = /Anonymous users may not use the AI surface on this project \(AI_ANONYMOUS_USERS\)/;

describe('anonymous users on the AI surface', () => {
  /** `closed`: the default (anonymous users refused); `open`: AI_ANONYMOUS_USERS=true, on the same database. */
  let closed: TestPlatform;
  let open: TestPlatform;
  let vendor: VendorServer;
  let anonymous: string;
  const signInAnonymously = async (p: TestPlatform) => {
    const { data, error } = await createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } }).auth.signInAnonymously();
    assert.equal(error, null);
    return data.session!.access_token;
  };

  before(async () => {
    vendor = await startVendorServer();
    const env = { ...vendor.env, WORKER: 'off', AI_MASTER_KEY: 'a-master-key-both-replicas-share-0123456789', AUTH_ANONYMOUS_USERS: 'true', AUTH_RATE_LIMIT_ANONYMOUS_USERS: '4/3600', AI_PROVIDER_MAX_RETRIES: '0' };
    closed = await startTestPlatform(env);
    open = await startTestPlatform({ ...env, AI_ANONYMOUS_USERS: 'true' }, { databaseUrl: closed.config.DATABASE_URL! });
    await storeOpenAiKey(closed);
    anonymous = await signInAnonymously(closed);
  });
  after(async () => {
    await stopTestPlatform(open);
    await stopTestPlatform(closed);
    await vendor.close();
  });

  it('refuses an anonymous user on every AI entry point, by default', async () => {
    const { api, headers } = aiApi(() => closed);
    const refusals: Array<[string, number, string]> = [];
    const note = async (what: string, res: Response) => refusals.push([what, res.status, await res.text()]);
    await note('list agents', await api(anonymous, '/agents'));
    await note('create agent', await api(anonymous, '/agents', { method: 'POST', body: JSON.stringify({ name: 'mine', model: 'gpt-4.1-mini' }) }));
    await note('create workflow', await api(anonymous, '/workflows', { method: 'POST', body: JSON.stringify({ name: 'mine' }) }));
    await note('knowledge bases', await api(anonymous, '/knowledge-bases'));
    await note('copilot', await api(anonymous, '/copilot/chat', { method: 'POST', body: JSON.stringify({ message: 'hi' }) }));
    const form = new FormData();
    form.append('file', new Blob(['hello']), 'hello.txt');
    const { 'content-type': _json, ...rest } = headers(anonymous);
    await note('upload a source', await fetch(`${closed.url}/api/sources/upload`, { method: 'POST', headers: rest, body: form }));
    const bearer = { authorization: `Bearer ${anonymous}`, 'content-type': 'application/json' };
    await note('/api/v1 models', await fetch(`${closed.url}/api/v1/models`, { headers: bearer }));
    await note('/api/v1 chat', await fetch(`${closed.url}/api/v1/chat/completions`, { method: 'POST', headers: bearer, body: JSON.stringify({ model: 'agent/x', messages: [{ role: 'user', content: 'hi' }] }) }));
    await note('MCP initialize', await fetch(`${closed.url}/api/mcp`, { method: 'POST', headers: { ...bearer, accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'a', version: '1' } } }) }));
    for (const [what, status, body] of refusals) {
      assert.equal(status, 403, `${what}: ${body}`);
      assert.match(body, REFUSED, what);
    }
    assert.equal((await closed.adminPool.query('select 1 from ai.agents union all select 1 from ai.workflows union all select 1 from ai.sources')).rowCount, 0, 'nothing was made');
    assert.equal(vendor.chats().length, 0, 'no model call on the project\'s key');
  });

  it('lets them in where AI_ANONYMOUS_USERS says so, and runs their webhooks only there', async () => {
    const { json, post, put } = aiApi(() => open);
    const agent = await json<{ id: string }>(await post(anonymous, '/agents', { name: 'guest helper', model: 'gpt-4.1-mini' }), 201);
    const run = await post(anonymous, `/agents/${agent.id}/run`, { message: 'hello' });
    assert.equal(run.status, 200, await run.clone().text());
    const w = await json<{ id: string }>(await post(anonymous, '/workflows', { name: 'guest hook' }), 201);
    const saved = await json<{ blocks: Array<{ config: { webhook_id: string; webhook_secret: string } }> }>(await put(anonymous, `/workflows/${w.id}/graph`, {
      blocks: [{ id: 'hook', type: 'webhook' }, { id: 'out', type: 'response', config: { output: 'ran' } }], edges: [{ source: 'hook', target: 'out' }],
    }), 200);
    await json(await post(anonymous, `/workflows/${w.id}/deploy`, {}), 200);
    const { webhook_id: hookId, webhook_secret: secret } = saved.blocks[0]!.config;
    const call = (p: TestPlatform) => fetch(`${p.url}/api/webhooks/${hookId}`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal((await call(open)).status, 200);
    const refused = await call(closed);
    assert.equal(refused.status, 403);
    assert.match(((await refused.json()) as { error: string }).error, /owner is an anonymous user/);
    const wrong = await fetch(`${closed.url}/api/webhooks/${hookId}`, { method: 'POST', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, body: '{}' });
    assert.equal(wrong.status, 401, 'the secret is checked first: a wrong one learns nothing of the owner');
  });

  it('limits anonymous sign-ins apart from sign-ups', async () => {
    // One anonymous sign-in was made in before(); the limit is 4 an hour per address.
    for (let i = 0; i < 3; i++) await signInAnonymously(closed);
    const { error } = await createClient(closed.url, closed.keys.anonKey, { auth: { persistSession: false } }).auth.signInAnonymously();
    assert.equal(error?.status, 429);
    assert.equal((error as { code?: string }).code, 'over_request_rate_limit');
    const { data, error: signUpError } = await createClient(closed.url, closed.keys.anonKey, { auth: { persistSession: false } }).auth.signUp({ email: 'real-person@example.com', password: 'a-good-password' });
    assert.equal(signUpError, null, 'sign-ups have their own window');
    assert.ok(data.session);
  });
});
