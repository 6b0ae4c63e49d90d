// The control plane's OpenAPI document (issue 45, item 2): served without a
// session, equal to docs/platform-openapi.json, valid OpenAPI 3.1, naming
// the routes the control plane mounts (the Storage API's under v1/ among the
// storage router's own), and the Studio's client types generated from it
// (studio/src/api/platform/, a file per area) equal to what the document gives.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import express from 'express';
import { platformOpenApiFile, platformOpenApiText } from '../../server/cli/openapi.ts';
import { aiTypeFiles } from '../../server/cli/ai-types.ts';
import { aiPathsOf, aiTypesDir, studioTypeFileNames, studioTypeFiles, studioTypesDir } from '../../server/cli/studio-types.ts';
import { openApiDocument } from '../../server/openapi/document.ts';
import { mountedRoutes } from '../../server/openapi/mounted.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Document = { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

describe('the OpenAPI document of the control plane', () => {
  let p: TestPlatform;
  let served: Document;

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    const res = await fetch(`${p.platformUrl}/api/platform/openapi.json`);
    assert.equal(res.status, 200);
    served = (await res.json()) as Document;
  });
  after(() => stopTestPlatform(p));

  it('is the file npm run openapi writes, valid OpenAPI 3.1', async () => {
    assert.equal(readFileSync(platformOpenApiFile, 'utf8'), platformOpenApiText(), 'docs/platform-openapi.json is stale: run npm run openapi');
    assert.deepEqual(served, JSON.parse(platformOpenApiText()));
    const validator = new Validator();
    const verdict = await validator.validate(structuredClone(served));
    assert.equal(verdict.valid, true, JSON.stringify(verdict.errors));
    const refs = [...JSON.stringify(served).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(refs.filter((r) => !(r in served.components.schemas)), []);
  });

  it('generates the Studio\'s client types that studio/src/api/platform/ holds, one file per area', async () => {
    const files = await studioTypeFiles(served);
    assert.deepEqual(studioTypeFileNames(), [...files.keys()].sort(), 'studio/src/api/platform/ holds other files: run npm run openapi');
    for (const [name, text] of files) assert.equal(readFileSync(new URL(name, studioTypesDir), 'utf8'), text, `studio/src/api/platform/${name} is stale: run npm run openapi`);
    // A file per concept, none over 300 lines.
    assert.deepEqual(studioTypeFileNames(), ['api-keys.ts', 'authentication.ts', 'buckets.ts', 'columns.ts', 'cron.ts', 'database.ts', 'extensions.ts', 'index.ts', 'oauth-apps.ts', 'object-actions.ts', 'objects.ts', 'observe.ts', 'operators.ts',
      'policies.ts', 'queues.ts', 'rows.ts', 'schema-objects.ts', 'sign-in.ts', 'signing-keys.ts', 'snippets.ts', 'sql.ts', 'table.ts', 'tables.ts', 'users.ts']);
    for (const [name, text] of files) assert.ok(text.split('\n').length <= 300, `${name} is over 300 lines`);
  });

  it('generates the AI pages\' client types (studio/src/api/ai/) from the /api document\'s AI paths', async () => {
    const files = await aiTypeFiles(aiPathsOf(openApiDocument()));
    assert.deepEqual(studioTypeFileNames(aiTypesDir), [...files.keys()].sort(), 'studio/src/api/ai/ holds other files: run npm run openapi');
    for (const [name, text] of files) assert.equal(readFileSync(new URL(name, aiTypesDir), 'utf8'), text, `studio/src/api/ai/${name} is stale: run npm run openapi`);
    assert.ok(files.has('workflows.ts') && files.has('agents-run.ts') && files.has('knowledge-bases.ts') && files.has('components.ts'));
    // A file per concept (or a few small ones), none over 300 lines; each schema written once.
    for (const [name, text] of files) assert.ok(text.split('\n').length <= 300, `${name} is over 300 lines`);
    const written = [...files.values()].flatMap((t) => [...t.matchAll(/^  ([A-Za-z0-9_]+): \{$/gm)].map((m) => m[1]!)).filter((n) => /^[A-Z]/.test(n));
    assert.deepEqual(written.filter((n, i) => written.indexOf(n) !== i), [], 'no schema in two files');
    assert.ok(![...files.values()].some((t) => t.includes('"/api/v1/chat/completions"')), 'the OpenAI-compatible paths have clients of their own');
  });

  it('documents every route the control plane mounts, and each documented route exists', async () => {
    const { controlPlane } = await import('../../server/studio/index.ts');
    const plane = controlPlane({ config: p.config, keys: p.keys, adminPool: p.adminPool, adminUrl: p.adminUrl, storage: { service: { buckets: async () => [], upload: async () => ({ Id: '', Key: '' }) }, router: express.Router() }, ai: express.Router(), project: () => ({ ref: 'default', api_url: p.url, anon_key: p.keys.anonKey, platform_url: p.platformUrl }), realtimeUrl: () => '' });
    const norm = (path: string) => path.replace(/[:*](\w+)/g, '{$1}');
    const mounted = mountedRoutes('/api/platform', [plane.api]).map((r) => `${r.method} ${norm(r.path)}`);
    // The Storage API under v1/ is the storage router's own routes, as clients reach them at /storage/v1.
    const storageApi = p.routesUnder('/storage/v1').map((r) => `${r.method} ${norm(r.path).replace('/storage/v1', '/api/platform/storage/{ref}/v1')}`);
    const documented = Object.entries(served.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const isStorageApi = (r: string) => r.includes('/storage/{ref}/v1/');
    assert.deepEqual(mounted.filter((r) => !r.endsWith(' /api/platform/openapi.json') && !documented.includes(r)).sort(), [], 'mounted but not documented');
    assert.deepEqual(documented.filter((r) => !(isStorageApi(r) ? storageApi : mounted).includes(r)).sort(), [], 'documented but not mounted');
  });
});
