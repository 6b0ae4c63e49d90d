// Workflow runs over HTTP: POST /execute on the draft graph, references
// (nested paths, names, aliases, missing ones), general_api through the SSRF
// guard, split order and concurrency cap, retry and on_error, a block whose
// reference is not an id, the run time limit, per-block logs, the rate limit, and
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
  let relay: http.Server;
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
    // Private addresses refused, but for one listed internal host (127.0.0.2).
    guarded = await startTestPlatform({ WORKER: 'off', WORKFLOW_EXECUTIONS_PER_MINUTE: '20', SANDBOX_TIMEOUT_MS: '4000', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.2' });
    relay = http.createServer((req, res) => {
      if (req.url === '/hello') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"internal"}');
      res.writeHead(302, { location: `${base}/items` }).end();
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.2', () => r()));
  });
  after(async () => {
    await stopTestPlatform(p);
    await stopTestPlatform(guarded);
    target.closeAllConnections();
    await new Promise<void>((r) => target.close(() => r()));
    relay.closeAllConnections();
    await new Promise<void>((r) => relay.close(() => r()));
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
    // A block's model calls (ledger rows of this run with the block as their step) show in its log and the run's totals.
    await p.adminPool.query(`insert into ai.usage (feature, run_id, step, model, provider, kind, tokens_in, tokens_out, cost_usd) values ('workflow', $1, 'call', 'gpt-4.1-mini', 'openai', 'chat', 10, 3, 0.25)`, [run.body.execution_id]);
    const { logs } = (await (await api(p, `/${id}/executions/${run.body.execution_id}/logs`)).json()) as { logs: Array<{ block_id: string; tokens_in: number; tokens_out: number; cost_usd: string }> };
    assert.deepEqual(logs.map((l) => [l.block_id, l.tokens_in, l.tokens_out, Number(l.cost_usd)]), [['start', 0, 0, 0], ['call', 10, 3, 0.25], ['out', 0, 0, 0]]);
    const history = (await (await api(p, `/${id}/executions`)).json()) as Array<{ id: string; tokens_in: number; cost_usd: string }>;
    assert.deepEqual(history.filter((h) => h.id === run.body.execution_id).map((h) => [h.tokens_in, Number(h.cost_usd)]), [[10, 0.25]]);
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

  it('runs code in the sandbox with variables, upstream outputs and console, and stops runs past the time limit with 504', async () => {
    const code = await workflow(p, [
      { id: 'start', type: 'starter' },
      { id: 'calc', type: 'function', config: { code: 'console.log("adding", variables.a, variables.b); return { total: variables.a + variables.b, from: outputs.start.a };' } },
      { id: 'twice', type: 'code', config: { code: 'return <calc.total> * 2;' } },
    ], chain(['start', 'calc', 'twice']));
    const run = await execute(p, code, { variables: { a: 2, b: 3 } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.output, 10);
    const { logs } = (await (await api(p, `/${code}/executions/${run.body.execution_id}/logs`)).json()) as { logs: Array<{ block_id: string; output: unknown; logs: string[] }> };
    assert.deepEqual(logs.find((l) => l.block_id === 'calc')!.output, { total: 5, from: 2 });
    assert.deepEqual(logs.find((l) => l.block_id === 'calc')!.logs, ['adding 2 3']);
    const orchestration = await workflow(p, [{ id: 'start', type: 'starter' }, { id: 'team', type: 'orchestration', config: { orchestration_id: 'x' } }], chain(['start', 'team']));
    const badId = await execute(p, orchestration);
    assert.equal(badId.status, 500);
    assert.match(badId.body.error!, /orchestration_id must be an id/);
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

  it('ends loops, memory bombs and escape attempts in the block alone, and the server stays healthy', async () => {
    const cases: Array<[string, RegExp]> = [
      ['while (true) {}', /ran longer than/],
      ['let s = "x"; while (true) s += s;', /memory/],
      ['const a = []; while (true) a.push(new ArrayBuffer(1024 * 1024));', /memory/],
      ['const a = []; while (true) a.push({ n: Math.random(), s: "y".repeat(100) });', /memory/],
      ['return [typeof process, typeof require, typeof fetch, globalThis.constructor.constructor("return typeof process")()].join();', /^$/],
      ['return this.constructor.constructor("return import(\'fs\')")();', /./],
    ];
    for (const [source, expected] of cases) {
      const id = await workflow(guarded, [{ id: 'start', type: 'starter' }, { id: 'fn', type: 'code', config: { code: source } }], chain(['start', 'fn']));
      const t0 = Date.now();
      const run = await execute(guarded, id);
      if (expected.source === '^$') {
        assert.equal(run.status, 200, source);
        assert.equal(run.body.output, 'undefined,undefined,undefined,undefined', 'no Node globals inside the sandbox, not even through the Function constructor');
      } else {
        assert.equal(run.status, 500, `${source}: ${JSON.stringify(run.body)}`);
        assert.match(run.body.error!, expected, source);
      }
      assert.ok(Date.now() - t0 < 15_000, `${source} ended in time`);
      assert.equal((await fetch(`${guarded.url}/health`)).status, 200, 'the server stays healthy');
    }
    assert.ok(process.memoryUsage().rss < 3 * 1024 ** 3, 'memory stayed bounded');
  });

  it('takes the first true condition, skips the branches not taken, and falls to else', async () => {
    const id = await workflow(p, [
      { id: 'start', type: 'starter' },
      { id: 'route', type: 'condition', config: { conditions: [{ expression: 'variables.score > 0.8', target: 'high' }, { expression: '<variables.flag>', target: 'flagged' }], else: 'low' } },
      { id: 'high', type: 'response', config: { output: 'high' } },
      { id: 'flagged', type: 'response', config: { output: 'flagged' } },
      { id: 'low', type: 'response', config: { output: 'low' } },
      { id: 'after-high', type: 'code', config: { code: 'return "ran"' } },
    ], [{ source: 'start', target: 'route' }, { source: 'route', target: 'high' }, { source: 'route', target: 'flagged' }, { source: 'route', target: 'low' }, { source: 'high', target: 'after-high' }]);
    const high = await execute(p, id, { variables: { score: 0.9, flag: false } });
    assert.equal(high.body.output, 'high', 'the response block shapes the output');
    const highLogs = (await (await api(p, `/${id}/executions/${high.body.execution_id}/logs`)).json()) as { logs: Array<{ block_id: string; status: string }> };
    assert.equal(highLogs.logs.find((l) => l.block_id === 'after-high')!.status, 'succeeded', 'and the taken branch ran on');
    assert.equal((await execute(p, id, { variables: { score: 0.1, flag: true } })).body.output, 'flagged');
    const low = await execute(p, id, { variables: { score: 0.1, flag: false } });
    assert.equal(low.body.output, 'low');
    const { logs } = (await (await api(p, `/${id}/executions/${low.body.execution_id}/logs`)).json()) as { logs: Array<{ block_id: string; status: string }> };
    assert.deepEqual(Object.fromEntries(logs.map((l) => [l.block_id, l.status])), { start: 'succeeded', route: 'succeeded', high: 'skipped', flagged: 'skipped', low: 'succeeded', 'after-high': 'skipped' });
    const stray = await workflow(p, [{ id: 'start', type: 'starter' }, { id: 'route', type: 'condition', config: { conditions: [{ expression: 'true', target: 'nowhere' }] } }], chain(['start', 'route']));
    assert.match((await execute(p, stray)).body.error!, /target "nowhere" is not a block this condition has an edge to/);
  });

  it('refuses private, loopback and metadata addresses unless allowed, on every redirect hop too', async () => {
    const port = (target.address() as AddressInfo).port;
    const relayUrl = `http://127.0.0.2:${(relay.address() as AddressInfo).port}`;
    const allowed = await workflow(guarded, [{ id: 'start', type: 'starter' }, { id: 'call', type: 'general_api', config: { url: `${relayUrl}/hello` } }], chain(['start', 'call']));
    const reached = (await execute(guarded, allowed)).body.output as { status: number; body: unknown };
    assert.deepEqual([reached.status, reached.body], [200, { hello: 'internal' }], 'a listed internal host is reachable');
    const redirected = await workflow(guarded, [{ id: 'start', type: 'starter' }, { id: 'call', type: 'general_api', config: { url: `${relayUrl}/go` } }], chain(['start', 'call']));
    const hop = await execute(guarded, redirected);
    assert.equal(hop.status, 500);
    assert.match(hop.body.error!, /private address/, 'a redirect to a private address is refused');
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

  it('reads and writes project tables through platform_api as the user running the workflow (RLS applies)', async () => {
    await p.adminPool.query(`create table public.wf_notes (id bigint generated by default as identity primary key, owner uuid default auth.uid(), body text not null);
      alter table public.wf_notes enable row level security;
      create policy own on public.wf_notes for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());`);
    for (let i = 0; i < 100 && (await fetch(`${p.url}/rest/v1/wf_notes`, { headers: headers(p) })).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
    const id = await workflow(p, [
      { id: 'start', type: 'starter' },
      { id: 'add', type: 'platform_api', config: { operation: 'insert', table: 'wf_notes', rows: [{ body: '<variables.text>' }] } },
      { id: 'mine', type: 'platform_api', config: { operation: 'select', table: 'wf_notes', select: 'body', order: 'id.asc' } },
      { id: 'out', type: 'response', config: { output: '<mine>' } },
    ], chain(['start', 'add', 'mine', 'out']));
    const runAs = async (email: string, text: string) => {
      const sb = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
      const token = (await sb.auth.signUp({ email, password: 'a-good-password' })).data.session!.access_token;
      const res = await fetch(`${p.url}/api/workflows/${id}/execute`, { method: 'POST', headers: { apikey: p.keys.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ variables: { text } }) });
      return (await res.json()) as Run;
    };
    assert.deepEqual((await runAs('wf-ann@example.com', 'ann note')).output, [{ body: 'ann note' }]);
    assert.deepEqual((await runAs('wf-bob@example.com', 'bob note')).output, [{ body: 'bob note' }], 'bob sees his own row only');
    const { rows } = await p.adminPool.query('select count(*)::int as n, count(owner)::int as owned from public.wf_notes');
    assert.deepEqual(rows[0], { n: 2, owned: 2 }, 'each row is owned by the user who ran the workflow');
    const denied = await workflow(p, [{ id: 'start', type: 'starter' }, { id: 'wipe', type: 'platform_api', config: { operation: 'delete', table: 'wf_notes' } }], chain(['start', 'wipe']));
    assert.match((await execute(p, denied)).body.error!, /needs filters/);
  });

  it('reads, writes and lists storage through platform_api as the user (storage policies apply)', async () => {
    assert.equal((await fetch(`${p.url}/storage/v1/bucket`, { method: 'POST', headers: headers(p), body: JSON.stringify({ id: 'wf-files' }) })).status, 200);
    await p.adminPool.query(`create policy wf_own on storage.objects for all to authenticated using (bucket_id = 'wf-files' and owner = auth.uid()) with check (bucket_id = 'wf-files' and owner = auth.uid())`);
    const id = await workflow(p, [
      { id: 'start', type: 'starter' },
      { id: 'save', type: 'platform_api', config: { operation: 'storage_write', bucket: 'wf-files', path: '<variables.path>', content: '<variables.text>', upsert: true } },
      { id: 'load', type: 'platform_api', config: { operation: 'storage_read', bucket: 'wf-files', path: '<variables.path>' } },
      { id: 'ls', type: 'platform_api', config: { operation: 'storage_list', bucket: 'wf-files', prefix: '' } },
      { id: 'out', type: 'response', config: { output: { text: '<load.text>', type: '<load.content_type>', names: '<ls>' } } },
    ], chain(['start', 'save', 'load', 'ls', 'out']));
    const readOnly = await workflow(p, [{ id: 'start', type: 'starter' }, { id: 'load', type: 'platform_api', config: { operation: 'storage_read', bucket: 'wf-files', path: '<variables.path>' } }], chain(['start', 'load']));
    const user = async (email: string) => {
      const sb = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
      const token = (await sb.auth.signUp({ email, password: 'a-good-password' })).data.session!.access_token;
      return { apikey: p.keys.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    };
    const ann = await user('store-ann@example.com');
    const bob = await user('store-bob@example.com');
    const run = async (who: Record<string, string>, wf: string, variables: unknown) => (await (await fetch(`${p.url}/api/workflows/${wf}/execute`, { method: 'POST', headers: who, body: JSON.stringify({ variables }) })).json()) as Run;
    const saved = await run(ann, id, { path: 'ann/note.txt', text: 'hello from a workflow' });
    assert.equal(saved.status, 'succeeded', JSON.stringify(saved));
    assert.equal(saved.output.text, 'hello from a workflow');
    assert.equal(saved.output.type, 'text/plain');
    assert.deepEqual(saved.output.names.map((n: { name: string }) => n.name), ['ann']);
    const stolen = await run(bob, readOnly, { path: 'ann/note.txt' });
    assert.equal(stolen.status, undefined);
    assert.match(stolen.error!, /Object not found/, 'bob cannot read ann’s object');
  });

  it('hands runs a dead process left running to a resume job, and fails one that died three times', async () => {
    const id = await workflow(p, [{ id: 'start', type: 'starter' }], []);
    const insert = async (resumes: number) => (await p.adminPool.query<{ id: string }>(`insert into ai.workflow_executions (workflow_id, acts_as, trigger, status, runner, started_at, resumes)
      values ($1, 'project', 'manual', 'running', $2, now(), $3) returning id`, [id, randomUUID(), resumes])).rows[0]!.id;
    const orphan = await insert(0);
    const worn = await insert(3);
    const restarted = await startTestPlatform({ WORKER: 'off' }, { databaseUrl: p.config.DATABASE_URL! });
    try {
      for (let i = 0; i < 50; i++) {
        const { rows } = await p.adminPool.query<{ id: string; status: string; error_code: string | null; runner: string | null; resumes: number }>(
          'select id, status, error_code, runner, resumes from ai.workflow_executions where id = any($1)', [[orphan, worn]]);
        const byId = new Map(rows.map((r) => [r.id, r]));
        if (byId.get(worn)!.status !== 'running' && byId.get(orphan)!.resumes === 1) {
          assert.deepEqual([byId.get(worn)!.status, byId.get(worn)!.error_code], ['failed', 'EXECUTION_FAILED']);
          assert.deepEqual([byId.get(orphan)!.status, byId.get(orphan)!.runner], ['running', null], 'waiting for a worker to resume it');
          const job = await p.adminPool.query('select 1 from graphile_worker.jobs where key = $1', [`ai-workflow-resume:${orphan}`]);
          assert.equal(job.rows.length, 1, 'its resume job is queued');
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail('the abandoned runs were not swept');
    } finally {
      await restarted.stop();
    }
  });
});
