// pgbase's OAuth consent page in Chromium (issue 49, items 4 and 5), as an
// MCP client's user meets it: the official MCP SDK client, refused by
// /api/mcp, discovers the authorization server, registers itself and opens
// /oauth/authorize in the browser; the page asks the user to sign in, shows
// what the client asks for (its name as text, whatever it holds), and Allow
// sends the browser to the client's loopback callback with the code; the
// client then lists tools as that user. Deny sends access_denied instead.
// The page passes axe, keeps its strict CSP, refuses to be framed, and works
// with the keyboard alone.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { aiApi, signUp } from '../../helpers/ai-api.ts';
import { openBrowser, type StudioPage } from '../../helpers/chromium.ts';
import { freePort } from '../../helpers/cluster.ts';
import { TestOAuthProvider } from '../../helpers/mcp-oauth-provider.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../../helpers/platform.ts';

describe('the OAuth consent page in Chromium', () => {
  let p: TestPlatform;
  let s: StudioPage;
  let callback: http.Server;
  const landed: URL[] = [];
  const redirect = () => `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  const { json, post, put } = aiApi(() => p);

  /** The MCP client's first attempt: refused, it registers and hands over the URL to open. */
  async function startSignIn(): Promise<TestOAuthProvider> {
    // A hostile name: shown as text on the page, never as markup.
    const provider = new TestOAuthProvider(redirect, '<img src=x onerror=alert(1)> Notes');
    await assert.rejects(new Client({ name: 'consent-test', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(new URL(`${p.url}/api/mcp`), { authProvider: provider })), UnauthorizedError);
    assert.ok(provider.opened);
    return provider;
  }

  before(async () => {
    callback = http.createServer((req, res) => {
      const url = new URL(req.url!, redirect());
      // The browser also asks for /favicon.ico: only the callback counts.
      if (url.pathname === '/callback') landed.push(url);
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end('<!doctype html><html lang="en"><title>Signed in</title><main><h1>You may close this window</h1></main></html>');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    p = await startTestPlatform({ WORKER: 'off', JWT_SIGNING_ALGORITHM: 'ES256', PORT: String(port), API_EXTERNAL_URL: `http://localhost:${port}` });
    const ann = (await signUp(p, 'consent-ann@example.com')).access_token;
    const { id } = await json<{ id: string }>(await post(ann, '/workflows', { name: 'greet' }), 201);
    await json(await put(ann, `/workflows/${id}/graph`, { blocks: [{ id: 'start', type: 'starter', config: {} }, { id: 'out', type: 'response', config: { output: 'hello' } }], edges: [{ source: 'start', target: 'out' }] }), 200);
    await json(await post(ann, `/workflows/${id}/deploy`, {}), 200);
    s = await openBrowser(p.url);
  });
  afterEach((t) => s.afterTest(t));
  after(async () => {
    await s?.close();
    await stopTestPlatform(p);
    callback.close();
  });

  it('signs the user in, shows the request as text, and Allow hands the MCP client its code', async () => {
    const provider = await startSignIn();
    const page = await s.page.goto(provider.opened!.toString());
    const headers = page!.headers();
    assert.match(headers['content-security-policy']!, /script-src 'self'.*frame-ancestors 'none'/);
    assert.equal(headers['x-frame-options'], 'DENY');
    await s.page.getByRole('heading', { name: 'Sign in to continue' }).waitFor();
    await s.axe('the consent page, signing in');
    await s.shot('consent-sign-in');
    // The keyboard alone: type, Tab, type, Enter.
    await s.page.getByLabel('E-mail').focus();
    await s.page.keyboard.type('consent-ann@example.com');
    await s.page.keyboard.press('Tab');
    await s.page.keyboard.type('a-good-password');
    await s.page.keyboard.press('Enter');

    await s.page.getByRole('heading', { name: '<img src=x onerror=alert(1)> Notes wants to access your account' }).waitFor();
    assert.equal(await s.page.locator('img').count(), 0, 'the client\'s name is text');
    await s.page.getByText('consent-ann@example.com').waitFor();
    assert.deepEqual(await s.page.getByRole('list', { name: 'What it asks for' }).getByRole('listitem').allTextContents(),
      ['See your e-mail address', 'Confirm who you are', 'See your phone number', 'See your name and picture']);
    await s.axe('the consent page, deciding');
    await s.shot('consent-decide');
    await s.page.getByRole('button', { name: 'Allow' }).click();
    await s.page.waitForURL((u) => u.pathname === '/callback');
    const back = landed.at(-1)!;
    assert.ok(back.searchParams.get('code'));

    const transport = new StreamableHTTPClientTransport(new URL(`${p.url}/api/mcp`), { authProvider: provider });
    await transport.finishAuth(back.searchParams.get('code')!);
    const client = new Client({ name: 'consent-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/api/mcp`), { authProvider: provider }));
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['workflow_greet']);
    await client.close();
  });

  it('Deny sends the browser back with access_denied; a page without a request says so', async () => {
    const provider = await startSignIn();
    await s.page.goto(provider.opened!.toString());
    // Signed in already (the session stays in this origin): straight to the decision.
    await s.page.getByRole('button', { name: 'Deny' }).click();
    await s.page.waitForURL((u) => u.pathname === '/callback');
    assert.equal(landed.at(-1)!.searchParams.get('error'), 'access_denied');

    await s.page.goto('/auth/v1/oauth/consent');
    await s.page.getByRole('heading', { name: 'This request cannot be completed' }).waitFor();
    await s.page.getByText('needs an authorization_id').waitFor();
    await s.axe('the consent page without a request');
  });
});
