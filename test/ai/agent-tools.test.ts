// The agent tool runner (server/ai/agents/tools/run.ts) against the real
// platform: database tools through the REST engine as the user (RLS) and
// limited to the assignment's schemas, http_request through the SSRF guard,
// code_execute in the sandbox, storage tools under storage policies, custom
// HTTP tools, config_override forcing arguments, DEFAULT_MAX_RESULT_CHARS,
// MAX_TOOL_OUTPUT_LENGTH, and
// failures as tool errors. Agent runs over HTTP use this same runner.
import { PROJECT, userActor } from '../../server/ai/actor.ts';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { AssignedTool, ToolResult } from '../../server/ai/tools/runner.ts';
import { signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('agent tools (the runner agent runs use)', () => {
  let p: TestPlatform;
  let server: http.Server;
  let base: string;
  let ann: string;
  let bob: string;
  let vendor: VendorServer;
  // A 1x1 PNG, the page's one real picture.
  const logo = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==', 'base64');
  const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const builtin = (name: string, override: Record<string, unknown> = {}): AssignedTool => ({ kind: 'builtin', name, override });
  const run = (tool: AssignedTool, args: unknown, userId: string | null) => p.ai.tools.run(tool, args, { actor: userId ? userActor(userId) : PROJECT }, new AbortController().signal);
  const output = (r: ToolResult) => {
    assert.ok(r.ok, r.ok ? '' : r.error);
    return JSON.parse(r.output) as unknown;
  };
  const failure = (r: ToolResult) => {
    assert.ok(!r.ok, 'the call fails as a tool error');
    return r.error;
  };

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        // The web providers' protocols: Tavily's search, Firecrawl's scrape.
        if (req.url === '/search') {
          if (req.headers.authorization !== 'Bearer search-key') return void res.writeHead(401).end('bad key');
          const { query, max_results: max } = JSON.parse(body) as { query: string; max_results: number };
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
            results: Array.from({ length: 3 }, (_, i) => ({ title: `${query} ${i}`, url: `https://r${i}.example`, content: `about ${query}`, score: 1 })).slice(0, max),
          }));
        }
        if (req.url === '/v1/scrape') {
          const { url } = JSON.parse(body) as { url: string };
          if (url.includes('missing')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, error: 'page not found' }));
          if (url.includes('pictures')) {
            const markdown = `# Pictures\n![Logo](${base}/img/logo.png)\n![Notes](${base}/img/notes.txt)\n![Relative](/img/far.png "far")\n![Logo again](${base}/img/logo.png)\n![Fourth](${base}/img/fourth.png)`;
            return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: { markdown, metadata: { title: 'Pictures' } } }));
          }
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: { markdown: `# Page\n${'m'.repeat(3000)}`, metadata: { title: 'A page' } } }));
        }
        if (req.url === '/img/logo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(logo);
        if (req.url === '/img/notes.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('not a picture');
        if (req.url!.startsWith('/fail')) return void res.writeHead(500).end('broken');
        if (req.url!.startsWith('/big')) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, url: req.url, body: body ? JSON.parse(body) : null }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    vendor = await startVendorServer();
    p = await startTestPlatform({ WORKER: 'off', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1', REST_SCHEMAS: 'public,app', SEARCH_API_BASE: base, ...vendor.env });
    await storeOpenAiKey(p);
    ann = (await signUp(p, 'ann-tools@example.com')).user.id;
    bob = (await signUp(p, 'bob-tools@example.com')).user.id;
    await p.adminPool.query(`
      create table public.notes (id int generated by default as identity primary key, owner uuid not null default auth.uid(), body text not null);
      alter table public.notes enable row level security;
      create policy own on public.notes for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
      create schema app;
      grant usage on schema app to authenticated, service_role;
      create table app.orders (id int primary key, total int);
      create table app.secrets (id int primary key, value text);
      grant select on app.orders, app.secrets to authenticated;
      insert into app.orders values (1, 10);
      insert into app.secrets values (1, 'hidden');
      insert into storage.buckets (id, name) values ('docs', 'docs');
      create policy docs_own on storage.objects for all to authenticated
        using (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text)
        with check (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text);
      notify pgrst, 'reload schema';`);
    await p.adminPool.query(`insert into public.notes (owner, body) values ($1, 'ann note'), ($2, 'bob note')`, [ann, bob]);
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${p.url}/rest/v1/orders`, { headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'Accept-Profile': 'app' } });
      if (res.status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => {
    await stopTestPlatform(p);
    server.close();
    await vendor?.close();
  });

  it('database_query reads as the user: RLS applies, and only the assignment’s schemas and tables are reachable', async () => {
    assert.deepEqual(output(await run(builtin('database_query'), { table: 'notes', select: 'body' }, ann)), [{ body: 'ann note' }]);
    assert.deepEqual(output(await run(builtin('database_query'), { table: 'public.notes', select: 'body' }, bob)), [{ body: 'bob note' }], 'bob sees only his row');
    assert.deepEqual(output(await run(builtin('database_query'), { table: 'notes', select: 'body', order: 'id.asc' }, null)), [{ body: 'ann note' }, { body: 'bob note' }], 'a run without a user acts as the project');
    assert.deepEqual(output(await run(builtin('database_query'), { table: 'notes', select: 'body', filters: { body: 'eq.nothing' } }, ann)), []);
    assert.match(failure(await run(builtin('database_query'), { table: 'app.orders' }, ann)), /Schema app is not available/, 'public only without an override');
    const orders = builtin('database_query', { schemas: { app: ['orders'] } });
    assert.deepEqual(output(await run(orders, { table: 'app.orders' }, ann)), [{ id: 1, total: 10 }]);
    assert.match(failure(await run(orders, { table: 'app.secrets' }, ann)), /app\.secrets is not available/);
    assert.match(failure(await run(orders, { table: 'notes' }, ann)), /Schema public is not available/);
    assert.deepEqual(output(await run(builtin('database_query', { schemas: { app: [] } }), { table: 'app.secrets', select: 'value' }, ann)), [{ value: 'hidden' }], 'an empty list opens the whole schema');
    assert.match(failure(await run(builtin('database_query'), { table: 'notes; drop table notes' }, ann)), /Invalid table name/);
    assert.match(failure(await run(builtin('database_query'), { table: 'missing_table' }, ann)), /database_query failed: .*missing_table/);
    assert.match(failure(await run(builtin('database_query'), {}, ann)), /table is required/);
  });

  it('database_write inserts, updates and deletes as the user, needs filters to update or delete, and cannot reach other users’ rows', async () => {
    const write = builtin('database_write');
    const [made] = output(await run(write, { table: 'notes', operation: 'insert', rows: [{ body: 'from the agent' }] }, ann)) as Array<{ id: number; owner: string }>;
    assert.equal(made!.owner, ann, 'owned by the running user');
    assert.match(failure(await run(write, { table: 'notes', operation: 'delete' }, ann)), /needs filters/);
    assert.match(failure(await run(write, { table: 'notes', operation: 'update', values: { body: 'x' } }, ann)), /needs filters/);
    assert.deepEqual(output(await run(write, { table: 'notes', operation: 'update', values: { body: 'hijacked' }, filters: { body: 'eq.bob note' } }, ann)), [], 'bob’s row is invisible to ann');
    assert.equal((output(await run(write, { table: 'notes', operation: 'update', values: { body: 'edited' }, filters: { id: `eq.${made!.id}` } }, ann)) as unknown[]).length, 1);
    assert.match(failure(await run(write, { table: 'notes', operation: 'insert', rows: [{ body: 'forged', owner: bob }] }, ann)), /row-level security/);
    assert.match(failure(await run(write, { table: 'notes', operation: 'upsert' }, ann)), /insert, update or delete/);
    assert.equal((output(await run(write, { table: 'notes', operation: 'delete', filters: { id: `eq.${made!.id}` } }, ann)) as unknown[]).length, 1);
    const { rows } = await p.adminPool.query('select body from public.notes order by id');
    assert.deepEqual(rows.map((r: { body: string }) => r.body), ['ann note', 'bob note']);
  });

  it('http_request calls out through the SSRF guard, with config_override forcing its arguments', async () => {
    const res = output(await run(builtin('http_request'), { url: `${base}/echo?q=1`, method: 'POST', body: { a: 1 } }, ann)) as { status: number; body: { method: string; body: unknown } };
    assert.deepEqual([res.status, res.body.method, res.body.body], [200, 'POST', { a: 1 }]);
    assert.match(failure(await run(builtin('http_request'), { url: 'http://10.0.0.1/' }, ann)), /private address/);
    assert.match(failure(await run(builtin('http_request'), { url: 'file:///etc/passwd' }, ann)), /http and https/);
    const forced = builtin('http_request', { url: `${base}/only-here`, method: 'GET' });
    const got = output(await run(forced, { url: 'https://elsewhere.example/', method: 'DELETE' }, ann)) as { body: { method: string; url: string } };
    assert.deepEqual([got.body.method, got.body.url], ['GET', '/only-here'], 'the override wins over the model');
  });

  it('code_execute runs in the sandbox with inputs; storage tools read and write as the user under storage policies', async () => {
    assert.deepEqual(output(await run(builtin('code_execute'), { code: 'console.log("hi"); return inputs.a * 2', inputs: { a: 21 } }, ann)), { result: 42, logs: ['hi'] });
    assert.match(failure(await run(builtin('code_execute'), { code: 'return process.env' }, ann)), /process/);
    assert.match(failure(await run(builtin('code_execute'), { code: 'while (true) {}', timeout_ms: 50 }, ann)), /time|timed out|longer/i);

    const written = output(await run(builtin('storage_write'), { bucket: 'docs', path: `${ann}/plan.txt`, content: 'step one' }, ann)) as { key: string };
    assert.equal(written.key, `docs/${ann}/plan.txt`);
    assert.match(failure(await run(builtin('storage_write'), { bucket: 'docs', path: `${bob}/planted.txt`, content: 'x' }, ann)), /row-level security|Unauthorized|policy/i);
    const read = output(await run(builtin('storage_read'), { bucket: 'docs', path: `${ann}/plan.txt` }, ann)) as { text: string; content_type: string };
    assert.deepEqual([read.text, read.content_type], ['step one', 'text/plain']);
    assert.match(failure(await run(builtin('storage_read'), { bucket: 'docs', path: `${ann}/plan.txt` }, bob)), /not found/i, 'bob cannot read ann’s file');
    const listed = output(await run(builtin('storage_read'), { bucket: 'docs', path: `${ann}/` }, ann)) as Array<{ name: string }>;
    assert.deepEqual(listed.map((o) => o.name), ['plan.txt']);
  });

  it('custom HTTP tools call their endpoint with their method and headers; failures and missing providers are tool errors', async () => {
    const custom: AssignedTool = { kind: 'custom', name: 'lookup', config: { endpoint: `${base}/lookup`, method: 'POST', headers: { 'x-tool-key': 'k1' }, timeout_seconds: 5 } };
    seen.length = 0;
    const res = output(await run(custom, { city: 'Oslo' }, ann)) as { body: unknown };
    assert.deepEqual(res.body, { city: 'Oslo' });
    assert.equal(seen[0]!.headers['x-tool-key'], 'k1');
    const get = output(await run({ kind: 'custom', name: 'g', config: { endpoint: `${base}/lookup`, method: 'GET' } }, { city: 'Oslo' }, ann)) as { url: string };
    assert.equal(get.url, '/lookup?city=Oslo', 'GET sends the arguments as the query');
    assert.match(failure(await run({ kind: 'custom', name: 'broken', config: { endpoint: `${base}/fail` } }, {}, ann)), /broken answered HTTP 500: broken/);
    assert.match(failure(await run({ kind: 'custom', name: 'nowhere', config: {} }, {}, ann)), /no config\.endpoint/);
    assert.match(failure(await run(builtin('web_search'), { query: 'x' }, ann)), /SEARCH_API_KEY/);
    assert.match(failure(await run(builtin('web_scrape'), { url: 'https://example.com' }, ann)), /CRAWL_API_KEY/);
    assert.match(failure(await run(builtin('no_such_tool'), {}, ann)), /Unknown tool/);
  });

  const setSettings = async (settings: Record<string, string>) => {
    const put = await fetch(`${p.url}/api/settings`, { method: 'PUT', headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ settings }) });
    assert.equal(put.status, 200, await put.text());
  };

  it('web_search and web_scrape call their providers with the keys from settings; provider failures are tool errors', async () => {
    await setSettings({ SEARCH_API_KEY: 'search-key', CRAWL_API_KEY: 'crawl-key', CRAWL_API_BASE: base, WEB_SCRAPE_MAX_CHARS: '1000' });
    seen.length = 0;
    const found = output(await run(builtin('web_search'), { query: 'postgres', max_results: 2 }, ann)) as Array<{ title: string; url: string }>;
    assert.deepEqual(found.map((r) => r.title), ['postgres 0', 'postgres 1']);
    const page = output(await run(builtin('web_scrape'), { url: 'https://example.com/a' }, ann)) as { title: string; markdown: string; truncated: boolean };
    assert.deepEqual([page.title, page.markdown.length, page.truncated], ['A page', 1000, true], 'cut at WEB_SCRAPE_MAX_CHARS');
    const scrapeCall = seen.find((c) => c.url === '/v1/scrape')!;
    assert.equal(scrapeCall.headers.authorization, 'Bearer crawl-key');
    assert.deepEqual(JSON.parse(scrapeCall.body), { url: 'https://example.com/a', formats: ['markdown'] });
    assert.match(failure(await run(builtin('web_scrape'), { url: 'https://example.com/missing' }, ann)), /could not scrape .*page not found/);

    // Images: the first WEB_SCRAPE_MAX_IMAGES distinct ones, fetched through the guard and described by VISION_MODEL.
    await setSettings({ WEB_SCRAPE_MAX_IMAGES: '3', VISION_MODEL: 'gpt-4.1-mini' });
    vendor.reset();
    vendor.script({ text: 'A single pixel logo.' });
    const pictures = output(await run(builtin('web_scrape'), { url: 'http://127.0.0.1:9/pictures' }, ann)) as { images: Array<{ url: string; alt: string; description?: string; error?: string }> };
    assert.deepEqual(pictures.images.map((i) => [i.alt, i.description ?? null]), [['Logo', 'A single pixel logo.'], ['Notes', null], ['Relative', null]]);
    assert.equal(pictures.images[0]!.url, `${base}/img/logo.png`);
    assert.match(pictures.images[1]!.error!, /not an image the model reads \(text\/plain\)/);
    assert.equal(pictures.images[2]!.url, 'http://127.0.0.1:9/img/far.png', 'relative to the page');
    assert.ok(pictures.images[2]!.error, 'an unreachable image is listed with its error');
    const [vision] = vendor.chats();
    assert.equal(vendor.chats().length, 1, 'one model call: the one image that could be read');
    assert.equal(vision!.body.model, 'gpt-4.1-mini');
    assert.equal(vision!.body.messages[0].content[1].image_url.url, `data:image/png;base64,${logo.toString('base64')}`);
    const { rows: usage } = await p.adminPool.query(`select user_id, feature, step from ai.usage where feature = 'tools'`);
    assert.deepEqual(usage, [{ user_id: ann, feature: 'tools', step: 'web_scrape-image-1' }], 'recorded in the ledger as the user\'s');
    // Inside a run, the call counts under the run's own ledger context.
    vendor.script({ text: 'Again the logo.' });
    const inRun = await p.ai.tools.run(builtin('web_scrape'), { url: 'http://127.0.0.1:9/pictures' }, { actor: userActor(ann), usage: { userId: ann, feature: 'agent', runId: 'run-42' } }, new AbortController().signal);
    assert.ok(inRun.ok);
    const { rows: counted } = await p.adminPool.query(`select feature, run_id, step from ai.usage where run_id = 'run-42'`);
    assert.deepEqual(counted, [{ feature: 'agent', run_id: 'run-42', step: 'web_scrape-image-1' }]);
    await setSettings({ WEB_SCRAPE_MAX_IMAGES: '0' });
    assert.equal('images' in (output(await run(builtin('web_scrape'), { url: 'http://127.0.0.1:9/pictures' }, ann)) as object), false, '0 describes none');
    await setSettings({ SEARCH_API_KEY: 'wrong-key' });
    assert.match(failure(await run(builtin('web_search'), { query: 'x' }, ann)), /HTTP 401 \(check the key/);
    await setSettings({ CRAWL_API_BASE: 'http://127.0.0.1:9' });
    assert.match(failure(await run(builtin('web_scrape'), { url: 'https://example.com/a' }, ann)), /could not be reached/);
  });

  it('keeps database and storage results within DEFAULT_MAX_RESULT_CHARS: whole rows, and text cut with truncated', async () => {
    await p.adminPool.query(`insert into public.notes (owner, body) select $1, 'long note ' || g from generate_series(1, 40) g`, [ann]);
    await run(builtin('storage_write'), { bucket: 'docs', path: `${ann}/long.txt`, content: 'y'.repeat(900) }, ann);
    await setSettings({ DEFAULT_MAX_RESULT_CHARS: '300' });
    const cut = output(await run(builtin('database_query'), { table: 'notes', select: 'body', order: 'id.asc', limit: 100 }, ann)) as { rows: Array<{ body: string }>; truncated: boolean; rows_read: number; note: string };
    assert.equal(cut.truncated, true);
    assert.equal(cut.rows_read, 41, 'ann reads her 41 notes under RLS');
    assert.ok(JSON.stringify(cut.rows).length <= 300 && cut.rows.length > 0, 'as many whole rows as fit');
    assert.deepEqual(cut.rows.slice(0, 2), [{ body: 'ann note' }, { body: 'long note 1' }]);
    assert.equal(JSON.stringify([...cut.rows, { body: `long note ${cut.rows.length}` }]).length > 300, true, 'the next row would not have fitted');
    assert.match(cut.note, new RegExp(`^${cut.rows.length} of 41 rows: the result is cut at DEFAULT_MAX_RESULT_CHARS \\(300\\)`));
    assert.deepEqual(output(await run(builtin('database_query'), { table: 'notes', select: 'body', filters: { body: 'eq.ann note' } }, ann)), [{ body: 'ann note' }], 'a result that fits is returned as it is');
    const text = output(await run(builtin('storage_read'), { bucket: 'docs', path: `${ann}/long.txt`, max_chars: 5000 }, ann)) as { text: string; truncated: boolean };
    assert.deepEqual([text.text.length, text.truncated], [300, true], 'max_chars cannot go past the setting');
    const asked = output(await run(builtin('storage_read'), { bucket: 'docs', path: `${ann}/long.txt`, max_chars: 50 }, ann)) as { text: string; truncated: boolean };
    assert.deepEqual([asked.text.length, asked.truncated], [50, true]);
    await setSettings({ DEFAULT_MAX_RESULT_CHARS: '50000' });
  });

  it('cuts output at MAX_TOOL_OUTPUT_LENGTH', async () => {
    await setSettings({ MAX_TOOL_OUTPUT_LENGTH: '1000' });
    const r = await run({ kind: 'custom', name: 'big', config: { endpoint: `${base}/big`, method: 'GET' } }, {}, ann);
    assert.ok(r.ok && r.truncated);
    assert.equal(r.output, `${'x'.repeat(1000)}\n[output cut at 1000 characters]`);
  });
});
