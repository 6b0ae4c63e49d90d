// The Observe page's figures (GET /api/platform/observe/{ref}): /metrics
// summed up for an operator, from the same registry, with no service key in
// the browser: requests and errors per surface with latency percentiles
// from the histogram's buckets, the job queue and runs by status; an
// operator's session needed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summarise } from '../../server/studio/observe.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { setupOperator, type Operator } from '../helpers/studio.ts';

type Observation = { surfaces: Array<{ surface: string; requests: number; client_errors: number; server_errors: number; p50_ms: number | null; p95_ms: number | null }>; jobs: unknown[]; runs: unknown[] };

describe('Studio: the server\'s figures for the Observe page', () => {
  let p: TestPlatform;
  let op: Operator;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    op = await setupOperator(p);
  });
  after(() => stopTestPlatform(p));

  it('counts requests and errors per surface, with percentiles, as /metrics has them', async () => {
    const before = await op.json<Observation>('/api/platform/observe/default', 200);
    const rest = (s: Observation) => s.surfaces.find((x) => x.surface === 'rest') ?? { requests: 0, client_errors: 0, server_errors: 0 };
    for (let i = 0; i < 3; i++) await (await fetch(`${p.url}/rest/v1/no_such_table`, { headers: { apikey: p.keys.anonKey } })).text();
    const after = await op.json<Observation>('/api/platform/observe/default', 200);
    assert.equal(rest(after).requests - rest(before).requests, 3);
    assert.equal(rest(after).client_errors - rest(before).client_errors, 3, 'each a 404');
    const row = after.surfaces.find((x) => x.surface === 'rest')!;
    assert.ok(row.p50_ms !== null && row.p95_ms !== null && row.p50_ms <= row.p95_ms);
    assert.ok(Array.isArray(after.jobs) && Array.isArray(after.runs));
    assert.equal((await fetch(`${p.platformUrl}/api/platform/observe/default`)).status, 401, 'an operator\'s session is needed');
  });

  it('reads a percentile as the bound of the bucket it falls under', () => {
    const h = (le: string, value: number) => ({ labels: { surface: 'auth', le }, value, metricName: 'pgbase_http_request_duration_seconds_bucket' });
    const out = summarise([
      { name: 'pgbase_http_requests_total', values: [{ labels: { surface: 'auth', status: 200 }, value: 90 }, { labels: { surface: 'auth', status: 503 }, value: 10 }] },
      { name: 'pgbase_http_request_duration_seconds', values: [h('0.005', 40), h('0.05', 90), h('0.5', 99), h('+Inf', 100), { labels: { surface: 'auth' }, value: 100, metricName: 'pgbase_http_request_duration_seconds_count' }] },
    ]);
    assert.deepEqual(out.surfaces, [{ surface: 'auth', requests: 100, client_errors: 0, server_errors: 10, p50_ms: 50, p95_ms: 500, p99_ms: 500 }]);
  });
});
