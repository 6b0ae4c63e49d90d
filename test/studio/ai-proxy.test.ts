// The AI surface through the control plane (issue 48's contract): an
// operator reaches the same /api handlers a client calls, as the project
// (the service role), at /api/platform/ai/{ref}/...; the handlers' own
// validation and error shape hold; each change is in the audit log under
// the operator, without its body; no session, no access.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { setupOperator, type Operator } from '../helpers/studio.ts';

describe('Studio: the AI surface through the control plane', () => {
  let p: TestPlatform;
  let op: Operator;
  const ai = (path: string) => `/api/platform/ai/default${path}`;

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    op = await setupOperator(p);
  });
  after(() => stopTestPlatform(p));

  it('creates and lists agents as the project, through the same handlers as /api', async () => {
    const made = await op.json<{ id: string; owner_id: string | null; name: string }>(ai('/agents'), 201, { method: 'POST', body: { name: 'desk', model: 'gpt-4.1-mini', system_prompt: 'Help.' } });
    assert.deepEqual([made.name, made.owner_id], ['desk', null], 'a project agent: made as the service role');
    const listed = await op.json<Array<{ name: string }>>(ai('/agents'), 200);
    assert.deepEqual(listed.map((a) => a.name), ['desk']);
    // The same row a client with the service key sees at /api.
    const direct = await fetch(`${p.url}/api/agents/${made.id}`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` } });
    assert.equal(((await direct.json()) as { name: string }).name, 'desk');
  });

  it('keeps the handlers\' validation and error body, as a client gets them from /api', async () => {
    const service = { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' };
    const refused = await op.json(ai('/agents'), 400, { method: 'POST', body: { model: 'gpt-4.1-mini' } });
    const direct = await fetch(`${p.url}/api/agents`, { method: 'POST', headers: service, body: JSON.stringify({ model: 'gpt-4.1-mini' }) });
    assert.equal(direct.status, 400);
    assert.deepEqual(refused, await direct.json());
    const missing = await op.json(ai('/agents/00000000-0000-4000-8000-000000000000'), 404);
    assert.deepEqual(missing, await (await fetch(`${p.url}/api/agents/00000000-0000-4000-8000-000000000000`, { headers: service })).json());
  });

  it('records each change in the audit log under the operator, never its body', async () => {
    await op.json(ai('/agents'), 201, { method: 'POST', body: { name: 'audited', model: 'gpt-4.1-mini', system_prompt: 'a secret-looking prompt' } });
    const log = await op.json<Array<{ operator_email: string; action: string; target: string; detail: Record<string, unknown> }>>('/api/platform/studio/audit', 200);
    const entry = log.find((e) => e.action === 'ai_change');
    assert.ok(entry, JSON.stringify(log.slice(0, 3)));
    assert.deepEqual([entry.operator_email, entry.target, entry.detail], [op.email, 'POST /agents', { method: 'POST', path: '/agents' }]);
    assert.doesNotMatch(JSON.stringify(log), /secret-looking/);
    const reads = log.filter((e) => e.action === 'ai_change' && e.target.startsWith('GET'));
    assert.equal(reads.length, 0, 'reads are not recorded');
  });

  it('answers nobody without an operator session, and no other project', async () => {
    const bare = await fetch(`${p.platformUrl}${ai('/agents')}`);
    assert.equal(bare.status, 401);
    assert.equal((await op.call('/api/platform/ai/other/agents')).status, 404);
  });
});
