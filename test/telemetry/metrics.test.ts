// GET /metrics (issue 31): the Prometheus text format on the project port,
// to `Authorization: Bearer <service key>` alone (what Prometheus sends);
// anything less is 401. Read with a real text-format parser; its counters
// move as requests, model calls, jobs and runs happen, and its gauges show
// pools, the job queue, realtime sockets and runs in progress.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { aiApi, signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startWorkerCli } from '../helpers/platform-process.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { client, subscribed } from '../helpers/realtime.ts';

type Family = ReturnType<typeof parsePrometheusTextFormat>[number];

describe('GET /metrics', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  const { json, post } = aiApi(() => p);
  let text = '';
  const scrape = async (): Promise<Family[]> => {
    const res = await fetch(`${p.url}/metrics`, { headers: { authorization: `Bearer ${p.keys.serviceRoleKey}` } });
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    text = await res.text();
    return parsePrometheusTextFormat(text);
  };
  /**
   * A histogram's count for one label set, from the last scrape's text (the
   * parser keeps a labelled histogram's buckets but drops its _count lines).
   */
  const histogramCount = (name: string, labels: Record<string, string>) => text.split('\n')
    .filter((l) => l.startsWith(`${name}_count{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  /** The value of a counter or gauge sample whose labels include `labels` (0 when none). */
  const value = (families: Family[], name: string, labels: Record<string, string> = {}) => {
    const family = families.find((f) => f.name === name);
    const samples = (family?.metrics ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
    return samples.reduce((n, m) => n + Number(m.value ?? m.count ?? 0), 0);
  };

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ ...vendor.env, LOG_LEVEL: 'warn', AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('answers the service key as a bearer alone; anything less is 401, saying what it needs', async () => {
    const refused = async (headers: Record<string, string>) => {
      const res = await fetch(`${p.url}/metrics`, { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.deepEqual(await res.json(), { error: 'GET /metrics needs Authorization: Bearer <service key>' });
    };
    await refused({});
    await refused({ apikey: p.keys.serviceRoleKey });
    await refused({ authorization: `Bearer ${p.keys.anonKey}` });
    await refused({ authorization: 'Bearer not-a-token' });
    const user = await signUp(p, 'ann-metrics@example.com');
    await refused({ authorization: `Bearer ${user.access_token}` });
    const families = await scrape();
    for (const name of ['pgbase_http_requests_total', 'pgbase_http_request_duration_seconds', 'pgbase_db_pool_connections', 'pgbase_jobs_queued', 'pgbase_process_resident_memory_bytes', 'pgbase_realtime_connections', 'pgbase_runs']) {
      assert.ok(families.some((f) => f.name === name), `${name} is exported`);
    }
  });

  it('counts requests per surface, route template and status, and times them', async () => {
    const labels = { surface: 'auth', route: '/auth/v1/settings', method: 'GET', status: '200' };
    const before = value(await scrape(), 'pgbase_http_requests_total', labels);
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${p.url}/auth/v1/settings`, { headers: { apikey: p.keys.anonKey } })).status, 200);
    const families = await scrape();
    assert.equal(value(families, 'pgbase_http_requests_total', labels), before + 3);
    assert.equal(families.find((f) => f.name === 'pgbase_http_request_duration_seconds')?.type, 'HISTOGRAM');
    assert.equal(histogramCount('pgbase_http_request_duration_seconds', labels), before + 3);
    assert.ok(value(families, 'pgbase_http_requests_total', { surface: 'metrics', status: '401' }) >= 5, 'the refused scrapes are counted too');
    // A path no route matched is one series per surface, not one per path.
    await fetch(`${p.url}/api/no-such-thing/${crypto.randomUUID()}`, { headers: { apikey: p.keys.serviceRoleKey } });
    const unmatched = (await scrape()).find((f) => f.name === 'pgbase_http_requests_total')!.metrics.filter((m) => m.labels?.surface === 'ai' && m.labels?.status === '404');
    assert.deepEqual(unmatched.map((m) => m.labels?.route), ['ai:unmatched']);
  });

  it('shows the pools, realtime sockets and channels, and the job queue', async () => {
    const sb = client(p, '1.0.0');
    try {
      await subscribed(sb.channel('metrics-room'));
      await p.adminPool.query(`select graphile_worker.add_job('test_metrics_nobody_runs', '{}'::json, run_at := now() - interval '5 seconds')`);
      const families = await scrape();
      assert.equal(value(families, 'pgbase_realtime_connections'), 1);
      assert.equal(value(families, 'pgbase_realtime_channels'), 1);
      assert.ok(value(families, 'pgbase_realtime_messages_total', { direction: 'in' }) >= 1);
      assert.ok(value(families, 'pgbase_db_pool_connections', { pool: 'admin' }) >= 1);
      assert.equal(value(families, 'pgbase_jobs_queued', { task: 'test_metrics_nobody_runs' }), 1);
      assert.ok(value(families, 'pgbase_jobs_oldest_due_age_seconds', { task: 'test_metrics_nobody_runs' }) >= 4);
    } finally {
      await sb.removeAllChannels();
      sb.realtime.disconnect();
    }
  });

  it('counts model calls, tokens and cost per provider and model, runs by how they ended, and times jobs', async () => {
    const service = p.keys.serviceRoleKey;
    const agentId = (await json<{ id: string }>(await post(service, '/agents', { name: 'counted', model: 'gpt-4.1-mini' }), 201)).id;
    const model = { provider: 'openai', model: 'gpt-4.1-mini' };
    const before = await scrape();
    vendor.reset();
    vendor.script({ text: 'Counted.' });
    await json(await post(service, `/agents/${agentId}/run`, { message: 'Count me' }), 200);
    vendor.script({ status: 500, message: 'down' });
    await post(service, `/agents/${agentId}/run`, { message: 'Fail me' });
    const families = await scrape();
    assert.equal(value(families, 'pgbase_model_calls_total', { ...model, kind: 'chat', outcome: 'ok' }) - value(before, 'pgbase_model_calls_total', { ...model, kind: 'chat', outcome: 'ok' }), 1);
    assert.equal(value(families, 'pgbase_model_calls_total', { ...model, kind: 'chat', outcome: 'error' }) - value(before, 'pgbase_model_calls_total', { ...model, kind: 'chat', outcome: 'error' }), 1);
    const usage = (await p.adminPool.query<{ tokens_in: number; tokens_out: number; cost: string }>(
      `select sum(tokens_in)::int as tokens_in, sum(tokens_out)::int as tokens_out, sum(cost_usd)::text as cost from ai.usage where model = 'gpt-4.1-mini' and ok`)).rows[0]!;
    assert.equal(value(families, 'pgbase_model_tokens_total', { ...model, direction: 'input' }), usage.tokens_in, 'the ledger\'s tokens');
    assert.equal(value(families, 'pgbase_model_tokens_total', { ...model, direction: 'output' }), usage.tokens_out);
    assert.ok(Math.abs(value(families, 'pgbase_model_cost_usd_total', model) - Number(usage.cost)) < 1e-9, 'the ledger\'s cost');
    assert.equal(value(families, 'pgbase_runs_finished_total', { kind: 'agent', status: 'completed' }) - value(before, 'pgbase_runs_finished_total', { kind: 'agent', status: 'completed' }), 1);
    assert.equal(value(families, 'pgbase_runs_finished_total', { kind: 'agent', status: 'failed' }) - value(before, 'pgbase_runs_finished_total', { kind: 'agent', status: 'failed' }), 1);
    // A job the platform ran is timed by task.
    await p.adminPool.query(`select graphile_worker.add_job('realtime_prune', '{}'::json)`);
    let timed = 0;
    for (let i = 0; i < 100 && timed === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      await scrape();
      timed = histogramCount('pgbase_job_duration_seconds', { task: 'realtime_prune', outcome: 'succeeded' });
    }
    assert.ok(timed >= 1, 'realtime_prune was timed');
  });

  it('counts extractions by outcome and the pages extracted', async () => {
    const before = await scrape();
    const form = new FormData();
    form.append('file', new Blob(['Counted text.']), 'counted.txt');
    const service = p.keys.serviceRoleKey;
    const made = await json<{ id: string }>(await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: { apikey: service, authorization: `Bearer ${service}` }, body: form }), 201);
    let families = before;
    for (let i = 0; i < 200 && value(families, 'pgbase_source_extractions_total', { outcome: 'extracted' }) === value(before, 'pgbase_source_extractions_total', { outcome: 'extracted' }); i++) {
      await new Promise((r) => setTimeout(r, 50));
      families = await scrape();
    }
    assert.equal(value(families, 'pgbase_source_extractions_total', { outcome: 'extracted' }) - value(before, 'pgbase_source_extractions_total', { outcome: 'extracted' }), 1, `source ${made.id} counted once`);
    assert.equal(value(families, 'pgbase_source_extracted_pages_total') - value(before, 'pgbase_source_extracted_pages_total'), 1);
  });

  it('a standalone worker serves its own /metrics on WORKER_METRICS_PORT: its jobs timed there, the same key asked', async () => {
    const apart = await startTestPlatform({ WORKER: 'off', LOG_LEVEL: 'warn' });
    const worker = await startWorkerCli(apart, { WORKER_METRICS_PORT: '0' });
    try {
      const url = /"metrics_url":"([^"]+)"/.exec(worker.output())?.[1];
      assert.ok(url, worker.output().slice(-2000));
      assert.equal((await fetch(url)).status, 401);
      await apart.adminPool.query(`select graphile_worker.add_job('realtime_prune', '{}'::json)`);
      let timed = 0;
      for (let i = 0; i < 100 && timed === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const res: Response = await fetch(url, { headers: { authorization: `Bearer ${apart.keys.serviceRoleKey}` } });
        assert.equal(res.status, 200);
        text = await res.text();
        parsePrometheusTextFormat(text);
        timed = histogramCount('pgbase_job_duration_seconds', { task: 'realtime_prune', outcome: 'succeeded' });
      }
      assert.equal(timed, 1, 'the worker timed the job it ran');
    } finally {
      await worker.kill();
      await stopTestPlatform(apart);
    }
  });
});
