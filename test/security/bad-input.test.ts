// Bad input is a 400, never a 500 (containment item 7): JSON nested 5,000
// deep in an agent's settings, on POST and PATCH, and arrays nested 100,000
// deep are refused at the edge by depth (they used to overflow the stack in
// JSON.stringify); a run message over its limit says so, not "message is
// required"; the server answers afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('bad input is a clear 400', () => {
  let p: TestPlatform;
  let user: string;
  const { api, post, json, headers } = aiApi(() => p);

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    user = (await signUp(p, 'bad-input@example.com')).access_token;
  });
  after(() => stopTestPlatform(p));

  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const raw = (path: string, method: string, body: string) => fetch(`${p.url}/api${path}`, { method, headers: headers(user), body });

  it('refuses settings nested 5,000 deep on create and update', async () => {
    const created = await raw('/agents', 'POST', `{"name":"deep","settings":${nested(5000)}}`);
    assert.deepEqual([created.status, await created.json()], [400, { error: 'The JSON body is nested deeper than 64 levels' }]);
    const agent = await json<{ id: string }>(await post(user, '/agents', { name: 'shallow', settings: { temperature: 0.2 } }), 201);
    const patched = await raw(`/agents/${agent.id}`, 'PATCH', `{"settings":${nested(5000)}}`);
    assert.deepEqual([patched.status, await patched.json()], [400, { error: 'The JSON body is nested deeper than 64 levels' }]);
    const workflow = await raw('/workflows', 'POST', `{"name":"deep","description":${nested(5000)}}`);
    assert.equal(workflow.status, 400);
  });

  it('refuses arrays nested 100,000 deep', async () => {
    const res = await raw('/agents', 'POST', `{"name":"deep","settings":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
    assert.equal(res.status, 400, await res.clone().text());
    assert.match(((await res.json()) as { error: string }).error, /nested deeper than 64 levels|Could not parse/);
  });

  it('says a run message is too long, not missing', async () => {
    const agent = await json<{ id: string }>(await post(user, '/agents', { name: 'talker' }), 201);
    const res = await post(user, `/agents/${agent.id}/run`, { message: 'x'.repeat(200_001) });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: string }).error, /message is longer than 200,000 characters/);
  });

  it('still answers', async () => {
    assert.equal((await fetch(`${p.url}/health`)).status, 200);
    assert.equal((await api(user, '/agents')).status, 200);
  });
});
