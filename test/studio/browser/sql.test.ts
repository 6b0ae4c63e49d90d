// The SQL editor in Chromium: statements run whole or by selection, schema
// aware completion, an error's position marked in the text, 10,000 rows
// rendered at once (more cut with a notice), EXPLAIN ANALYZE as a plan tree
// with its slowest node, a long query cancelled, a snippet saved in a folder
// and found again after a reload, and markup in results shown as text.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { StudioPage } from '../../helpers/chromium.ts';
import { query } from '../../helpers/db.ts';
import type { StudioServer } from '../../helpers/studio-process.ts';
import { studioSuite } from '../../helpers/studio-suite.ts';

describe('Studio in Chromium: the SQL editor', () => {
  let server: StudioServer;
  let s: StudioPage;
  const editor = () => s.page.getByRole('textbox', { name: 'SQL' });
  const results = () => s.page.getByRole('region', { name: 'Result' });

  /** Replaces the editor's text (typed, as a person does; brackets the editor closes itself are removed first). */
  async function write(sql: string): Promise<void> {
    await editor().click();
    await s.page.keyboard.press('Control+A');
    await s.page.keyboard.press('Delete');
    await s.page.keyboard.insertText(sql);
  }
  async function runAll(): Promise<void> {
    await editor().click();
    await s.page.keyboard.press('Control+Enter');
    await s.page.getByRole('toolbar', { name: 'Query actions' }).getByRole('button', { name: 'Run' }).and(s.page.locator(':enabled')).waitFor();
  }

  studioSuite({}, (run) => ({ server, s } = run));
  before(async () => {
    await s.page.goto('/sql');
    await editor().waitFor();
  });

  it('runs the whole text, then only the selection', async () => {
    await write("create table public.things (id int primary key, name text);\ninsert into public.things select g, 'thing ' || g from generate_series(1, 3) g;");
    await runAll();
    await results().getByText(/^INSERT: 3 rows, \d+ ms$/).waitFor();
    await write('select 1 as first_one;\nselect name as second_one from public.things order by id;');
    await s.page.keyboard.press('Control+End');
    await s.page.keyboard.press('Shift+Home');
    await s.page.keyboard.press('Control+Enter');
    await results().getByRole('columnheader', { name: /second_one/ }).waitFor();
    assert.equal(await results().getByRole('columnheader', { name: /first_one/ }).count(), 0, 'only the selection ran');
    await results().getByText(/^3 rows, \d+ ms$/).waitFor();
    await s.axe('the SQL editor with results');
    await s.shot('sql-editor-results');
  });

  it('completes table names from the live schema', async () => {
    await write('select * from public.thi');
    await s.page.keyboard.press('Control+Space');
    await s.page.locator('.cm-tooltip-autocomplete').getByText('things').waitFor();
    await s.page.keyboard.press('Escape');
  });

  it('shows an error with its position marked in the text', async () => {
    await write('select id,\n  nmae\nfrom public.things;');
    await runAll();
    const alert = results().getByRole('alert');
    await alert.getByText('column "nmae" does not exist').waitFor();
    await alert.getByText('(at character 14)').waitFor();
    assert.equal(await s.page.locator('.cm-error-mark').textContent(), 'nmae');
    await s.axe('the SQL editor with an error');
    await s.shot('sql-editor-error');
  });

  it('renders 10,000 rows at once, and cuts more with a notice', async () => {
    await write('select g as n, md5(g::text) as hash from generate_series(1, 10000) g;');
    const started = Date.now();
    await runAll();
    await results().getByText(/^10,000 rows, \d+ ms$/).waitFor();
    const elapsed = Date.now() - started;
    const grid = results().getByRole('grid', { name: 'Query results' });
    assert.equal(await grid.getAttribute('aria-rowcount'), '10001');
    assert.ok(await grid.getByRole('row').count() < 100, 'only the rows in view are in the page');
    await grid.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await grid.getByRole('gridcell', { name: '10000', exact: true }).waitFor();
    assert.ok(elapsed < 5000, `ran and rendered in ${elapsed} ms`);

    await write('select g from generate_series(1, 12000) g;');
    await runAll();
    await results().getByRole('note').getByText('Only the first 10,000 of 12,000 rows are shown: add a limit, or export from the table editor.').waitFor();
  });

  it('shows EXPLAIN ANALYZE as a plan tree with the slowest node', async () => {
    await write('select t.name, count(*) from public.things t join generate_series(1, 50000) g on g % 3 = t.id - 1 group by t.name;');
    await s.page.getByRole('button', { name: 'Explain analyze' }).click();
    const plan = s.page.getByRole('region', { name: 'Query plan' });
    await plan.getByText(/^Planning [\d.]+ ms, execution [\d.]+ ms/).waitFor();
    assert.equal(await plan.locator('.plan-node.hot').count(), 1, 'one node is the slowest');
    await plan.locator('.plan-node.hot').getByText('slowest').waitFor();
    assert.ok(await plan.locator('.plan-node').count() >= 3);
    await s.axe('a query plan');
    await s.shot('sql-editor-plan');
  });

  it('cancels a running query', async () => {
    await write('select pg_sleep(30);');
    await editor().click();
    await s.page.keyboard.press('Control+Enter');
    await s.page.getByText('Running…').waitFor();
    const started = Date.now();
    await s.page.getByRole('button', { name: 'Cancel' }).click();
    await results().getByRole('alert').getByText('canceling statement due to user request').waitFor();
    assert.ok(Date.now() - started < 5000);
  });

  it('saves a snippet in a folder, and opens it again after a reload', async () => {
    await write('select count(*) as things from public.things;');
    await s.page.getByRole('button', { name: 'Save as snippet' }).click();
    const dialog = s.page.getByRole('dialog', { name: 'Save as snippet' });
    await dialog.getByLabel('Name').fill('Count things');
    await dialog.getByLabel('Folder').fill('reports');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await s.page.waitForURL(/\/sql\/[0-9a-f-]{36}$/);
    await s.page.reload();
    await s.page.getByRole('heading', { level: 1, name: 'Count things' }).waitFor();
    const panel = s.page.getByRole('complementary', { name: 'Snippets and history' });
    await panel.getByRole('heading', { name: 'reports' }).waitFor();
    await panel.getByRole('link', { name: 'Count things' }).waitFor();
    await s.page.locator('.cm-content').getByText('select count(*) as things from public.things;').waitFor();
    await runAll();
    await results().getByRole('gridcell', { name: '3', exact: true }).waitFor();
    const [saved] = await query<{ name: string; folder: string; sql: string }>(server.databaseUrl, 'select name, folder, sql from studio.snippets');
    assert.deepEqual(saved, { name: 'Count things', folder: 'reports', sql: 'select count(*) as things from public.things;' });
    await panel.getByRole('tab', { name: 'History' }).click();
    await panel.getByRole('button', { name: /select pg_sleep\(30\);.*failed: canceling statement/ }).waitFor();
    await s.shot('sql-editor-snippet');
  });

  it('shows markup in names and values as text', async () => {
    await write(`select '<img src=x onerror=alert(1)>' as "<b>bold</b>";`);
    await runAll();
    await results().getByRole('columnheader', { name: /<b>bold<\/b>/ }).waitFor();
    await results().getByRole('gridcell', { name: '<img src=x onerror=alert(1)>' }).waitFor();
    assert.equal(await s.page.locator('img[src="x"], b:text("bold")').count(), 0);
  });
});
