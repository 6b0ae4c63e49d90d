// Webhook triggers (spec 3.4, 4.8, part 5) and the run stream (6.3) over
// HTTP: no project key; the secret by Bearer header or token query with
// part 5's header rules; 400 for a bad id, 401 {error: "Unauthorized"}, 403
// while inactive, 404 unknown; deployed calls run the active version (and
// record it), an arm window lets exactly one call run the draft; the 5-minute
// limit's body; execute/stream's events, failures as type error on a 200.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { sseEvents } from '../helpers/sse.ts';

describe('webhook triggers and run streams', () => {
  let p: TestPlatform;
  let slowServer: http.Server;
  let slowUrl: string;
  const service = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' });
  const api = (path: string, init: RequestInit = {}) => fetch(`${p.url}/api/workflows${path}`, { ...init, headers: service() });
  const hook = (id: string, init: { headers?: Record<string, string>; query?: string; body?: unknown } = {}) =>
    fetch(`${p.url}/api/webhooks/${id}${init.query ?? ''}`, { method: 'POST', headers: { 'content-type': 'application/json', ...init.headers }, body: JSON.stringify(init.body ?? {}) });
  /** A workflow whose response echoes <variables.msg> with a tag; answers its id, webhook id and secret. */
  const hooked = async (tag: string, extra: unknown[] = [], edges: unknown[] = []) => {
    const w = (await (await api('', { method: 'POST', body: JSON.stringify({ name: tag }) })).json()) as { id: string };
    const saved = (await (await api(`/${w.id}/graph`, { method: 'PUT', body: JSON.stringify({
      blocks: [{ id: 'hook', type: 'webhook' }, { id: 'out', type: 'response', config: { output: { tag, msg: '<variables.msg>' } } }, ...extra],
      edges: [{ source: 'hook', target: 'out' }, ...edges],
    }) })).json()) as { blocks: Array<{ config: { webhook_id: string; webhook_secret: string } }> };
    return { id: w.id, webhookId: saved.blocks[0]!.config.webhook_id, secret: saved.blocks[0]!.config.webhook_secret };
  };

  before(async () => {
    slowServer = http.createServer(() => undefined);
    await new Promise<void>((r) => slowServer.listen(0, '127.0.0.1', () => r()));
    slowUrl = `http://127.0.0.1:${(slowServer.address() as AddressInfo).port}/`;
    p = await startTestPlatform({ WORKER: 'off', HTTP_ALLOW_PRIVATE_NETWORKS: 'true', WORKFLOW_EXECUTION_TIMEOUT_MS: '1000' });
  });
  after(async () => {
    await stopTestPlatform(p);
    slowServer.closeAllConnections();
    await new Promise<void>((r) => slowServer.close(() => r()));
  });

  it('checks the id, the secret and the activation, in that order, with no project key', async () => {
    const w = await hooked('gate');
    const bad = await hook('not-a-uuid', { headers: { authorization: `Bearer ${w.secret}` } });
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { error: 'webhook_id must be a UUID', error_code: 'VALIDATION_ERROR' });
    const missing = await hook(w.webhookId);
    assert.equal(missing.status, 401);
    assert.deepEqual(await missing.json(), { error: 'Unauthorized' });
    const wrong = await hook(w.webhookId, { headers: { authorization: 'Bearer nope' } });
    assert.deepEqual([wrong.status, await wrong.json()], [401, { error: 'Unauthorized' }]);
    const emptyBearer = await hook(w.webhookId, { headers: { authorization: 'Bearer  ' } });
    assert.equal(emptyBearer.status, 401, 'a Bearer header with no secret');
    const inactive = await hook(w.webhookId, { headers: { authorization: `Bearer ${w.secret}` } });
    assert.equal(inactive.status, 403, 'a right secret on an inactive webhook');
    assert.equal(((await inactive.json()) as { error_code: string }).error_code, 'WEBHOOK_INACTIVE');
    const unknown = await hook('00000000-0000-4000-8000-000000000000', { headers: { authorization: `Bearer ${w.secret}` } });
    assert.deepEqual([unknown.status, ((await unknown.json()) as { error_code: string }).error_code], [404, 'WORKFLOW_NOT_FOUND']);
  });

  it('runs the deployed version for every call, recording the version, by header or query', async () => {
    const w = await hooked('v1');
    await api(`/${w.id}/deploy`, { method: 'POST' });
    // The draft changes after deploying: calls still run version 1.
    await api(`/${w.id}/graph`, { method: 'PUT', body: JSON.stringify({ blocks: [{ id: 'hook', type: 'webhook', config: { webhook_id: w.webhookId, webhook_secret: w.secret } }, { id: 'out', type: 'response', config: { output: 'draft' } }], edges: [{ source: 'hook', target: 'out' }] }) });
    const byHeader = await hook(w.webhookId, { headers: { authorization: `BEARER ${w.secret}` }, body: { msg: 'hi' } });
    assert.equal(byHeader.status, 200);
    const run = (await byHeader.json()) as { execution_id: string; status: string; output: unknown };
    assert.deepEqual([run.status, run.output], ['succeeded', { tag: 'v1', msg: 'hi' }]);
    const byQuery = await hook(w.webhookId, { headers: { authorization: 'Bearer' }, query: `?token=${w.secret}`, body: { msg: 'again' } });
    assert.equal(byQuery.status, 200, '"Bearer" without a space falls through to the query');
    const { rows } = await p.adminPool.query(`select version, trigger from ai.workflow_executions where id = $1`, [run.execution_id]);
    assert.deepEqual(rows[0], { version: 1, trigger: 'webhook' });
    await api(`/${w.id}/deploy`, { method: 'POST' });
    assert.deepEqual(((await (await hook(w.webhookId, { headers: { authorization: `Bearer ${w.secret}` } })).json()) as { output: unknown }).output, 'draft', 'version 2 is the new draft');
    await api(`/${w.id}/versions/1/activate`, { method: 'POST' });
    assert.deepEqual(((await (await hook(w.webhookId, { headers: { authorization: `Bearer ${w.secret}` }, body: { msg: 'x' } })).json()) as { output: unknown }).output, { tag: 'v1', msg: 'x' }, 'rolled back');
    await api(`/${w.id}/undeploy`, { method: 'POST' });
    assert.equal((await hook(w.webhookId, { headers: { authorization: `Bearer ${w.secret}` } })).status, 403, 'undeployed: inactive again');
  });

  it('lets exactly one of ten concurrent calls use an arm window; a wrong secret never uses it', async () => {
    const w = await hooked('armed');
    await api(`/${w.id}/arm`, { method: 'POST' });
    assert.equal((await hook(w.webhookId, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    const statuses = await Promise.all(Array.from({ length: 10 }, () => hook(w.webhookId, { headers: { authorization: `Bearer ${w.secret}` }, body: { msg: 'race' } }).then((r) => r.status)));
    assert.deepEqual(statuses.sort(), [200, 403, 403, 403, 403, 403, 403, 403, 403, 403]);
    assert.equal((await hook(w.webhookId, { headers: { authorization: `Bearer ${w.secret}` } })).status, 403, 'the window is used up');
  });

  it('answers a run past the limit with {error, code: execution_timeout, execution_id}', async () => {
    const w = await hooked('slow', [{ id: 'wait', type: 'general_api', config: { url: slowUrl, timeout_ms: 60000 } }], [{ source: 'hook', target: 'wait' }]);
    await api(`/${w.id}/deploy`, { method: 'POST' });
    const res = await hook(w.webhookId, { headers: { authorization: `Bearer ${w.secret}` } });
    assert.equal(res.status, 504);
    const body = (await res.json()) as Record<string, string>;
    assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'execution_id']);
    assert.equal(body.code, 'execution_timeout');
  });

  it('goes on when its client goes away, until cancelled (from any replica, through SQL)', async () => {
    const w = (await (await api('', { method: 'POST', body: JSON.stringify({ name: 'left' }) })).json()) as { id: string };
    await api(`/${w.id}/graph`, { method: 'PUT', body: JSON.stringify({ blocks: [{ id: 'start', type: 'starter' }, { id: 'wait', type: 'general_api', config: { url: slowUrl, timeout_ms: 60000 } }, { id: 'agent', type: 'agent', config: { agent_id: 'x' } }], edges: [{ source: 'start', target: 'wait' }, { source: 'wait', target: 'agent' }] }) });
    const client = new AbortController();
    const res = await fetch(`${p.url}/api/workflows/${w.id}/execute/stream`, { method: 'POST', headers: service(), body: '{}', signal: client.signal });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const executionId = /"execution_id":"([0-9a-f-]{36})"/.exec(first)![1]!;
    client.abort();
    const status = async () => (await p.adminPool.query('select status, error_code from ai.workflow_executions where id = $1', [executionId])).rows[0];
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await status(), { status: 'running', error_code: null }, 'the client left; the run goes on');
    const cancel = await api(`/${w.id}/executions/${executionId}/cancel`, { method: 'POST' });
    assert.deepEqual(await cancel.json(), { cancelled: true, execution_id: executionId });
    for (let i = 0; i < 60; i++) {
      const row = await status();
      const events = (await p.adminPool.query(`select event ->> 'type' as type from ai.run_events where run_id = $1 order by seq desc limit 1`, [executionId])).rows;
      if (events[0]?.type === 'error') {
        assert.deepEqual(row, { status: 'cancelled', error_code: 'CANCELLED' });
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail('the cancelled run did not end');
  });

  it('fails a run whose agent block names no agent, saying why', async () => {
    const w = (await (await api('', { method: 'POST', body: JSON.stringify({ name: 'agent' }) })).json()) as { id: string };
    await api(`/${w.id}/graph`, { method: 'PUT', body: JSON.stringify({ blocks: [{ id: 'start', type: 'starter' }, { id: 'a', type: 'agent', config: { agent_id: 'x' } }], edges: [{ source: 'start', target: 'a' }] }) });
    const res = await api(`/${w.id}/execute`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 500);
    const body = (await res.json()) as { error: string; error_code: string };
    assert.equal(body.error_code, 'EXECUTION_FAILED');
    assert.match(body.error, /agent_id must be an id/);
  });

  it('streams a run as server-sent events, and a failure as an event of type error on a 200', async () => {
    const w = (await (await api('', { method: 'POST', body: JSON.stringify({ name: 'stream' }) })).json()) as { id: string };
    await api(`/${w.id}/graph`, { method: 'PUT', body: JSON.stringify({ blocks: [{ id: 'start', type: 'starter' }, { id: 'out', type: 'response', config: { output: '<variables.x>' } }], edges: [{ source: 'start', target: 'out' }] }) });
    const events = async (body: unknown) => {
      const res = await api(`/${w.id}/execute/stream`, { method: 'POST', body: JSON.stringify(body) });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
      return sseEvents<{ type: string; [k: string]: unknown }>(res);
    };
    const ok = await events({ variables: { x: 7 } });
    assert.deepEqual(ok.map((e) => e.type), ['run_started', 'block_started', 'block_completed', 'block_started', 'block_completed', 'run_completed']);
    assert.equal(ok.at(-1)!.output, 7);
    const failed = await events({ variables: {} });
    const last = failed.at(-1)!;
    assert.equal(last.type, 'error');
    assert.match(String(last.error), /Reference <variables.x>/);
    assert.ok(last.execution_id);
    assert.equal(last.error_code, undefined, 'only a timeout carries error_code');
    assert.ok(failed.some((e) => e.type === 'block_failed'));
  });
});
