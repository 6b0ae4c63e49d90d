// Workflow runs over HTTP: POST /execute on the draft graph, references
// (nested paths, names, aliases, missing ones), general_api through the SSRF
// guard, split order and concurrency cap, retry and on_error, blocks that
// cannot run yet, the run time limit, per-block logs, the rate limit, and
// runs a dead process left running.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Run = { execution_id: string; status: string; output: any; error?: string; error_code?: string };

describe('workflow runs (/api/workflows/{id}/execute)', () => {
  let p: TestPlatform;
  let guarded: TestPlatform;
  let target: http.Server;
  let base: string;
  let flaky = 0;
  let inFlight = 0;
  let maxInFlight = 0;

  const headers = (pl: TestPlatform) => ({ apikey: pl.keys.serviceRoleKey, authorization: `Bearer ${pl.keys.serviceRoleKey}`, 'content-type': 'application/json' });
  const api = (pl: TestPlatform, path: string, init: RequestInit = {}) => fetch(`${pl.url}/api/workflows${path}`, { ...init, headers: headers(pl) });
  const workflow = async (pl: TestPlatform, blocks: unknown[], edges: unknown[]) => {
    const w = (await (await api(pl, '', { method: 'POST', body: JSON.stringify({ name: 'run' }) })).json()) as { id: string };
    const saved = await api(pl, `/${w.id}/graph`, { method: 'PUT', body: JSON.stringify({ blocks, edges }) });
    assert.equal(saved.status, 200, await saved.clone().text());
    return w.id;
  };
  const execute = async (pl: TestPlatform, id: string, body: unknown = {}) => {
    const res = await api(pl, `/${id}/execute`, { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Run };
  };
  const chain = (ids: string[]) => ids.slice(1).map((id, i) => ({ source: ids[i], target: id }));

  before(async () => {
    target = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/items') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [{ name: 'first' }, { name: 'second' }] }));
      if (url.pathname === '/echo') {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return void setTimeout(() => {
          inFlight--;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ q: url.searchParams.get('q') }));
        }, 60 - Number(url.searchParams.get('q')?.length ?? 0) * 10);
      }
      if (url.pathname === '/flaky') return void (++flaky <= 2 ? res.writeHead(503).end('busy') : res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
      if (url.pathname === '/hang') return;
      if (url.pathname === '/redirect') return void res.writeHead(302, { location: `http://127.0.0.1:${(target.address() as AddressInfo).port}/items` }).end();
      res.writeHead(404).end('{}');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    p = await startTestPlatform({ WORKER: 'off', HTTP_ALLOW_PRIVATE_NETWORKS: 'true', WORKFLOW_EXECUTION_TIMEOUT_MS: '1500' });
    guarded = await startTestPlatform({ WORKER: 'off', WORKFLOW_EXECUTIONS_PER_MINUTE: '20' });
  });
  after(async () => {
    await stopTestPlatform(p);
    await stopTestPlatform(guarded);
    target.closeAllConnections();
    await new Promise<void>((r) => target.close(() => r()));
  });

  it('runs starter -> general_api -> response, resolving nested, named and aliased references', async () => {
    const id = await workflow(p, [
      { id: 'start', type: 'starter' },
      { id: 'call', type: 'api_call', config: { name: 'fetcher', url: `${base}/<variables.path>`, method: 'GET' } },
      { id: 'out', type: 'response', config: { output: { second: '<call.body.items.1.name>', byName: '<fetcher.status>', who: 'Hello <start.who>!', all: '<variables>' } } },
    ], chain(['start', 'call', 'out']));
    const run = await execute(p, id, { variables: { path: 'items', who: 'Ada' } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.status, 'succeeded');
    assert.match(run.body.execution_id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(run.body.output, { second: 'second', byName: 200, who: 'Hello Ada!', all: { path: 'items', who: 'Ada' } });
    const legacy = await execute(p, id, { input: { path: 'items', who: 'Bob' } });
    assert.equal(legacy.body.output.who, 'Hello Bob!', 'input is the legacy name of variables');
  });

  it('fails a block that references something missing, naming it, with 500 EXECUTION_FAILED and the execution id', async () => {
    const id = await workflow(p, [{ id: 'start', type: 'starter' }, { id: 'out', type: 'response', config: { output: '<start.nothing.here>' } }], chain(['start', 'out']));
    const run = await execute(p, id, { variables: {} });
    assert.equal(run.status, 500);
    assert.equal(run.body.error_code, 'EXECUTION_FAILED');
    assert.match(run.body.error!, /Block "out" \(response\) failed: Reference <start.nothing.here>: nothing is not in the run's variables/);
    assert.match(run.body.execution_id, /^[0-9a-f-]{36}$/);
    const logs = (await (await api(p, `/${id}/executions/${run.body.execution_id}/logs`)).json()) as { execution: { status: string }; logs: Array<{ block_id: string; status: string }> };
    assert.equal(logs.execution.status, 'failed');
    assert.deepEqual(logs.logs.map((l) => [l.block_id, l.status]), [['start', 'succeeded'], ['out', 'failed']]);
  });

  it('splits over items with its concurrency cap and gathers outputs in input order', async () => {
    maxInFlight = 0;
    const id = await workflow(p, [
      { id: 'start', type: 'starter' },
      { id: 'each', type: 'split', config: { items: '<variables.words>', concurrency: 2 } },
      { id: 'call', type: 'general_api', config: { url: `${base}/echo?q=<each.item>` } },
      { id: 'pick', type: 'response', config: { output: { index: '<each.index>', q: '<call.body.q>' } } },
    ], chain(['start', 'each', 'call', 'pick']));
    const run = await execute(p, id, { variables: { words: ['a', 'bbb', 'cc', 'dddd', 'e'] } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.deepEqual(run.body.output, [{ index: 0, q: 'a' }, { index: 1, q: 'bbb' }, { index: 2, q: 'cc' }, { index: 3, q: 'dddd' }, { index: 4, q: 'e' }]);
    assert.equal(maxInFlight, 2, 'at most two items at once');
  });

  it('retries a failing block and lets on_error continue past one', async () => {
    flaky = 0;
    const id = await workflow(p, [
      { id: 'start', type: 'starter' },
      { id: 'retrying', type: 'general_api', config: { url: `${base}/flaky`, retry: { max: 2, backoff_ms: 10 } } },
      { id: 'broken', type: 'general_api', config: { url: `${base}/missing`, on_error: 'continue' } },
      { id: 'out', type: 'response', config: { output: { ok: '<retrying.body.ok>', error: '<broken.error>' } } },
    ], chain(['start', 'retrying', 'broken', 'out']));
    const run = await execute(p, id);
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.deepEqual(run.body.output, { ok: true, error: `GET ${base}/missing answered 404` });
    const { logs } = (await (await api(p, `/${id}/executions/${run.body.execution_id}/logs`)).json()) as { logs: Array<{ block_id: string; status: string; attempts: number }> };
    assert.deepEqual(logs.map((l) => [l.block_id, l.status, l.attempts]), [['start', 'succeeded', 1], ['retrying', 'succeeded', 3], ['broken', 'failed', 1], ['out', 'succeeded', 1]]);
  });

  it('fails runs that reach a block that cannot run yet, and stops runs past the time limit with 504', async () => {
    const code = await workflow(p, [{ id: 'start', type: 'starter' }, { id: 'fn', type: 'function', config: { code: 'return 1' } }], chain(['start', 'fn']));
    const run = await execute(p, code);
    assert.equal(run.status, 500);
    assert.match(run.body.error!, /code blocks cannot run yet/);
    const slow = await workflow(p, [{ id: 'start', type: 'starter' }, { id: 'wait', type: 'general_api', config: { url: `${base}/hang`, timeout_ms: 60000 } }], chain(['start', 'wait']));
    const t0 = Date.now();
    const timedOut = await execute(p, slow);
    assert.equal(timedOut.status, 504);
    assert.equal(timedOut.body.error_code, 'EXECUTION_TIMEOUT');
    assert.match(timedOut.body.execution_id, /^[0-9a-f-]{36}$/);
    assert.ok(Date.now() - t0 < 5000, 'stopped at the limit');
    const history = (await (await api(p, `/${slow}/executions`)).json()) as Array<{ id: string; status: string; error_code: string }>;
    assert.deepEqual([history[0]!.id, history[0]!.status, history[0]!.error_code], [timedOut.body.execution_id, 'failed', 'EXECUTION_TIMEOUT']);
  });

  it('refuses private, loopback and metadata addresses unless allowed', async () => {
    const port = (target.address() as AddressInfo).port;
    for (const url of [`${base}/items`, `http://localhost:${port}/items`, 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:1/x', `http://10.0.0.1:${port}/`]) {
      const id = await workflow(guarded, [{ id: 'start', type: 'starter' }, { id: 'call', type: 'general_api', config: { url, timeout_ms: 2000 } }], chain(['start', 'call']));
      const run = await execute(guarded, id);
      assert.equal(run.status, 500, url);
      assert.match(run.body.error!, /private address/, `${url}: ${run.body.error}`);
    }
  });

  it('allows 20 executions a minute per user, then 429 with Retry-After', async () => {
    const id = await workflow(guarded, [{ id: 'start', type: 'starter' }], []);
    const sb = createClient(guarded.url, guarded.keys.anonKey, { auth: { persistSession: false } });
    const token = (await sb.auth.signUp({ email: 'runner@example.com', password: 'a-good-password' })).data.session!.access_token;
    const asUser = { apikey: guarded.keys.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (let i = 0; i < 20; i++) {
      const ok = await fetch(`${guarded.url}/api/workflows/${id}/execute`, { method: 'POST', headers: asUser, body: '{}' });
      assert.equal(ok.status, 200, `run ${i + 1}: a user runs a project workflow`);
    }
    const refused = await fetch(`${guarded.url}/api/workflows/${id}/execute`, { method: 'POST', headers: asUser, body: '{}' });
    assert.equal(refused.status, 429);
    assert.deepEqual(await refused.json(), { error: 'Rate limit exceeded: at most 20 executions per minute', error_code: 'RATE_LIMITED' });
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  });

  it('marks runs a dead process left running as failed', async () => {
    const id = await workflow(p, [{ id: 'start', type: 'starter' }], []);
    const { rows } = await p.adminPool.query(`insert into ai.workflow_executions (workflow_id, trigger, status, runner, started_at) values ($1, 'manual', 'running', $2, now()) returning id`, [id, randomUUID()]);
    const restarted = await startTestPlatform({ WORKER: 'off' }, { databaseUrl: p.config.DATABASE_URL! });
    try {
      for (let i = 0; i < 50; i++) {
        const { rows: [run] } = await p.adminPool.query('select status, error_code from ai.workflow_executions where id = $1', [rows[0].id]);
        if (run.status !== 'running') {
          assert.deepEqual(run, { status: 'failed', error_code: 'EXECUTION_FAILED' });
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail('the abandoned run was not marked failed');
    } finally {
      await restarted.stop();
    }
  });
});
