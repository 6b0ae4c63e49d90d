// Supabase Storage behaviours real apps hit (storage fidelity issue), through
// supabase-js: a .docx uploaded as the Word type into a bucket that allows
// exactly that type (the bytes are a zip; only active content or a type the
// declared one cannot be is vetoed), listV2 with folders, cursors and sorts,
// decimal size units, `metadata` {} when none was given, signed upload URLs
// reused under upsert and a second plain upload a 409, and X-Transformations
// on rendered images.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { makeDocx, makePdf } from '../helpers/documents.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('storage: Supabase Storage fidelity', () => {
  let p: TestPlatform;
  let admin: SupabaseClient;

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
  });
  after(() => stopTestPlatform(p));

  it('takes a .docx declared as the Word type into a bucket allowing exactly that, and still refuses active content and impossible types', async () => {
    assert.equal((await admin.storage.createBucket('word', { public: false, allowedMimeTypes: [DOCX] })).error, null);
    const docx = makeDocx({ heading: 'h', paragraph: 'p', table: [['a', 'b'], ['c', 'd']] });
    const ok = await admin.storage.from('word').upload('report.docx', docx, { contentType: DOCX });
    assert.equal(ok.error, null, JSON.stringify(ok.error));
    assert.equal((await admin.storage.createBucket('pictures', { public: false, allowedMimeTypes: ['image/*'] })).error, null);
    const html = await admin.storage.from('pictures').upload('x.png', Buffer.from('<!doctype html><script>alert(1)</script>'), { contentType: 'image/png' });
    assert.equal((html.error as { statusCode?: string } | null)?.statusCode, '415', 'HTML labelled image/png');
    const pdf = await admin.storage.from('pictures').upload('y.png', makePdf(['hello']), { contentType: 'image/png' });
    assert.equal((pdf.error as { statusCode?: string } | null)?.statusCode, '415', 'a PDF cannot be an image');
    const zipAsImage = await admin.storage.from('pictures').upload('z.png', docx, { contentType: 'image/png' });
    assert.equal((zipAsImage.error as { statusCode?: string } | null)?.statusCode, '415', 'a zip cannot be an image');
  });

  it('lists with listV2: folders by delimiter, cursor pages, sort by name and created_at', async () => {
    assert.equal((await admin.storage.createBucket('tree', { public: false })).error, null);
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'docs/one.txt', 'docs/two.txt', 'pics/x.txt']) {
      assert.equal((await admin.storage.from('tree').upload(name, Buffer.from(name), { contentType: 'text/plain' })).error, null);
      await new Promise((r) => setTimeout(r, 5));
    }
    const top = await admin.storage.from('tree').listV2({ with_delimiter: true });
    assert.equal(top.error, null, JSON.stringify(top.error));
    assert.deepEqual(top.data!.folders.map((f) => [f.name, f.key]), [['docs', 'docs/'], ['pics', 'pics/']]);
    assert.deepEqual(top.data!.objects.map((o) => o.name), ['a.txt', 'b.txt', 'c.txt']);
    assert.equal(top.data!.hasNext, false);
    const first = await admin.storage.from('tree').listV2({ limit: 2 });
    assert.deepEqual([first.data!.objects.map((o) => o.key), first.data!.hasNext], [['a.txt', 'b.txt'], true]);
    const second = await admin.storage.from('tree').listV2({ limit: 2, cursor: first.data!.nextCursor! });
    assert.deepEqual(second.data!.objects.map((o) => o.key), ['c.txt', 'docs/one.txt']);
    const inDocs = await admin.storage.from('tree').listV2({ prefix: 'docs/', with_delimiter: true });
    // An object's name is its whole path, as Supabase Storage answers it; a folder's is the part after the prefix.
    assert.deepEqual(inDocs.data!.objects.map((o) => [o.name, o.key]), [['docs/one.txt', 'docs/one.txt'], ['docs/two.txt', 'docs/two.txt']]);
    const noSlash = await admin.storage.from('tree').listV2({ prefix: 'pics' });
    assert.deepEqual(noSlash.data!.objects.map((o) => o.name), ['pics/x.txt']);
    const newest = await admin.storage.from('tree').listV2({ sortBy: { column: 'created_at', order: 'desc' }, limit: 3 });
    assert.deepEqual(newest.data!.objects.map((o) => o.key), ['pics/x.txt', 'docs/two.txt', 'docs/one.txt']);
    const older = await admin.storage.from('tree').listV2({ sortBy: { column: 'created_at', order: 'desc' }, limit: 3, cursor: newest.data!.nextCursor! });
    assert.deepEqual(older.data!.objects.map((o) => o.key), ['c.txt', 'b.txt', 'a.txt']);
    const reserved = await admin.storage.createBucket('list-v2');
    assert.ok(reserved.error, 'route words are not bucket ids');
  });

  it('reads fileSizeLimit strings in decimal units, and answers metadata {} when none was given', async () => {
    assert.equal((await admin.storage.createBucket('sized', { public: false, fileSizeLimit: '20mb' })).error, null);
    assert.equal((await admin.storage.getBucket('sized')).data!.file_size_limit, 20_000_000);
    assert.equal((await admin.storage.from('sized').upload('plain.txt', Buffer.from('x'), { contentType: 'text/plain' })).error, null);
    const info = await admin.storage.from('sized').info('plain.txt');
    assert.equal(info.error, null, JSON.stringify(info.error));
    assert.deepEqual(info.data!.metadata, {});
  });

  it('lets a signed upload URL minted with upsert overwrite until it expires; a plain one uploads once, then 409', async () => {
    assert.equal((await admin.storage.createBucket('inbox', { public: false })).error, null);
    const anon = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } }).storage.from('inbox');
    const reusable = await admin.storage.from('inbox').createSignedUploadUrl('again.txt', { upsert: true });
    for (const text of ['first', 'second']) {
      const put = await anon.uploadToSignedUrl('again.txt', reusable.data!.token, Buffer.from(text), { contentType: 'text/plain', upsert: true });
      assert.equal(put.error, null, `${text}: ${JSON.stringify(put.error)} ${String(put.error)}`);
    }
    assert.equal(await (await admin.storage.from('inbox').download('again.txt')).data!.text(), 'second');
    const once = await admin.storage.from('inbox').createSignedUploadUrl('once.txt');
    assert.equal((await anon.uploadToSignedUrl('once.txt', once.data!.token, Buffer.from('one'), { contentType: 'text/plain' })).error, null);
    const twice = await anon.uploadToSignedUrl('once.txt', once.data!.token, Buffer.from('two'), { contentType: 'text/plain' });
    assert.equal((twice.error as { statusCode?: string } | null)?.statusCode, '409');
    assert.equal(await (await admin.storage.from('inbox').download('once.txt')).data!.text(), 'one');
    const elsewhere = await fetch(`${p.url}/storage/v1/object/upload/sign/inbox/other.txt?token=${reusable.data!.token}`, { method: 'PUT', body: 'x' });
    assert.equal(elsewhere.status, 400, 'still bound to its path');
  });

  it('says which transformations a rendered image got', async () => {
    assert.equal((await admin.storage.createBucket('gallery', { public: true })).error, null);
    const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#336699' } }).png().toBuffer();
    assert.equal((await admin.storage.from('gallery').upload('blue.png', png, { contentType: 'image/png' })).error, null);
    const res = await fetch(`${p.url}/storage/v1/render/image/public/gallery/blue.png?width=200&height=200&resize=cover&quality=60`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-transformations'), 'height:200,width:200,resizing_type:fill,quality:60');
  });
});
