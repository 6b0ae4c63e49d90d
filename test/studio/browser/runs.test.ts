// A run's page in Chromium: a workflow run (starter → wait → response) opened
// from the canvas and followed live; the server killed while the run waits
// and started again, and the same page (never reloaded) reconnects with
// Last-Event-ID and carries on to the end; the timeline then shows each
// block as a bar with its duration; the workflow's run history filters and
// charts it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signApiKey } from '../../../server/keys.ts';
import type { StudioPage } from '../../helpers/chromium.ts';
import type { StudioServer } from '../../helpers/studio-process.ts';
import { studioSuite } from '../../helpers/studio-suite.ts';

describe('Studio in Chromium: a run\'s page', () => {
  let server: StudioServer;
  let s: StudioPage;
  studioSuite({}, (run) => ({ server, s } = run));

  /** A workflow made through the project API with the service key, as any client would. */
  async function workflow(name: string, graph: object): Promise<string> {
    const key = await signApiKey(server.jwtSecret, 'default', 'service_role');
    const headers = { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const made = (await (await fetch(`${server.apiUrl}/api/workflows`, { method: 'POST', headers, body: JSON.stringify({ name }) })).json()) as { id: string };
    const put = await fetch(`${server.apiUrl}/api/workflows/${made.id}/graph`, { method: 'PUT', headers, body: JSON.stringify(graph) });
    assert.equal(put.status, 200, await put.text());
    return made.id;
  }

  it('follows a run through a server crash and restart to its end, without a reload, and draws its timeline', async () => {
    const id = await workflow('Patient', {
      blocks: [{ id: 'start', type: 'starter', config: {}, position: { x: 0, y: 0 } }, { id: 'pause', type: 'wait', config: { seconds: 4 }, position: { x: 250, y: 0 } },
        { id: 'done', type: 'response', config: { output: { waited: '<pause.waited>' } }, position: { x: 500, y: 0 } }],
      edges: [{ source: 'start', target: 'pause' }, { source: 'pause', target: 'done' }],
    });
    await s.page.goto(`/workflows/${id}`);
    await s.page.getByRole('button', { name: 'Run', exact: true }).click();
    await s.page.locator('.block-node[data-block="pause"] .block-state').getByText('paused (a wait)').or(s.page.locator('.block-node[data-block="pause"] .block-state').getByText(/^running/)).first().waitFor();
    await s.page.getByRole('link', { name: 'Open the run\'s page' }).click();
    await s.page.getByRole('heading', { name: /Workflow execution/ }).waitFor();
    await s.page.getByRole('log', { name: 'Events' }).getByText('block_waiting').waitFor();
    await s.page.evaluate(() => { (window as unknown as { samePage: boolean }).samePage = true; });

    await server.crash();
    await s.page.getByRole('status').getByText('Reconnecting…').waitFor();
    await server.restart();

    await s.page.getByTestId('run-status').getByText('succeeded').waitFor({ timeout: 30_000 });
    assert.equal(await s.page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage), true, 'the page was not reloaded');
    const log = s.page.getByRole('log', { name: 'Events' });
    await log.getByText('run_completed').waitFor();
    // Each event once: the reconnection asked for the events after the last one seen.
    const numbers = (await log.locator('li > span.mono').allTextContents()).map(Number);
    assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b));
    assert.equal(new Set(numbers).size, numbers.length);
    const timeline = s.page.getByRole('table', { name: /Timeline/ });
    for (const block of ['start', 'pause', 'done']) await timeline.getByRole('rowheader', { name: `block ${block}` }).waitFor();
    const pause = timeline.getByRole('row').filter({ has: s.page.getByRole('rowheader', { name: 'block pause' }) });
    const ms = Number((await pause.getByRole('cell').nth(1).textContent())?.replace(' ms', ''));
    assert.ok(ms >= 3500, `the wait's bar lasts its 4 s (${ms} ms)`);
    await s.axe('a run\'s page');
    await s.shot('run-timeline');

    // The workflow's run history: the run, filtered out and back, charted per day.
    await s.page.getByRole('link', { name: 'the workflow' }).click();
    await s.page.getByRole('link', { name: 'Run history' }).click();
    const status = s.page.getByRole('status').filter({ hasText: /runs,/ });
    await status.getByText(/^1 of 1 runs, 0 failed/).waitFor();
    await s.page.getByRole('combobox', { name: 'Status' }).selectOption('');
    await s.page.getByLabel('Cost at least ($)').fill('1');
    await status.getByText(/^0 of 1 runs/).waitFor();
    await s.page.getByLabel('Cost at least ($)').fill('');
    assert.match(await s.page.getByRole('img', { name: /^Runs per day:/ }).getAttribute('aria-label') ?? '', /\d{4}-\d{2}-\d{2} 1 runs/);
    await s.axe('a workflow\'s run history');
  });

  it('cancels a waiting run from its page, and the canvas and the page both say so', async () => {
    const id = await workflow('Cancelled', {
      blocks: [{ id: 'start', type: 'starter', config: {}, position: { x: 0, y: 0 } }, { id: 'pause', type: 'wait', config: { seconds: 120 }, position: { x: 250, y: 0 } },
        { id: 'done', type: 'response', config: { output: { ok: true } }, position: { x: 500, y: 0 } }],
      edges: [{ source: 'start', target: 'pause' }, { source: 'pause', target: 'done' }],
    });
    await s.page.goto(`/workflows/${id}`);
    await s.page.getByRole('button', { name: 'Run', exact: true }).click();
    await s.page.locator('.block-node[data-block="pause"] .block-state').getByText('paused (a wait)').waitFor();
    await s.page.getByRole('button', { name: 'Cancel run' }).click();
    await s.page.locator('.run-status').getByText('Run cancelled').waitFor();
    await s.page.getByRole('link', { name: 'Open the run\'s page' }).click();
    await s.page.getByTestId('run-status').getByText('cancelled').waitFor();
    assert.equal(await s.page.getByRole('button', { name: 'Cancel run' }).count(), 0, 'an ended run offers no cancel');
    await s.page.getByRole('log', { name: 'Events' }).getByText('error').first().waitFor();
  });
});
