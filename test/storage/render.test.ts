// Image transformation at /storage/v1/render/image/{public,authenticated,sign},
// checked by the rendered image's real dimensions and format (sharp reads the
// response back), through supabase-js's transform options where it has them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import sharp from 'sharp';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { tamper } from '../helpers/tokens.ts';

const photo = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 20 } } }).composite([{ input: Buffer.from(`<svg width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="blue"/></svg>`) }]).jpeg({ quality: 90 }).toBuffer();
const noise = (width: number, height: number) => sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).png().toBuffer();

describe('image transformation with sharp', () => {
  let p: TestPlatform;
  let admin: SupabaseClient;
  let ann: SupabaseClient;
  let annId: string;
  let bob: SupabaseClient;
  const shape = async (res: Response) => {
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    return { width: meta.width, height: meta.height, format: meta.format };
  };
  const render = (mode: string, path: string, query = '', headers: Record<string, string> = {}) => fetch(`${p.url}/storage/v1/render/image/${mode}/${path}${query ? `?${query}` : ''}`, { headers });

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', STORAGE_IMAGE_MAX_INPUT_PIXELS: '1000000', STORAGE_IMAGE_MAX_OUTPUT_BYTES: String(200 * 1024) });
    admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
    const signUp = async (email: string) => {
      const client = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
      const { data } = await client.auth.signUp({ email, password: 'a-good-password' });
      return { client, id: data.user!.id };
    };
    ({ client: ann, id: annId } = await signUp('ann@example.com'));
    ({ client: bob } = await signUp('bob@example.com'));
    await admin.storage.createBucket('pub', { public: true });
    await admin.storage.createBucket('private', { public: false });
    await p.adminPool.query(`
      create policy "own folder" on storage.objects for all to authenticated
        using (bucket_id = 'private' and (storage.foldername(name))[1] = auth.uid()::text)
        with check (bucket_id = 'private' and (storage.foldername(name))[1] = auth.uid()::text);`);
    assert.equal((await admin.storage.from('pub').upload('photo.jpg', await photo(1200, 800), { contentType: 'image/jpeg' })).error, null);
    assert.equal((await ann.storage.from('private').upload(`${annId}/photo.jpg`, await photo(1200, 800), { contentType: 'image/jpeg' })).error, null);
  });
  after(async () => stopTestPlatform(p));

  it('resizes public images: cover by default, contain and fill, keeping the format unless asked', async () => {
    const url = admin.storage.from('pub').getPublicUrl('photo.jpg', { transform: { width: 300, height: 200 } }).data.publicUrl;
    assert.match(url, /\/render\/image\/public\/pub\/photo\.jpg\?/);
    const cover = await fetch(url);
    assert.equal(cover.status, 200);
    assert.equal(cover.headers.get('content-type'), 'image/jpeg');
    assert.equal(cover.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(await shape(cover), { width: 300, height: 200, format: 'jpeg' });
    assert.deepEqual(await shape(await render('public', 'pub/photo.jpg', 'width=300&height=300')), { width: 300, height: 300, format: 'jpeg' }, 'cover crops to the box');
    assert.deepEqual(await shape(await render('public', 'pub/photo.jpg', 'width=300&height=300&resize=contain')), { width: 300, height: 200, format: 'jpeg' }, 'contain fits inside it');
    assert.deepEqual(await shape(await render('public', 'pub/photo.jpg', 'width=300&height=300&resize=fill')), { width: 300, height: 300, format: 'jpeg' }, 'fill stretches');
    assert.deepEqual(await shape(await render('public', 'pub/photo.jpg', 'width=240')), { width: 240, height: 160, format: 'jpeg' }, 'one side keeps the aspect ratio');
    const webp = await render('public', 'pub/photo.jpg', 'width=240&format=webp');
    assert.equal(webp.headers.get('content-type'), 'image/webp');
    assert.equal((await shape(webp)).format, 'webp');
    assert.equal((await shape(await render('public', 'pub/photo.jpg', 'width=240&format=png'))).format, 'png');
    const low = (await (await render('public', 'pub/photo.jpg', 'width=600&quality=5')).arrayBuffer()).byteLength;
    const high = (await (await render('public', 'pub/photo.jpg', 'width=600&quality=95')).arrayBuffer()).byteLength;
    assert.ok(low < high, `quality changes the encoding (${low} < ${high})`);
  });

  it('renders private images for whoever may read them, through supabase-js download()', async () => {
    const mine = await ann.storage.from('private').download(`${annId}/photo.jpg`, { transform: { width: 120, height: 80 } });
    assert.equal(mine.error, null);
    const meta = await sharp(Buffer.from(await mine.data!.arrayBuffer())).metadata();
    assert.deepEqual([meta.width, meta.height], [120, 80]);
    const theirs = await bob.storage.from('private').download(`${annId}/photo.jpg`, { transform: { width: 120 } });
    assert.ok(theirs.error, 'another user cannot render it');
    const asPublic = await render('public', `private/${annId}/photo.jpg`, 'width=100');
    assert.equal(asPublic.status, 400, 'a private bucket is not rendered publicly');
    assert.deepEqual(Object.keys(await asPublic.json()).sort(), ['error', 'message', 'statusCode']);
  });

  it('signs transformation URLs whose options live in the token', async () => {
    const signed = await ann.storage.from('private').createSignedUrl(`${annId}/photo.jpg`, 60, { transform: { width: 100, height: 100, resize: 'contain' } });
    assert.equal(signed.error, null);
    assert.match(signed.data!.signedUrl, /\/render\/image\/sign\/private\//);
    const res = await fetch(signed.data!.signedUrl);
    assert.equal(res.status, 200);
    assert.deepEqual(await shape(res), { width: 100, height: 67, format: 'jpeg' });
    const widened = await fetch(`${signed.data!.signedUrl}&width=1000`);
    assert.equal(widened.status, 400, 'the URL cannot ask for more than the token says');
    const altered = await fetch(signed.data!.signedUrl.replace(/token=([^&]+)/, (_m, t: string) => `token=${tamper(t)}`));
    assert.equal(altered.status, 400);
    const bad = await ann.storage.from('private').createSignedUrl(`${annId}/photo.jpg`, 60, { transform: { width: -5 } });
    assert.equal((bad.error as { status?: number } | null)?.status, 400, 'a bad transform fails at signing');
  });

  it('refuses bad options with 400, and images past the input, size or output limits with 422', async () => {
    for (const q of ['width=0', 'width=abc', 'width=3000', 'resize=stretch', 'quality=101', 'format=gif']) {
      const res = await render('public', 'pub/photo.jpg', q);
      assert.equal(res.status, 400, q);
      assert.equal((await res.json()).statusCode, '400');
    }
    await admin.storage.from('pub').upload('huge.jpg', await photo(1500, 1000), { contentType: 'image/jpeg' });
    const huge = await render('public', 'pub/huge.jpg', 'width=100');
    assert.equal(huge.status, 422, 'more input pixels than STORAGE_IMAGE_MAX_INPUT_PIXELS');
    assert.match((await huge.json()).message, /more than 1000000 pixels/);
    await admin.storage.from('pub').upload('noise.png', await noise(900, 900), { contentType: 'image/png' });
    const heavy = await render('public', 'pub/noise.png', 'width=900');
    assert.equal(heavy.status, 422, 'a rendered image past STORAGE_IMAGE_MAX_OUTPUT_BYTES');
    await admin.storage.from('pub').upload('notes.txt', Buffer.from('not an image'), { contentType: 'text/plain' });
    assert.equal((await render('public', 'pub/notes.txt', 'width=100')).status, 422, 'not an image');
    assert.equal((await render('public', 'pub/missing.jpg', 'width=100')).status, 404);
  });

  it('caches rendered variants by version: hits, 304 on the ETag, and a fresh render after an overwrite', async () => {
    await admin.storage.from('pub').upload('cached.jpg', await photo(400, 400), { contentType: 'image/jpeg' });
    const first = await render('public', 'pub/cached.jpg', 'width=50');
    assert.equal(first.headers.get('x-render-cache'), 'miss');
    await first.arrayBuffer();
    const second = await render('public', 'pub/cached.jpg', 'width=50');
    assert.equal(second.headers.get('x-render-cache'), 'hit');
    assert.deepEqual(await shape(second), { width: 50, height: 50, format: 'jpeg' });
    assert.equal((await render('public', 'pub/cached.jpg', 'width=50', { 'if-none-match': first.headers.get('etag')! })).status, 304);
    await admin.storage.from('pub').upload('cached.jpg', await photo(400, 200), { contentType: 'image/jpeg', upsert: true });
    const after = await render('public', 'pub/cached.jpg', 'width=50');
    assert.equal(after.headers.get('x-render-cache'), 'miss');
    assert.notEqual(after.headers.get('etag'), first.headers.get('etag'));
    assert.deepEqual(await shape(after), { width: 50, height: 25, format: 'jpeg' });
  });
});
