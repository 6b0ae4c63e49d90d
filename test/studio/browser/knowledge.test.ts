// Knowledge in Chromium: a two-page PDF dropped on the sources page, its
// upload's progress and its extraction seen to the end, its pages shown as
// images with their text blocks outlined; a knowledge base made with a
// strategy, the source indexed and the full-text index built, each seen
// live; a sentence found in the search playground with the page it came
// from opened and the passage outlined.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StudioPage } from '../../helpers/chromium.ts';
import { makePdf } from '../../helpers/documents.ts';
import { startVendorServer, type VendorServer } from '../../helpers/openai-server.ts';
import { storeOpenAiKey, studioSuite } from '../../helpers/studio-suite.ts';

describe('Studio in Chromium: sources, knowledge bases and search', () => {
  let s: StudioPage;
  let vendor: VendorServer;
  before(async () => {
    vendor = await startVendorServer();
  });
  after(() => vendor.close());
  studioSuite({
    env: () => ({ ...vendor.env, AI_PROVIDER_MAX_RETRIES: '0' }),
    prepare: storeOpenAiKey,
  }, (run) => ({ s } = run));

  it('extracts a dropped PDF and shows its pages with their text blocks outlined', async () => {
    await s.page.goto('/knowledge/sources');
    const pdf = makePdf(['The lighthouse keeper counts ships at dawn', 'Copper kettles whistle every afternoon']).toString('base64');
    // A drop as the browser makes one: a DataTransfer holding the file.
    const transfer = await s.page.evaluateHandle((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'harbour.pdf', { type: 'application/pdf' }));
      return dt;
    }, pdf);
    await s.page.locator('.drop-zone').dispatchEvent('drop', { dataTransfer: transfer });
    await s.page.getByRole('list', { name: 'Uploads' }).getByText('uploaded').waitFor();
    const row = s.page.getByRole('row').filter({ has: s.page.getByRole('link', { name: 'harbour.pdf' }) });
    await row.getByText('extracted').waitFor({ timeout: 30_000 });
    await row.getByRole('link', { name: 'harbour.pdf' }).click();
    await s.page.getByRole('img', { name: 'Page 1' }).waitFor();
    await s.page.getByText('Page 1: 1 text blocks').waitFor();
    assert.equal(await s.page.locator('.page-boxes rect.block-box').count(), 1, 'the line outlined');
    await s.page.getByRole('combobox', { name: /^Page/ }).selectOption('2');
    await s.page.getByLabel('Text of page 2').getByText('Copper kettles whistle every afternoon').waitFor();
    await s.page.getByText('Extracted markdown').click();
    await s.page.getByLabel('Extracted markdown').getByText(/The lighthouse keeper/).waitFor();
    await s.axe('a source with its pages');
    await s.shot('source-pages');
  });

  it('indexes it in a new knowledge base, builds the full-text index, and finds a sentence with its page outlined', async () => {
    await s.page.goto('/knowledge/bases');
    await s.page.getByLabel('Name').fill('Harbour notes');
    await s.page.getByLabel('Strategy').selectOption('chunk_embed');
    await s.page.getByLabel('chunk_size').fill('200');
    await s.page.getByRole('button', { name: 'Create knowledge base' }).click();
    await s.page.getByRole('heading', { name: /Harbour notes/ }).waitFor();
    await s.page.getByLabel('Add a source').selectOption({ label: 'harbour.pdf' });
    await s.page.getByRole('button', { name: 'Add', exact: true }).click();
    await s.page.getByRole('status').filter({ hasText: /chunk_embed: 1 of 1 sources indexed/ }).waitFor({ timeout: 30_000 });
    await s.page.getByRole('button', { name: 'Build full-text index' }).click();
    await s.page.getByTestId('bm25-status').getByText('ready').waitFor({ timeout: 30_000 });

    const search = s.page.getByRole('search');
    await search.getByLabel('Query').fill('copper kettles');
    await search.getByLabel('Method').selectOption('full_text');
    await search.getByRole('button', { name: 'Search' }).click();
    const hits = s.page.getByRole('list', { name: 'Hits' });
    const first = hits.getByRole('listitem').first();
    await first.getByText('Copper kettles whistle every afternoon').waitFor();
    await first.getByText('harbour.pdf').waitFor();
    await first.getByRole('button', { name: 'Page 2' }).click();
    await s.page.getByRole('img', { name: 'Page 2' }).waitFor();
    await s.page.getByTestId('hit-box').waitFor();
    const box = await s.page.getByTestId('hit-box').boundingBox();
    assert.ok(box && box.width > 50 && box.height > 5, 'the passage outlined on the page');
    await s.page.getByText('the passage outlined').waitFor();
    await s.axe('the search playground');
    await s.page.getByRole('img', { name: 'Page 2' }).scrollIntoViewIfNeeded();
    await s.shot('search-playground');
  });
});
