// Workflows in Chromium: a three-block workflow (starter, code, response)
// built on the canvas with the mouse (a block dragged from the palette, an
// edge drawn handle to handle) and with the keyboard (blocks added from the
// palette, an edge connected from the block's panel); the code written in
// CodeMirror; a cycle drawn and the server's verdict pinned to the block it
// names, then undone; the run watched on the canvas block by block, and a
// block's output and logs opened.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StudioPage } from '../../helpers/chromium.ts';
import { query } from '../../helpers/db.ts';
import { eventually } from '../../helpers/eventually.ts';
import { startVendorServer, type VendorServer } from '../../helpers/openai-server.ts';
import type { StudioServer } from '../../helpers/studio-process.ts';
import { storeOpenAiKey, studioSuite } from '../../helpers/studio-suite.ts';

describe('Studio in Chromium: workflows on a canvas', () => {
  let server: StudioServer;
  let s: StudioPage;
  const block = (id: string) => s.page.locator(`.block-node[data-block="${id}"]`);
  const panel = () => s.page.locator('.block-panel');
  const saved = () => s.page.getByRole('toolbar', { name: 'Workflow actions' }).getByText('All changes saved').waitFor();
  type Saved = { blocks: Array<{ id: string; type: string; config: Record<string, unknown> }>; edges: Array<{ source: string; target: string }> };
  const graphOf = async (name: string) => (await query<{ g: Saved }>(server.databaseUrl, 'select ai.graph_json(id) as g from ai.workflows where name = $1', [name]))[0]!.g;

  let vendor: VendorServer;
  before(async () => {
    vendor = await startVendorServer();
  });
  after(() => vendor.close());
  studioSuite({
    env: () => ({ ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' }),
    prepare: storeOpenAiKey,
  }, (run) => ({ server, s } = run));
  before(async () => {
    await s.page.goto('/workflows');
    await s.page.getByRole('heading', { name: 'Workflows' }).waitFor();
  });

  it('builds starter → code → response with the mouse and the keyboard, saved as it goes', async () => {
    await s.page.getByLabel('New workflow').fill('Greeter');
    await s.page.getByRole('button', { name: 'Create' }).click();
    await s.page.getByRole('heading', { name: /Greeter/ }).waitFor();
    // The mouse: Start dragged from the palette onto the canvas.
    await s.page.getByRole('button', { name: 'Add Start' }).dragTo(s.page.locator('.react-flow__pane'), { targetPosition: { x: 120, y: 160 } });
    await block('starter').waitFor();
    // The keyboard: Code and Response added from the palette.
    await s.page.getByRole('button', { name: 'Add Code' }).focus();
    await s.page.keyboard.press('Enter');
    await block('code').waitFor();
    await s.page.getByRole('button', { name: 'Add Response' }).focus();
    await s.page.keyboard.press('Space');
    await block('response').waitFor();
    await s.page.getByRole('button', { name: 'Auto-layout' }).click();
    // The mouse: an edge drawn from Start's out handle to Code's in handle.
    await s.page.locator('.react-flow__handle.source[data-nodeid="starter"]').dragTo(s.page.locator('.react-flow__handle.target[data-nodeid="code"]'));
    await s.page.locator('[aria-label="Edge from starter to code"]').waitFor();
    // Code's settings: its JavaScript in CodeMirror, and an edge to Response from the panel, by keyboard.
    await block('code').click();
    const code = panel().getByRole('textbox', { name: 'code' });
    await code.click();
    await s.page.keyboard.insertText("console.log('greeting', variables.name);\nreturn { greeting: 'Hello ' + variables.name + '!' };");
    await panel().getByLabel('Connect to').focus();
    await panel().getByLabel('Connect to').selectOption('response');
    await s.page.keyboard.press('Tab');
    await s.page.keyboard.press('Enter');
    await panel().getByRole('button', { name: 'Remove the edge to response' }).waitFor();
    await block('response').click();
    const output = panel().getByLabel('output', { exact: true });
    await output.fill('{"greeting": "<code.greeting>"}');
    await s.page.keyboard.press('Tab');
    await saved();
    const graph = await graphOf('Greeter');
    assert.deepEqual(graph.blocks.map((b) => [b.id, b.type]), [['starter', 'starter'], ['code', 'code'], ['response', 'response']]);
    assert.deepEqual(graph.edges, [{ source: 'starter', target: 'code' }, { source: 'code', target: 'response' }]);
    assert.match(String(graph.blocks[1]!.config.code), /return \{ greeting: 'Hello ' \+ variables\.name \+ '!' \};/);
    assert.deepEqual(graph.blocks[2]!.config, { output: { greeting: '<code.greeting>' } });
    await s.axe('the workflow canvas');
    await s.shot('workflow-canvas');
  });

  it('pins the server\'s verdict on a cycle to the block it names, and undoes it', async () => {
    await block('response').click();
    await panel().getByLabel('Connect to').selectOption('code');
    await panel().getByRole('button', { name: 'Connect' }).click();
    const pinned = s.page.locator('.block-node.has-problem .block-problem');
    await pinned.getByText(/is on a cycle; only a split may lead back/).waitFor();
    assert.match(await pinned.locator('xpath=ancestor::*[@data-block][1]').getAttribute('data-block') ?? '', /^(code|response)$/);
    await s.page.getByRole('alert').getByText(/^Not saved: Block "(code|response)" is on a cycle/).waitFor();
    await s.shot('workflow-cycle');
    assert.equal((await graphOf('Greeter')).edges.length, 2, 'nothing saved while the graph is invalid');
    await s.page.locator('.react-flow__pane').click({ position: { x: 10, y: 10 } });
    await s.page.keyboard.press('Control+z');
    await saved();
    assert.equal(await s.page.locator('.block-node.has-problem').count(), 0);
  });

  it('runs the draft and shows each block succeed live, with its output and logs a click away', async () => {
    // The starter says what a run takes; the run panel asks for it.
    await block('starter').click();
    await panel().getByLabel('inputs', { exact: true }).fill('[{"name": "name", "type": "string", "required": true, "description": "Who to greet"}]');
    await s.page.keyboard.press('Tab');
    await saved();
    const runPanel = s.page.locator('.run-panel');
    await runPanel.getByRole('button', { name: 'Run', exact: true }).click();
    await runPanel.getByRole('alert').getByText('name is required').waitFor();
    await runPanel.getByLabel(/^name \(required\)/).fill('Ada');
    await runPanel.getByRole('button', { name: 'Run', exact: true }).click();
    await s.page.getByRole('status').getByText('Run completed').waitFor();
    for (const id of ['starter', 'code', 'response']) assert.match(await block(id).locator('.block-state').textContent() ?? '', /^succeeded/);
    assert.deepEqual(JSON.parse(await s.page.getByLabel('Run output').textContent() ?? ''), { greeting: 'Hello Ada!' });
    await block('code').click();
    assert.deepEqual(JSON.parse(await panel().getByLabel('Block output').textContent() ?? ''), { greeting: 'Hello Ada!' });
    await panel().getByRole('button', { name: 'Input, output and logs' }).click();
    await panel().getByLabel('Block logs').getByText('greeting Ada').waitFor();
    await s.axe('the canvas after a run');
    await s.shot('workflow-run');
  });

  it('asks the copilot for a block: the proposal drawn over the canvas, accepted whole, undone and restored', async () => {
    vendor.reset();
    vendor.script(
      { toolCalls: [{ id: 'm1', name: 'modify_workflow', arguments: { operations: [
        { op: 'add_block', block: { id: 'shout', type: 'code', config: JSON.stringify({ code: 'return { loud: outputs.code.greeting.toUpperCase() };' }), position: null } },
        { op: 'add_edge', source: 'code', target: 'shout' },
      ] } }] },
      { text: 'I added a block that shouts the greeting.' },
    );
    await s.page.getByRole('button', { name: 'Copilot', exact: true }).click();
    await s.page.getByLabel('Ask the copilot').fill('Add a block that shouts the greeting');
    await s.page.getByRole('button', { name: 'Send to copilot' }).click();
    const bar = s.page.getByRole('region', { name: 'Copilot proposal' });
    await bar.getByText('The copilot proposes 1 added, 0 removed and 0 changed blocks, 1 edge changes.').waitFor();
    await s.page.locator('.block-node.change-added[data-block="shout"]').getByText('added').waitFor();
    await s.page.getByRole('list', { name: 'Copilot conversation' }).getByText('I added a block that shouts the greeting.').waitFor();
    await s.axe('the canvas with a copilot proposal');
    await s.shot('workflow-copilot-proposal');
    assert.equal((await graphOf('Greeter')).blocks.length, 3, 'nothing saved before it is accepted');

    // The saved graph, once the autosave after a change has landed.
    const savedIds = (ids: string[]) => eventually(`the saved graph is ${ids.join(', ')}`, () => graphOf('Greeter'), (g) => g.blocks.map((b) => b.id).join() === ids.join());
    await bar.getByRole('button', { name: 'Accept proposal' }).click();
    let graph = await savedIds(['starter', 'code', 'response', 'shout']);
    assert.deepEqual(graph.blocks.map((b) => b.id), ['starter', 'code', 'response', 'shout']);
    assert.ok(graph.edges.some((e) => e.source === 'code' && e.target === 'shout'));
    assert.equal(await s.page.locator('.block-node.change-added').count(), 0, 'the overlay is gone');

    await s.page.getByRole('button', { name: 'Undo' }).click();
    await savedIds(['starter', 'code', 'response']); // accepting is one undoable step
    await s.page.getByRole('button', { name: 'Redo' }).click();
    await savedIds(['starter', 'code', 'response', 'shout']);
    await s.page.getByRole('button', { name: 'Restore the graph before this change' }).click();
    graph = await savedIds(['starter', 'code', 'response']); // the snapshot taken on accepting, restored
    assert.deepEqual(graph.edges, [{ source: 'starter', target: 'code' }, { source: 'code', target: 'response' }]);
  });

  it('deploys versions, compares two on the canvas, and arms the draft', async () => {
    const toolbar = s.page.getByRole('toolbar', { name: 'Workflow actions' });
    await toolbar.getByRole('button', { name: 'Deploy', exact: true }).click();
    await toolbar.getByText('Deployed: version 1').waitFor();
    await s.page.getByRole('button', { name: 'Add Wait' }).click();
    await block('wait').waitFor();
    await saved();
    await toolbar.getByRole('button', { name: 'Deploy', exact: true }).click();
    await toolbar.getByText('Deployed: version 2').waitFor();
    await s.page.getByRole('button', { name: 'Versions', exact: true }).click();
    const panel = s.page.getByRole('region', { name: 'Versions' }).or(s.page.locator('.versions-panel'));
    await panel.getByText(/^Version 2 \(active\)/).waitFor();
    await panel.getByRole('combobox', { name: /^Compare/ }).selectOption('1');
    await panel.getByRole('combobox', { name: /^with/ }).selectOption('2');
    await panel.getByRole('button', { name: 'Show the differences' }).click();
    await s.page.getByRole('region', { name: 'Comparison' }).getByText('Version 1 compared with version 2: 1 blocks added, 0 removed, 0 changed.').waitFor();
    await s.page.locator('.block-node.change-added[data-block="wait"]').waitFor();
    await s.axe('two versions compared');
    await s.page.getByRole('button', { name: 'Back to editing' }).click();
    await panel.getByRole('button', { name: 'Make active' }).click();
    await toolbar.getByText('Deployed: version 1').waitFor();
    await panel.getByRole('button', { name: 'Arm the draft for one webhook call' }).click();
    await panel.getByText(/^Armed until /).waitFor();
  });
});
