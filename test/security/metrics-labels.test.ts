// /metrics labels come from the mounted route templates, never from what a
// client sends (containment round 2, item 2). Before: 1,000 requests to
// /api/knowledge-bases/<non-UUID id>/sources added 1,000 route labels,
// 14,500-character ids made every later scrape fail with 500, and upper-
// and lower-case spellings of the surface prefixes each made a series.
// Now an id is `:id` whatever it looks like, a path no route matched is one
// label per surface, the surface prefix is read without case, a model name
// is a label only up to a cap, and past METRICS_MAX_SERIES the route is
// `<surface>:other`; every scrape parses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Family = ReturnType<typeof parsePrometheusTextFormat>[number];

describe('/metrics labels under a label flood', () => {
  let p: TestPlatform;
  const scrape = async (): Promise<Family[]> => {
    const res = await fetch(`${p.url}/metrics`, { headers: { authorization: `Bearer ${p.keys.serviceRoleKey}` } });
    const text = await res.text();
    assert.equal(res.status, 200, text.slice(0, 300));
    return parsePrometheusTextFormat(text);
  };
  const requestSeries = async () => (await scrape()).find((f) => f.name === 'pgbase_http_requests_total')!.metrics.map((m) => m.labels as { surface: string; route: string; method: string; status: string });
  /** Requests in parallel batches of 50. */
  const flood = async (urls: string[], headers: Record<string, string>) => {
    for (let i = 0; i < urls.length; i += 50) {
      await Promise.all(urls.slice(i, i + 50).map(async (u) => (await fetch(u, { headers })).arrayBuffer()));
    }
  };

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', METRICS_MAX_SERIES: '60' });
  });
  after(() => stopTestPlatform(p));

  it('labels any id as :id, however long, and the scrape still parses', async () => {
    const service = { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` };
    await flood(Array.from({ length: 500 }, (_, i) => `${p.url}/api/knowledge-bases/not-a-uuid-${i}/sources`), service);
    await flood(Array.from({ length: 100 }, (_, i) => `${p.url}/api/knowledge-bases/${String(i).padEnd(14_500, 'x')}/sources`), service);
    const kb = (await requestSeries()).filter((l) => l.route.includes('knowledge-bases'));
    assert.deepEqual([...new Set(kb.map((l) => l.route))], ['/api/knowledge-bases/:id/sources']);
    assert.ok(kb.length <= 3, `one series per method and status: ${JSON.stringify(kb)}`);
  });

  it('reads the surface prefix without case, with only the anon key', async () => {
    const anon = { apikey: p.keys.anonKey };
    const spellings = ['/api/agents', '/API/agents', '/Api/Agents', '/aPi/aGeNtS', '/REST/v1/items', '/Rest/V1/items', '/AUTH/v1/settings', '/Storage/V1/bucket', '/API/V1/models', '/Api/Mcp'];
    await flood(spellings.flatMap((s) => [`${p.url}${s}`, `${p.url}${s}/${crypto.randomUUID()}`, `${p.url}${s}/zz${Math.random()}`]), anon);
    const series = await requestSeries();
    const surfaces = new Set(series.map((l) => l.surface));
    for (const s of surfaces) assert.match(s, /^(rest|auth|storage|realtime|graphql|openai|mcp|ai|platform|metrics|health|other)$/);
    for (const l of series) assert.equal(l.route, l.route.toLowerCase(), `a route label is the template's own spelling: ${l.route}`);
    assert.ok(series.length <= 60 + 40, `${series.length} series`);
  });

  it('caps the series: past METRICS_MAX_SERIES a route is <surface>:other, and scrapes keep parsing', async () => {
    const service = { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` };
    // Many real templates with many statuses: more distinct label sets than the cap.
    const paths = ['/api/agents', '/api/workflows', '/api/tools', '/api/sessions', '/api/sources', '/api/settings', '/api/orchestrations', '/api/context-handlers', '/api/usage', '/api/knowledge-bases', '/auth/v1/settings', '/auth/v1/user', '/storage/v1/bucket'];
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT']) {
      await Promise.all(paths.flatMap((path) => [path, `${path}/${crypto.randomUUID()}`]).map(async (path) => (await fetch(`${p.url}${path}`, { method, headers: { ...service, 'content-type': 'application/json' }, body: method === 'GET' ? null : '{}' })).arrayBuffer()));
    }
    const series = await requestSeries();
    const distinct = new Set(series.map((l) => JSON.stringify([l.surface, l.route, l.method, l.status])));
    assert.ok(series.some((l) => l.route.endsWith(':other')), 'some routes fell under <surface>:other');
    const named = series.filter((l) => !l.route.endsWith(':other'));
    assert.ok(new Set(named.map((l) => JSON.stringify([l.surface, l.route, l.method, l.status]))).size <= 60, `named series stay within the cap: ${distinct.size}`);
  });
});
