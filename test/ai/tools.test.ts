// /api/tools over HTTP (spec 2.5, 4.11): the eight builtins with their input
// schemas, custom tool CRUD with part 7's validation, and the access model:
// project tools (service role) readable by users, users' own tools private to
// them, changes only by the owner; a custom tool tried outside a run. Also
// GET /api/config/kb-defaults.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { signUp } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Tool = { id?: string; name: string; description: string; type?: string; input_schema: Record<string, unknown>; config?: Record<string, unknown>; tool_type: string; owner_id?: string | null };

describe('AI tools (/api/tools) and kb-defaults', () => {
  let p: TestPlatform;
  let ann: string;
  let bob: string;
  const headers = (token: string) => ({ apikey: token === p.keys.serviceRoleKey ? token : p.keys.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const api = (token: string, path: string, init: RequestInit = {}) => fetch(`${p.url}/api${path}`, { ...init, headers: headers(token) });
  const create = async (token: string, body: Record<string, unknown>) => api(token, '/tools', { method: 'POST', body: JSON.stringify(body) });
  const tool = { name: 'weather', description: 'Current weather for a city', type: 'http', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

  // The tool's vendor: echoes what it was sent, its headers included.
  let vendor: http.Server;
  let base: string;
  before(async () => {
    vendor = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url!.startsWith('/fail')) return void res.writeHead(502).end('upstream down');
        if (req.url!.startsWith('/slow')) return void setTimeout(() => res.writeHead(200).end('late'), 5000).unref();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, url: req.url, key: req.headers['x-tool-key'] ?? null, body: body ? JSON.parse(body) : null }));
      });
    });
    await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
    p = await startTestPlatform({ WORKER: 'off', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
    ann = (await signUp(p, 'ann@example.com')).access_token;
    bob = (await signUp(p, 'bob@example.com')).access_token;
  });
  after(async () => {
    await stopTestPlatform(p);
    vendor.close();
  });

  it('lists the eight builtin tools with their input schemas, then custom tools', async () => {
    const res = await api(p.keys.serviceRoleKey, '/tools');
    assert.equal(res.status, 200);
    const tools = (await res.json()) as Tool[];
    assert.deepEqual(tools.filter((t) => t.tool_type === 'builtin').map((t) => t.name),
      ['database_query', 'database_write', 'http_request', 'code_execute', 'storage_read', 'storage_write', 'web_search', 'web_scrape']);
    for (const t of tools) {
      assert.ok(t.description.length > 20, t.name);
      assert.equal(t.input_schema.type, 'object', t.name);
      assert.ok(Array.isArray(t.input_schema.required), t.name);
    }
  });

  it('creates, reads, updates and deletes a custom tool, keeping only the spec’s fields', async () => {
    const res = await create(p.keys.serviceRoleKey, { ...tool, config: { endpoint: 'https://example.com/w', method: 'GET', timeout_seconds: 5 }, endpoint_url: 'https://dropped', method: 'PUT', headers: { x: 'y' } });
    assert.equal(res.status, 201);
    const made = (await res.json()) as Tool & Record<string, unknown>;
    assert.equal(made.owner_id, null, 'made with the service-role key: a project tool');
    assert.deepEqual(made.config, { endpoint: 'https://example.com/w', method: 'GET', timeout_seconds: 5 });
    for (const dropped of ['endpoint_url', 'method', 'headers']) assert.ok(!(dropped in made), `${dropped} is dropped`);
    const got = await api(p.keys.serviceRoleKey, `/tools/${made.id}`);
    assert.deepEqual({ ...(await got.json()) as object }, made);
    const put = await api(p.keys.serviceRoleKey, `/tools/${made.id}`, { method: 'PUT', body: JSON.stringify({ description: 'Weather now', type: 'x'.repeat(50) }) });
    assert.equal(put.status, 200);
    const updated = (await put.json()) as Tool;
    assert.deepEqual([updated.name, updated.description, updated.type], ['weather', 'Weather now', 'x'.repeat(50)]);
    assert.equal((await api(p.keys.serviceRoleKey, `/tools/${made.id}`, { method: 'PUT', body: JSON.stringify({ endpoint_url: 'x' }) })).status, 400, 'nothing updatable');
    const listed = (await (await api(p.keys.serviceRoleKey, '/tools')).json()) as Tool[];
    assert.equal(listed.at(-1)!.id, made.id, 'custom tools come after the builtins');
    assert.equal((await api(p.keys.serviceRoleKey, `/tools/${made.id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await api(p.keys.serviceRoleKey, `/tools/${made.id}`)).status, 404);
    assert.equal((await api(p.keys.serviceRoleKey, `/tools/${made.id}`, { method: 'DELETE' })).status, 404);
    assert.equal((await api(p.keys.serviceRoleKey, '/tools/not-a-uuid')).status, 404);
  });

  it('answers 400 {error} for each missing or bad field; input_schema is not validated as a schema', async () => {
    for (const missing of ['name', 'description', 'type', 'input_schema']) {
      const body: Record<string, unknown> = { ...tool };
      delete body[missing];
      const res = await create(p.keys.serviceRoleKey, body);
      assert.equal(res.status, 400, missing);
      assert.deepEqual(await res.json(), { error: missing === 'input_schema' ? 'input_schema: input_schema is required (a JSON Schema object)' : `${missing}: ${missing} is required` });
    }
    assert.equal((await create(p.keys.serviceRoleKey, { ...tool, type: 'x'.repeat(51) })).status, 400, 'type is at most 50 characters');
    assert.equal((await create(p.keys.serviceRoleKey, { ...tool, input_schema: { type: 'nonsense', properties: 5 } })).status, 201, 'any object is accepted as input_schema');
    const noBody = await fetch(`${p.url}/api/tools`, { method: 'POST', headers: { ...headers(p.keys.serviceRoleKey), 'content-type': 'text/plain' }, body: 'x' });
    assert.equal(noBody.status, 400);
  });

  it('applies the access model: users read project tools and their own, and change only their own', async () => {
    const project = (await (await create(p.keys.serviceRoleKey, { ...tool, name: 'project-tool' })).json()) as Tool;
    const annTool = (await (await create(ann, { ...tool, name: 'ann-tool' })).json()) as Tool;
    assert.ok(annTool.owner_id, 'a user’s tool is theirs');
    const annSees = ((await (await api(ann, '/tools')).json()) as Tool[]).filter((t) => t.tool_type === 'custom').map((t) => t.name);
    const bobSees = ((await (await api(bob, '/tools')).json()) as Tool[]).filter((t) => t.tool_type === 'custom').map((t) => t.name);
    assert.ok(annSees.includes('project-tool') && annSees.includes('ann-tool'));
    assert.ok(bobSees.includes('project-tool') && !bobSees.includes('ann-tool'), 'bob does not see ann’s tool');
    assert.equal((await api(bob, `/tools/${annTool.id}`)).status, 404, 'another user’s tool is not found');
    assert.equal((await api(bob, `/tools/${annTool.id}`, { method: 'PUT', body: JSON.stringify({ name: 'stolen' }) })).status, 404);
    assert.equal((await api(bob, `/tools/${annTool.id}`, { method: 'DELETE' })).status, 404);
    const onProject = await api(ann, `/tools/${project.id}`, { method: 'PUT', body: JSON.stringify({ name: 'mine now' }) });
    assert.equal(onProject.status, 403);
    assert.deepEqual(await onProject.json(), { error: 'You can only change your own tools' });
    assert.equal((await api(ann, `/tools/${project.id}`, { method: 'DELETE' })).status, 403);
    assert.equal((await api(ann, `/tools/${annTool.id}`, { method: 'PUT', body: JSON.stringify({ name: 'ann-tool-2' }) })).status, 200);
    assert.equal((await api(p.keys.serviceRoleKey, `/tools/${annTool.id}`, { method: 'DELETE' })).status, 200, 'the service role changes anything');
    assert.equal((await fetch(`${p.url}/api/tools`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${p.keys.anonKey}` } })).status, 403, 'the anon key alone is refused');
  });

  it('tries a custom tool outside a run: arguments checked against its schema, called as the caller with its sealed headers', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'] };
    const made = (await (await create(ann, { ...tool, name: 'ann-weather', input_schema: schema, config: { endpoint: `${base}/weather`, headers: { 'x-tool-key': 'sealed-k' } } })).json()) as Tool;
    assert.equal((made.config!.headers as Record<string, string>)['x-tool-key'] === 'sealed-k', false, 'the header is shown masked to its owner');
    const tryIt = (token: string, id: string, body: unknown) => api(token, `/tools/${id}/try`, { method: 'POST', body: JSON.stringify(body) });

    const ok = await tryIt(ann, made.id!, { arguments: { city: 'Oslo', days: 2 } });
    assert.equal(ok.status, 200);
    const answer = (await ok.json()) as { ok: boolean; output: string; truncated: boolean; duration_ms: number };
    assert.equal(answer.ok, true);
    assert.equal(answer.truncated, false);
    assert.ok(Number.isInteger(answer.duration_ms) && answer.duration_ms >= 0);
    assert.deepEqual(JSON.parse(answer.output), { method: 'POST', url: '/weather', key: 'sealed-k', body: { city: 'Oslo', days: 2 } }, 'the vendor got the arguments and the decrypted header');

    const wrong = await tryIt(ann, made.id!, { arguments: { days: 0 } });
    assert.equal(wrong.status, 400);
    assert.deepEqual(await wrong.json(), { error: "arguments do not match the tool's input_schema: arguments must have required property 'city'" });
    const typed = await tryIt(ann, made.id!, { arguments: { city: 'Oslo', days: 'two' } });
    assert.deepEqual(await typed.json(), { error: "arguments do not match the tool's input_schema: /days must be integer" });
    const noArgs = await tryIt(ann, made.id!, { city: 'Oslo' });
    assert.equal(noArgs.status, 400);
    assert.deepEqual(await noArgs.json(), { error: 'arguments: arguments must be an object (the values the model would send)' });

    assert.equal((await tryIt(bob, made.id!, { arguments: { city: 'Oslo' } })).status, 404, 'another user cannot try (or see) ann’s tool');
    assert.equal((await tryIt(ann, '00000000-0000-4000-8000-000000000000', { arguments: {} })).status, 404);
  });

  it('answers a failing, blocked or schema-less try as the model would read it, never as a 500', async () => {
    const failing = (await (await create(p.keys.serviceRoleKey, { ...tool, name: 'failing', config: { endpoint: `${base}/fail` } })).json()) as Tool;
    const res = await api(ann, `/tools/${failing.id}/try`, { method: 'POST', body: JSON.stringify({ arguments: { city: 'Oslo' } }) });
    assert.equal(res.status, 200, 'a project tool is tried by a user');
    const body = (await res.json()) as { ok: boolean; error: string };
    assert.equal(body.ok, false);
    assert.equal(body.error, 'failing answered HTTP 502: upstream down');

    const metadata = (await (await create(p.keys.serviceRoleKey, { ...tool, name: 'metadata', config: { endpoint: 'http://169.254.169.254/latest/meta-data' } })).json()) as Tool;
    const blocked = (await (await api(ann, `/tools/${metadata.id}/try`, { method: 'POST', body: JSON.stringify({ arguments: { city: 'x' } }) })).json()) as { ok: boolean; error: string };
    assert.equal(blocked.ok, false);
    assert.match(blocked.error, /169\.254\.169\.254|not allowed|private/i, 'the outbound address check applies');

    const slow = (await (await create(p.keys.serviceRoleKey, { ...tool, name: 'slow', config: { endpoint: `${base}/slow`, timeout_seconds: 0.3 } })).json()) as Tool;
    const timed = (await (await api(ann, `/tools/${slow.id}/try`, { method: 'POST', body: JSON.stringify({ arguments: { city: 'x' } }) })).json()) as { ok: boolean; error: string; duration_ms: number };
    assert.equal(timed.ok, false);
    assert.ok(timed.duration_ms < 3000, `the tool's timeout ends the try (${timed.duration_ms} ms)`);

    const bad = (await (await create(p.keys.serviceRoleKey, { ...tool, name: 'bad-schema', input_schema: { type: 'nonsense' }, config: { endpoint: `${base}/x` } })).json()) as Tool;
    const refused = await api(ann, `/tools/${bad.id}/try`, { method: 'POST', body: JSON.stringify({ arguments: {} }) });
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { error: string }).error, /^input_schema: the schema cannot be used/);
  });

  it('reports knowledge-base defaults from SQL, following the settings', async () => {
    const res = await api(ann, '/config/kb-defaults');
    assert.equal(res.status, 200);
    const d = (await res.json()) as any;
    assert.deepEqual(Object.keys(d).sort(), ['enrichment', 'extraction', 'hybrid_vector_weight', 'query_enrichment', 'reranker', 'strategies']);
    assert.deepEqual(Object.keys(d.strategies).sort(), ['chunk_embed', 'doc2json', 'full_document', 'graph_index', 'page_index']);
    for (const s of Object.values(d.strategies) as any[]) {
      assert.deepEqual(Object.keys(s).sort(), ['compatible_retrievers', 'default_indexing_config', 'default_retrieval_config', 'default_retrieval_method', 'label', 'retriever_labels', 'supports_reranker']);
      assert.ok(s.compatible_retrievers.includes(s.default_retrieval_method));
      assert.deepEqual(Object.keys(s.retriever_labels).sort(), [...s.compatible_retrievers].sort());
    }
    assert.deepEqual(d.strategies.chunk_embed.default_indexing_config, { chunk_size: 512, overlap: 64, embedding_model: 'text-embedding-3-small' });
    assert.deepEqual(d.extraction.fallback_chain, ['text', 'ocr', 'vision']);
    assert.equal(d.hybrid_vector_weight, 0.5);
    assert.deepEqual(d.reranker, { default_model: 'gpt-4.1-mini', candidate_count: 20, options: ['none', 'llm'] });
    await api(p.keys.serviceRoleKey, '/settings', { method: 'PUT', body: JSON.stringify({ settings: { CHUNK_EMBED_DEFAULT_CHUNK_SIZE: '800', HYBRID_DEFAULT_VECTOR_WEIGHT: '0.7' } }) });
    const after = (await (await api(ann, '/config/kb-defaults')).json()) as any;
    assert.equal(after.strategies.chunk_embed.default_indexing_config.chunk_size, 800, 'defaults follow the settings');
    assert.equal(after.hybrid_vector_weight, 0.7);
    assert.equal(after.strategies.chunk_embed.default_retrieval_config.vector_weight, 0.7);
  });
});
