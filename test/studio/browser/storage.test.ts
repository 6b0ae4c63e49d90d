// Storage in the Studio, in Chromium: buckets made with their rules; a 20 MB
// file uploaded over the resumable (TUS) path with its progress shown; a
// file dropped on the page; an image previewed; a signed URL made and
// fetched from outside; a file moved into a folder and found through the
// breadcrumbs; a file named with markup shown as text; a deletion asked
// first and audited; a bucket emptied and deleted.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import type { StudioPage } from '../../helpers/chromium.ts';
import { query } from '../../helpers/db.ts';
import { eventually } from '../../helpers/eventually.ts';
import type { StudioServer } from '../../helpers/studio-process.ts';
import { studioSuite } from '../../helpers/studio-suite.ts';

const XSS_NAME = '<img src=x onerror=alert(1)>.txt';

describe('Studio in Chromium: storage', () => {
  let server: StudioServer;
  let s: StudioPage;
  const dialog = () => s.page.getByRole('dialog');
  const files = () => s.page.getByRole('table', { name: /^Files in/ });
  const db = <T extends Record<string, unknown>>(sql: string, values: unknown[] = []) => query<T>(server.databaseUrl, sql, values);

  studioSuite({}, (run) => ({ server, s } = run));

  it('creates buckets with their rules', async () => {
    await s.page.goto('/storage');
    await s.page.getByRole('button', { name: 'New bucket' }).click();
    await dialog().getByLabel('Name').fill('photos');
    await dialog().getByLabel('File size limit in bytes').fill('52428800');
    await s.axe('the new bucket dialog');
    await dialog().getByRole('button', { name: 'Create bucket' }).click();
    await s.page.getByRole('link', { name: 'photos' }).waitFor();
    await s.page.getByRole('button', { name: 'New bucket' }).click();
    await dialog().getByLabel('Name').fill('avatars');
    await dialog().getByRole('checkbox', { name: /Public/ }).check();
    await dialog().getByLabel('Allowed MIME types').fill('image/*');
    await dialog().getByRole('button', { name: 'Create bucket' }).click();
    await s.page.getByRole('link', { name: 'avatars' }).waitFor();
    assert.deepEqual(await db('select id, public, file_size_limit, allowed_mime_types from storage.buckets order by id'), [
      { id: 'avatars', public: true, file_size_limit: null, allowed_mime_types: ['image/*'] },
      { id: 'photos', public: false, file_size_limit: '52428800', allowed_mime_types: null },
    ]);
    await s.axe('the bucket list');
    await s.shot('storage-buckets');
  });

  it('uploads a 20 MB file over the resumable path, its progress shown', async () => {
    await s.page.goto('/storage/photos');
    await files().waitFor();
    await s.page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { progress: number[] }).progress = seen;
      new MutationObserver(() => {
        const bar = document.querySelector<HTMLProgressElement>('progress[aria-label="Upload of big.bin"]');
        if (bar && seen.at(-1) !== bar.value) seen.push(bar.value);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const big = randomBytes(20 * 1024 * 1024);
    // Handing 20 MB to the browser takes seconds on a loaded 2-core machine: more than the default action timeout.
    await s.page.getByLabel('choose files').setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: big }, { timeout: 60_000 });
    await s.page.getByRole('region', { name: 'Upload files' }).getByText('uploaded', { exact: true }).waitFor({ timeout: 60_000 });
    const seen = await s.page.evaluate(() => (window as unknown as { progress: number[] }).progress);
    assert.ok(seen.some((v) => v > 0 && v < big.length), `the bar moved on the way: ${seen.join(', ')}`);
    await files().getByRole('button', { name: 'big.bin' }).waitFor();
    await files().getByRole('cell', { name: '20.0 MB' }).waitFor();
    const [stored] = await db<{ size: string }>("select metadata->>'size' as size from storage.objects where bucket_id = 'photos' and name = 'big.bin'");
    assert.equal(stored!.size, String(big.length));
    const [download] = await Promise.all([s.page.waitForEvent('download'), files().getByRole('row').filter({ hasText: 'big.bin' }).getByRole('link', { name: 'Download' }).click()]);
    const { readFileSync } = await import('node:fs');
    assert.equal(createHash('sha256').update(readFileSync((await download.path())!)).digest('hex'), createHash('sha256').update(big).digest('hex'), 'the bytes came back whole');
  });

  it('takes a file dropped on the page, and previews an image', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c0392b' } }).png().toBuffer();
    await s.page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'red.png', { type: 'image/png' }));
      document.querySelector('[aria-label="Upload files"]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, png.toString('base64'));
    await files().getByRole('button', { name: 'red.png' }).click();
    const preview = s.page.getByRole('complementary', { name: 'Preview of red.png' }).getByRole('img', { name: 'Preview of red.png' });
    await preview.waitFor();
    await s.page.waitForFunction(() => (document.querySelector('img.preview-image') as HTMLImageElement | null)?.naturalWidth === 64);
    await s.axe('a bucket with an image previewed');
    await s.shot('storage-preview');
  });

  it('makes a signed URL that works from outside', async () => {
    await files().getByRole('row').filter({ hasText: 'red.png' }).getByRole('button', { name: 'Get URL' }).click();
    await dialog().getByLabel('Works for').selectOption({ label: 'an hour' });
    await dialog().getByRole('button', { name: 'Make signed URL' }).click();
    const url = await dialog().getByLabel('URL').inputValue();
    assert.match(url, new RegExp(`^${server.apiUrl.replace(/[.]/g, '\\.')}/storage/v1/object/sign/photos/red\\.png\\?token=`));
    await dialog().getByRole('button', { name: 'Copy URL' }).click();
    await dialog().getByText('Copied').waitFor();
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width, 64);
    await dialog().getByRole('button', { name: 'Close' }).click();
  });

  it('moves a file into a folder and finds it through the breadcrumbs', async () => {
    await files().getByRole('row').filter({ hasText: 'red.png' }).getByRole('button', { name: 'Move' }).click();
    await dialog().getByLabel('New name (folders with /)').fill('colours/red.png');
    await dialog().getByRole('button', { name: 'Move' }).click();
    await s.page.getByRole('status').getByText('Moved').waitFor();
    await files().getByRole('link', { name: /colours\// }).click();
    await s.page.waitForURL(/\/storage\/photos\/colours\/$/);
    await files().getByRole('button', { name: 'red.png' }).waitFor();
    const crumbs = s.page.getByRole('navigation', { name: 'Folder' });
    assert.equal(await crumbs.getByRole('link', { name: 'colours' }).getAttribute('aria-current'), 'page');
    await crumbs.getByRole('link', { name: 'photos' }).click();
    await files().getByRole('button', { name: 'big.bin' }).waitFor();
  });

  it('shows a file named with markup as text, and deletes it after asking', async () => {
    await s.page.getByLabel('choose files').setInputFiles({ name: XSS_NAME, mimeType: 'text/plain', buffer: Buffer.from('<script>alert(2)</script>') });
    await files().getByRole('button', { name: XSS_NAME }).click();
    await s.page.getByLabel(`Text of ${XSS_NAME}`).getByText('<script>alert(2)</script>').waitFor();
    assert.equal(await s.page.locator('img[src="x"]').count(), 0);
    await s.shot('storage-markup-name');

    await files().getByRole('row').filter({ hasText: XSS_NAME }).getByRole('button', { name: 'Delete' }).click();
    await dialog().getByText('The file is deleted. This cannot be undone.').waitFor();
    await dialog().getByRole('button', { name: 'Delete file' }).click();
    await files().getByRole('button', { name: XSS_NAME }).waitFor({ state: 'detached' });
    assert.equal((await db('select 1 from storage.objects where name = $1', [XSS_NAME])).length, 0);
    // Recorded once the answer is sent.
    const audited = await eventually('the deletion audited', () => db<{ operator_email: string; target: string }>("select operator_email, target from studio.audit_log where action = 'delete_objects' and detail->'body'->'prefixes' ? $1", [XSS_NAME]), (rows) => rows.length === 1);
    assert.deepEqual(audited[0], { operator_email: 'first-operator@example.com', target: 'photos' });
  });

  it('empties a bucket and deletes it, each after asking', async () => {
    await s.page.goto('/storage');
    const row = s.page.getByRole('row').filter({ hasText: 'photos' });
    await row.getByRole('button', { name: 'Empty' }).click();
    await dialog().getByRole('button', { name: 'Empty bucket' }).click();
    await s.page.getByRole('status').getByText('Bucket photos emptied').waitFor();
    assert.equal((await db("select 1 from storage.objects where bucket_id = 'photos'")).length, 0);
    await row.getByRole('button', { name: 'Delete' }).click();
    await dialog().getByRole('button', { name: 'Delete bucket' }).click();
    await s.page.getByRole('link', { name: 'photos' }).waitFor({ state: 'detached' });
    await eventually('emptying and deleting audited', () => db<{ action: string }>("select action from studio.audit_log where target = 'photos' and action like '%bucket' order by id"), (rows) => rows.map((r) => r.action).join() === 'empty_bucket,delete_bucket');
  });
});
