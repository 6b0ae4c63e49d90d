// Agents in Chromium, against the tests' scripted model vendor: an agent made
// in the Studio (model from the catalogue, a tool assigned, an approval on
// it); a chat in the playground that streams, shows the tool call with its
// arguments and result, and waits on the approval, answered from a second
// tab and ended in both; tokens and cost per message; the run's timeline
// with its model calls and cost; the session kept, reopened (its tool calls
// and approval rebuilt from the run's events) and deleted; an MCP server's
// tools listed; a custom tool tried from its schema's form; an answer's
// markdown rendered sanitised; an orchestration's delegations, live and
// after a reload.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { StudioPage } from '../../helpers/chromium.ts';
import { query } from '../../helpers/db.ts';
import { startMcp } from '../../helpers/mcp-server.ts';
import { GOOD_KEY, startVendorServer, type VendorServer } from '../../helpers/openai-server.ts';
import type { StudioServer } from '../../helpers/studio-process.ts';
import { storeOpenAiKey, studioSuite } from '../../helpers/studio-suite.ts';

describe('Studio in Chromium: agents and the playground', () => {
  let server: StudioServer;
  let s: StudioPage;
  let vendor: VendorServer;
  let mcp: Awaited<ReturnType<typeof startMcp>>;
  // A custom tool's vendor: echoes the arguments it was sent.
  let echo: http.Server;
  let echoUrl = '';
  let agentUrl = '';
  before(async () => {
    vendor = await startVendorServer();
    mcp = await startMcp();
    echo = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ forecast: 'sunny', asked: JSON.parse(body || 'null') })));
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/weather`;
  });
  after(async () => {
    await vendor.close();
    await mcp.close();
    echo.close();
  });
  studioSuite({
    env: () => ({ ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' }),
    prepare: storeOpenAiKey,
  }, (run) => ({ server, s } = run));

  it('makes an agent with a tool that needs an approval', async () => {
    await s.page.goto('/agents');
    await s.page.getByLabel('New agent').fill('Careful');
    await s.page.getByLabel('Model').fill('gpt-4.1-mini');
    await s.page.getByRole('button', { name: 'Create' }).click();
    await s.page.getByRole('heading', { name: /Careful/ }).waitFor();
    agentUrl = new URL(s.page.url()).pathname;
    await s.page.getByRole('combobox', { name: /^Tool/ }).selectOption('code_execute');
    await s.page.getByRole('button', { name: 'Assign' }).click();
    await s.page.getByRole('button', { name: 'Remove code_execute' }).waitFor();
    await s.page.getByLabel('Tool (empty: every tool)').fill('code_execute');
    await s.page.getByLabel('Question').fill('Run this code?');
    await s.page.getByRole('button', { name: 'Add approval' }).click();
    await s.page.getByText('PreToolUse · approval · code_execute').waitFor();
    // An MCP server added, asked for its tools, and taken away again (the agent's runs then offer no tools of it).
    await s.page.getByLabel('MCP server name').fill('docs');
    await s.page.getByLabel('URL', { exact: true }).fill(`${mcp.base}/mcp`);
    await s.page.getByRole('button', { name: 'Add MCP server' }).click();
    await s.page.getByText('Tools of docs').click();
    const listed = s.page.getByRole('list', { name: 'Tools of docs' });
    await listed.getByText('docs__add').waitFor();
    await listed.getByText('Adds two numbers').waitFor();
    assert.equal(await listed.getByRole('listitem').count(), 3, 'add, fail and slow');
    await s.axe('an agent\'s MCP server with its tools');
    await s.shot('agent-mcp-tools');
    await s.page.getByRole('button', { name: 'Remove the MCP server docs' }).click();
    await s.page.getByRole('button', { name: 'Remove the MCP server docs' }).waitFor({ state: 'detached' });
    await s.axe('an agent\'s page');
    // Each change the operator made, in the audit log under the operator, as the method and path only.
    const audited = await query<{ target: string }>(server.databaseUrl, `select target from studio.audit_log where action = 'ai_change' order by id`);
    assert.deepEqual(audited.map((a) => a.target.replace(/[0-9a-f-]{36}/g, ':id')), ['POST /agents', 'POST /agents/:id/tools', 'POST /agents/:id/hooks', 'POST /agents/:id/mcp-servers', 'DELETE /agents/:id/mcp-servers/:id']);
  });

  it('chats: the tool call waits on an approval given in a second tab, and the answer ends in both with its tokens and cost', async () => {
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'c1', name: 'code_execute', arguments: { code: 'return 6 * 7' } }] },
      { text: 'The answer is 42.', usage: { prompt_tokens: 160, completion_tokens: 8 } });
    await s.page.getByLabel('Message').fill('What is six times seven? Use code.');
    await s.page.keyboard.press('Enter');
    const approval = s.page.getByRole('group', { name: 'Approval' });
    await approval.getByText('Run this code? Tool code_execute:').waitFor();
    await s.page.waitForURL(/\/sessions\//);
    await s.shot('playground-approval');

    const other = await s.context.newPage();
    await other.goto(s.page.url());
    const theirs = other.getByRole('group', { name: 'Approval' });
    await theirs.getByRole('button', { name: 'Approve' }).click();
    await theirs.getByText('Answered: approved').waitFor();

    await approval.getByText('Answered: approved').waitFor();
    const conversation = s.page.getByRole('list', { name: 'Conversation' });
    await conversation.getByText('The answer is 42.').waitFor();
    await other.getByRole('list', { name: 'Conversation' }).getByText('The answer is 42.').waitFor();
    await other.close();
    const tool = conversation.locator('details.tool-call');
    await tool.locator('summary').click();
    await tool.getByText('"code": "return 6 * 7"').waitFor();
    await tool.getByText('"result": 42').waitFor();
    const meta = await conversation.getByText(/^\d+ in \/ \d+ out tokens · \$0\.\d+/).textContent();
    const [tokensIn, tokensOut] = /^(\d+) in \/ (\d+) out/.exec(meta ?? '')!.slice(1).map(Number);
    assert.ok(tokensIn! >= 160 && tokensOut! >= 8, `both model calls' tokens (${meta})`);
    await s.axe('the playground after an answer');
    await s.shot('playground');
  });

  it('opens the run\'s timeline with its model calls, tool call and cost', async () => {
    await s.page.getByRole('link', { name: 'timeline' }).click();
    await s.page.getByRole('heading', { name: /Agent run/ }).waitFor();
    await s.page.getByTestId('run-status').getByText('completed').waitFor();
    const timeline = s.page.getByRole('table', { name: /Timeline/ });
    assert.ok(await timeline.locator('tr[data-kind="model_call"]').count() >= 2, 'both model calls');
    await timeline.locator('tr[data-kind="tool_call"]').first().waitFor();
    assert.match(await s.page.getByTestId('run-cost').textContent() ?? '', /^\$0\.0*[1-9]/);
    await s.axe('an agent run\'s page');
    await s.page.goto(`${agentUrl}/runs`);
    await s.page.getByRole('status').getByText(/^1 of 1 runs, 0 failed, \$0\.0*[1-9]/).waitFor();
    await s.axe('an agent\'s run history');
  });

  it('shows the run\'s tokens on the usage page (chart and tables), the key masked, and a setting refused with the server\'s words', async () => {
    await s.page.goto('/ai/usage');
    const totals = s.page.getByTestId('usage-totals');
    await totals.getByText(/^[1-9]\d* model calls, [1-9]\d* tokens in/).waitFor();
    const today = new Date().toISOString().slice(0, 10);
    const chart = s.page.getByRole('img', { name: /^Tokens per day:/ });
    assert.match(await chart.getAttribute('aria-label') ?? '', new RegExp(`${today} [1-9]\\d* tokens`), 'today\'s bar holds the run\'s tokens');
    const byAgent = s.page.getByRole('table', { name: 'By agent' });
    await byAgent.getByRole('rowheader', { name: 'Careful' }).waitFor();
    await s.axe('the usage page');
    await s.shot('usage');

    await s.page.getByRole('link', { name: 'Provider keys' }).click();
    await s.page.getByRole('heading', { name: 'Provider keys' }).waitFor();
    const row = s.page.getByRole('row').filter({ has: s.page.getByRole('rowheader', { name: 'openai', exact: true }) });
    const masked = (await row.getByRole('cell').first().textContent()) ?? '';
    assert.ok(masked.length > 0 && masked.length < GOOD_KEY.length && !masked.includes(GOOD_KEY.slice(8, 20)), `shown masked: ${masked}`);
    await s.axe('the provider keys');

    await s.page.getByRole('navigation', { name: 'AI' }).getByRole('link', { name: 'Settings' }).click();
    await s.page.getByRole('heading', { name: 'AI settings' }).waitFor();
    await s.page.getByRole('textbox', { name: 'COPILOT_MAX_STEPS' }).fill('-5');
    await s.page.getByRole('button', { name: 'Save COPILOT_MAX_STEPS' }).click();
    await s.page.getByRole('row').filter({ has: s.page.getByRole('textbox', { name: 'COPILOT_MAX_STEPS' }) }).getByRole('alert').waitFor();
    await s.axe('the settings registry');
  });

  it('keeps the session: reopened from the list with its tool call and approval, then deleted', async () => {
    await s.page.goto(agentUrl);
    const sessions = s.page.getByRole('navigation', { name: 'Sessions' });
    await sessions.getByRole('link', { name: /six times seven/ }).click();
    const conversation = s.page.getByRole('list', { name: 'Conversation' });
    await conversation.getByText('The answer is 42.').waitFor();
    // Rebuilt from the run's stored events: what the session's messages do not hold.
    await conversation.getByRole('group', { name: 'Approval' }).getByText('Answered: approved').waitFor();
    await conversation.locator('details.tool-call summary').click();
    await conversation.locator('details.tool-call').getByText('"result": 42').waitFor();
    await sessions.getByRole('button', { name: /^Delete the session/ }).click();
    await s.page.getByText('Session deleted').waitFor();
    await sessions.getByRole('button', { name: /^Delete the session/ }).waitFor({ state: 'detached' });
  });

  it('makes an orchestration with a member and shows its delegation under the answer', async () => {
    await s.page.goto('/agents');
    await s.page.getByLabel('New agent').fill('helper');
    await s.page.getByLabel('Model').fill('gpt-4.1-mini');
    await s.page.getByRole('button', { name: 'Create' }).click();
    await s.page.getByRole('heading', { name: /helper/ }).waitFor();
    await s.page.goto('/orchestrations');
    await s.page.getByLabel('New orchestration').fill('Desk');
    await s.page.getByLabel('Model').fill('gpt-4.1-mini');
    await s.page.getByRole('button', { name: 'Create' }).click();
    await s.page.getByRole('heading', { name: /Desk/ }).waitFor();
    await s.page.getByRole('combobox', { name: /^Agent/ }).selectOption({ label: 'helper' });
    await s.page.getByLabel('Role').fill('Answers greetings');
    await s.page.getByRole('button', { name: 'Add member' }).click();
    await s.page.getByRole('button', { name: 'Remove helper' }).waitFor();
    vendor.reset();
    vendor.script({ toolCalls: [{ id: 'd1', name: 'delegate_to_helper', arguments: { task: 'say hello' } }] }, { text: 'Hello from the helper.' }, { text: 'The helper says hello.' });
    await s.page.getByLabel('Message').fill('Greet me through your team');
    await s.page.keyboard.press('Enter');
    const conversation = s.page.getByRole('list', { name: 'Conversation' });
    await conversation.getByText('The helper says hello.').waitFor();
    const tree = conversation.getByRole('list', { name: 'Delegations' });
    await tree.getByText('helper', { exact: true }).waitFor();
    await tree.getByText(/say hello/).waitFor();
    await tree.getByText('Hello from the helper.').waitFor(); // the member's own answer, streamed under its delegation
    await s.axe('an orchestration\'s playground');
    await s.shot('orchestration-playground');
    // Reopened (a reload of the session's address): the tree is rebuilt from the run's events.
    await s.page.waitForURL(/\/sessions\//);
    await s.page.reload();
    const reopened = s.page.getByRole('list', { name: 'Conversation' }).getByRole('list', { name: 'Delegations' });
    await reopened.getByText('Hello from the helper.').waitFor();
    await reopened.getByText(/say hello/).waitFor();
  });

  it('renders an answer\'s markdown sanitised: formatting kept, HTML and scripts dropped, links safe, outside images never loaded', async () => {
    const outside: string[] = [];
    s.page.on('request', (r) => { if (!r.url().startsWith(new URL(s.page.url()).origin) && !r.url().startsWith('data:')) outside.push(r.url()); });
    await s.page.goto(agentUrl);
    vendor.reset();
    vendor.script({ text: [
      '**Bold claim** and a [safe link](https://example.com/docs) and a [trap](javascript:alert(1)).',
      '', '<script>window.pwned = 1</script>', '', '<img src="https://evil.example/x.png" onerror="window.pwned = 2">', '',
      '![tracker](https://evil.example/pixel.png)', '', '| city | temp |', '| --- | --- |', '| Oslo | 3 |',
    ].join('\n') });
    await s.page.getByLabel('Message').fill('Format something');
    await s.page.keyboard.press('Enter');
    const answer = s.page.getByRole('list', { name: 'Conversation' }).locator('.chat-answer').last();
    await answer.locator('strong', { hasText: 'Bold claim' }).waitFor();
    const safe = answer.getByRole('link', { name: 'safe link' });
    assert.equal(await safe.getAttribute('rel'), 'noopener noreferrer');
    assert.equal(await safe.getAttribute('target'), '_blank');
    assert.ok(!((await answer.getByText('trap').getAttribute('href')) ?? '').startsWith('javascript'), 'a javascript: address is not kept');
    await answer.getByText('[image: tracker]').waitFor();
    await answer.getByRole('table').getByRole('cell', { name: 'Oslo' }).waitFor();
    assert.equal(await answer.locator('img, script').count(), 0, 'no image or script element');
    assert.equal(await s.page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined, 'nothing ran');
    assert.deepEqual(outside, [], 'nothing was fetched from outside the machine');
    await s.axe('an answer in markdown');
    await s.shot('playground-markdown');
  });

  it('tries a custom tool from a form of its input schema', async () => {
    await s.page.goto('/ai/tools');
    await s.page.getByLabel('Name').fill('weather');
    await s.page.getByLabel('Description').fill('The weather in a city');
    await s.page.getByLabel('Endpoint (HTTPS)').fill(echoUrl);
    await s.page.getByLabel('Input schema (JSON Schema)').fill(JSON.stringify({ type: 'object', properties: { city: { type: 'string', description: 'A city' }, days: { type: 'integer' }, filters: { type: 'object' } }, required: ['city'] }));
    await s.page.getByRole('button', { name: 'Create tool' }).click();
    await s.page.getByRole('rowheader', { name: 'weather' }).waitFor();
    await s.page.getByRole('combobox', { name: /^Tool/ }).selectOption({ label: 'weather' });
    await s.page.getByLabel('city (required)').fill('Oslo');
    await s.page.getByLabel('days', { exact: true }).fill('2');
    await s.page.getByRole('button', { name: 'Call it' }).click();
    const answer = s.page.getByRole('status', { name: 'Tool answer' });
    await answer.getByText(/^Answered in \d+ ms$/).waitFor();
    assert.deepEqual(JSON.parse(await answer.locator('pre').textContent() ?? ''), { forecast: 'sunny', asked: { city: 'Oslo', days: 2 } });
    // The server checks the arguments against the schema, and its words are shown.
    await s.page.getByLabel('filters', { exact: true }).fill('[1]');
    await s.page.getByRole('button', { name: 'Call it' }).click();
    await s.page.getByRole('alert').getByText("arguments do not match the tool's input_schema: /filters must be object").waitFor();
    await s.axe('the tools page with a tried tool');
    await s.shot('tool-try');
  });
});
