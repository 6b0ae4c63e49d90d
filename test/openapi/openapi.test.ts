// The OpenAPI document of /api (issue 30, item 1): served without a key,
// equal to docs/openapi.json, valid OpenAPI 3.1 by a real validator, naming
// every route the server mounts under /api (and nothing else), browsable at
// /api/docs with nothing fetched from outside; and a typed client generated
// from it (test/openapi/api.ts, openapi-fetch) drives one flow per surface.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiFile, openApiText } from '../../server/cli/openapi.ts';
import { signUp, storeOpenAiKey } from '../helpers/ai-api.ts';
import { startVendorServer, type VendorServer } from '../helpers/openai-server.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { clientTypes, typesFile } from './client-types.ts';
import { conformance } from './conformance.ts';
import { agentFlow, knowledgeFlow, moreFlow, surveyFlow, typedClient, workflowFlow, type TypedClient } from './flows.ts';

type Document = { openapi: string; paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>>; components: { schemas: Record<string, unknown> } };

describe('the OpenAPI document of /api', () => {
  let p: TestPlatform;
  let vendor: VendorServer;
  let served: Document;

  before(async () => {
    vendor = await startVendorServer();
    p = await startTestPlatform({ ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' });
    await storeOpenAiKey(p);
    const res = await fetch(`${p.url}/api/openapi.json`);
    assert.equal(res.status, 200, 'GET /api/openapi.json answers with no key at all');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    served = (await res.json()) as Document;
  });
  after(async () => {
    await stopTestPlatform(p);
    await vendor.close();
  });

  it('is the file npm run openapi writes, and the code builds', () => {
    assert.equal(readFileSync(openApiFile, 'utf8'), openApiText(), 'docs/openapi.json is stale: run npm run openapi');
    assert.deepEqual(served, JSON.parse(openApiText()));
  });

  it('passes a real OpenAPI 3.1 validator, and every $ref names a schema it holds', async () => {
    const validator = new Validator();
    const verdict = await validator.validate(structuredClone(served));
    assert.equal(validator.version, '3.1');
    assert.equal(verdict.valid, true, JSON.stringify(verdict.errors));
    const refs = [...JSON.stringify(served).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(refs.length > 100);
    assert.deepEqual(refs.filter((r) => !(r in served.components.schemas)), []);
  });

  it('lists exactly the routes the server mounts under /api', () => {
    const mounted = p.routesUnder('/api').map((r) => `${r.method} ${r.path.replace(/[:*](\w+)/g, '{$1}')}`).sort();
    const documented = Object.entries(served.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)).sort();
    assert.ok(mounted.length > 130, `found ${mounted.length} routes`);
    assert.deepEqual(mounted.filter((r) => !documented.includes(r)), [], 'mounted but not documented');
    assert.deepEqual(documented.filter((r) => !mounted.includes(r)), [], 'documented but not mounted');
  });

  it('describes security, errors in each surface\'s shape, and streams as text/event-stream', () => {
    const op = (path: string, method: string) => served.paths[path]![method]!;
    assert.deepEqual(op('/api/agents', 'post').security, [{ apikey: [], bearer: [] }]);
    assert.deepEqual(op('/api/v1/chat/completions', 'post').security, [{ bearer: [] }, { apikey: [], bearer: [] }]);
    assert.deepEqual(op('/api/webhooks/{webhookId}', 'post').security, [{ webhookSecret: [] }, { webhookToken: [] }]);
    assert.deepEqual(op('/api/openapi.json', 'get').security, []);
    // An error answer is named from components.responses, stated there once.
    type Answer = { $ref?: string; content: Record<string, { schema: { $ref: string } }> };
    const answerOf = (path: string, method: string, status: string): Answer => {
      const stated = op(path, method).responses[status] as Answer;
      return stated.$ref ? ((served as unknown as { components: unknown }).components as { responses: Record<string, Answer> }).responses[stated.$ref.replace('#/components/responses/', '')]! : stated;
    };
    const schemaOf = (path: string, method: string, status: string, type = 'application/json') => answerOf(path, method, status).content[type]!.schema.$ref;
    assert.equal(schemaOf('/api/agents/{id}', 'get', '404'), '#/components/schemas/Error');
    assert.equal(schemaOf('/api/workflows/{id}/graph', 'put', '400'), '#/components/schemas/CodedError');
    assert.equal(schemaOf('/api/v1/chat/completions', 'post', '404'), '#/components/schemas/OpenAiError');
    assert.equal(schemaOf('/api/webhooks/{webhookId}', 'post', '401'), '#/components/schemas/WebhookUnauthorized');
    assert.equal(schemaOf('/api/agents/{id}/run/stream', 'post', '200', 'text/event-stream'), '#/components/schemas/RunEvent');
    assert.equal(schemaOf('/api/workflows/{id}/execute/stream', 'post', '200', 'text/event-stream'), '#/components/schemas/WorkflowEvent');
    assert.equal(schemaOf('/api/v1/chat/completions', 'post', '200', 'text/event-stream'), '#/components/schemas/CreateChatCompletionEvent');
    // The request schemas are the routes' own: the agent's name rule as the route validates it.
    assert.deepEqual((served.components.schemas.CreateAgentBody as { required: string[] }).required, ['name']);
    assert.equal((served.components.schemas.CreateAgentBody as { properties: { name: { maxLength: number } } }).properties.name.maxLength, 200);
  });

  it('serves the reference page and its assets without a key, fetching nothing from outside', async () => {
    const page = await fetch(`${p.url}/api/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    assert.doesNotMatch(html, /https?:\/\//, 'no CDN');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(assets.sort(), ['/api/docs/favicon-32x32.png', '/api/docs/start.js', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css']);
    for (const asset of assets) {
      const res = await fetch(`${p.url}${asset}`);
      assert.equal(res.status, 200, asset);
      if (asset.endsWith('start.js')) {
        const start = await res.text();
        assert.match(start, /url: "\/api\/openapi\.json"/);
        assert.match(start, /validatorUrl: null/, 'Swagger UI\'s online validator badge is off');
      } else await res.arrayBuffer();
    }
    const other = await fetch(`${p.url}/api/docs/index.html`);
    assert.equal(other.status, 401, 'only the page\'s own assets are open');
  });

  it('still asks for a key everywhere else under /api', async () => {
    const res = await fetch(`${p.url}/api/agents`);
    assert.equal(res.status, 401);
  });

  it('generates the typed client\'s types that test/openapi/api.ts holds', async () => {
    assert.equal(readFileSync(typesFile, 'utf8'), await clientTypes(served), 'test/openapi/api.ts is stale: run npm run openapi');
  });

  describe('a typed client generated from it (openapi-fetch over test/openapi/api.ts), as a signed-in user', () => {
    let check: ReturnType<typeof conformance>;
    let api: TypedClient;
    const made = { agent: '', run: '', session: '', workflow: '', execution: '', source: '', kb: '' };
    before(async () => {
      check = conformance(served as never);
      api = typedClient(p.url, p.keys.anonKey, (await signUp(p, 'typed-client@example.com')).access_token, check.middleware);
    });

    it('creates an agent and runs it', async () => {
      vendor.script({ text: 'Typed hello.' });
      const { agent, run } = await agentFlow(api);
      assert.equal(run.output, 'Typed hello.');
      assert.equal(run.status, 'completed');
      Object.assign(made, { agent, run: run.run_id, session: run.session_id });
    });

    it('saves a workflow graph and executes it', async () => {
      const { workflow, result } = await workflowFlow(api);
      assert.equal(result.status, 'succeeded');
      assert.deepEqual(result.output, { greeting: 'Hello Ada!' });
      Object.assign(made, { workflow, execution: result.execution_id });
    });

    it('uploads a source, indexes it in a knowledge base and searches it', async () => {
      const { source, kb, results } = await knowledgeFlow(api);
      assert.ok(results.some((r) => 'text' in r && /kerosene/.test(String(r.text))), JSON.stringify(results));
      Object.assign(made, { source, kb });
    });

    it('gets answers that match the document\'s response schemas, on every surface it reads', async () => {
      await surveyFlow(api, made);
      await moreFlow(api, made);
      assert.deepEqual(check.findings, []);
      assert.ok(check.checked.length > 80, `${check.checked.length} answers checked`);
    });
  });
});
