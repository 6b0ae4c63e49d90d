// MCP clients sign users in by themselves (issue 49, item 5): the official
// MCP SDK client, given nothing but /api/mcp's URL and an OAuth client
// provider, is refused with 401 and a WWW-Authenticate naming the protected
// resource metadata (RFC 9728), discovers pgbase's authorization server from
// it, registers itself (RFC 7591), sends the user to authorize with PKCE;
// the user approves on the consent step (auth-js, as the consent page does);
// the client exchanges the code and then lists and calls tools as that user,
// under the same access model as a token pasted by hand.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { aiApi, signUp } from '../helpers/ai-api.ts';
import { freePort } from '../helpers/cluster.ts';
import { TestOAuthProvider } from '../helpers/mcp-oauth-provider.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const REDIRECT = 'http://127.0.0.1:9/mcp-callback';

describe('MCP clients sign in through the OAuth server', () => {
  let p: TestPlatform;
  let ann: string;
  const clients: Client[] = [];
  const { json, post, put } = aiApi(() => p);
  const mcpUrl = () => `${p.url}/api/mcp`;

  before(async () => {
    const port = await freePort();
    p = await startTestPlatform({ WORKER: 'off', JWT_SIGNING_ALGORITHM: 'ES256', PORT: String(port), API_EXTERNAL_URL: `http://localhost:${port}` });
    ann = (await signUp(p, 'ann-mcp-oauth@example.com')).access_token;
    const { id } = await json<{ id: string }>(await post(ann, '/workflows', { name: 'greet' }), 201);
    await json(await put(ann, `/workflows/${id}/graph`, { blocks: [{ id: 'start', type: 'starter', config: {} }, { id: 'out', type: 'response', config: { output: 'hello' } }], edges: [{ source: 'start', target: 'out' }] }), 200);
    await json(await post(ann, `/workflows/${id}/deploy`, {}), 200);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await stopTestPlatform(p);
  });

  it('answers a request without credentials with 401 and the protected resource metadata', async () => {
    const res = await fetch(mcpUrl(), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }) });
    assert.equal(res.status, 401);
    const metadataUrl = `${p.url}/.well-known/oauth-protected-resource/api/mcp`;
    assert.equal(res.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}"`);
    assert.deepEqual(await res.json(), { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No API key found in request' } });
    const bad = await fetch(mcpUrl(), { method: 'POST', headers: { authorization: 'Bearer not-a-token' } });
    assert.equal(bad.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}", error="invalid_token"`);
    const metadata = await (await fetch(metadataUrl)).json();
    assert.deepEqual(metadata, { resource: mcpUrl(), authorization_servers: [`${p.url}/auth/v1`], scopes_supported: ['openid', 'email', 'profile', 'phone'], bearer_methods_supported: ['header'], resource_name: 'pgbase MCP server' });
  });

  it('the SDK client discovers, registers, is approved by the user and lists tools as that user', async () => {
    const provider = new TestOAuthProvider(() => REDIRECT);
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider })), UnauthorizedError);
    assert.ok(provider.info?.client_id, 'it registered itself');
    const authorize = provider.opened!;
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${p.url}/auth/v1/oauth/authorize`);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('resource'), mcpUrl());

    // The browser: authorize sends it to the consent page, where the signed-in user approves.
    const toConsent = await fetch(authorize, { redirect: 'manual' });
    assert.equal(toConsent.status, 302);
    const authorizationId = new URL(toConsent.headers.get('location')!).searchParams.get('authorization_id')!;
    const user = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
    await user.auth.signInWithPassword({ email: 'ann-mcp-oauth@example.com', password: 'a-good-password' });
    const details = await user.auth.oauth.getAuthorizationDetails(authorizationId);
    assert.ok(details.data && 'client' in details.data && details.data.client.name === 'Test MCP client');
    const approved = await user.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true });
    const code = new URL(approved.data!.redirect_url).searchParams.get('code')!;

    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider });
    await transport.finishAuth(code);
    assert.equal(decodeJwt(provider.saved!.access_token).client_id, provider.info!.client_id);
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider }));
    clients.push(client);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['workflow_greet'], 'the user\'s own tools');
    const run = await client.callTool({ name: 'workflow_greet', arguments: {} });
    assert.equal((run.structuredContent as { output: string }).output, 'hello');

    // A user who revokes the grant ends the client's session: its refresh token no longer works.
    await user.auth.oauth.revokeGrant({ clientId: provider.info!.client_id });
    const refreshed = await fetch(`${p.url}/auth/v1/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: provider.saved!.refresh_token!, client_id: provider.info!.client_id }) });
    assert.equal(refreshed.status, 400);
  });
});
