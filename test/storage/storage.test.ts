// /storage/v1 through supabase-js's storage client, unchanged, and plain
// fetch for the headers and statuses the client hides. Two signed-up users
// and a per-user folder policy, as Supabase projects write it.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import { Readable } from 'node:stream';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { newVersion } from '../../server/storage/backend.ts';
import { openStorageStores } from '../../server/storage/stores.ts';
import { sweepOrphanedBytes } from '../../server/storage/sweepers.ts';
import { tamper } from '../helpers/tokens.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

// The same suite on both backends: local files, and S3 (a local S3-compatible server).
for (const backend of ['local', 's3'] as const) describe(`storage on ${backend === 'local' ? 'local files' : 'S3'}: buckets, objects and policies through supabase-js`, () => {
  let p: TestPlatform;
  let s3: TestS3 | undefined;
  let admin: SupabaseClient;
  let ann: SupabaseClient;
  let bob: SupabaseClient;
  let annId: string;
  let annToken: string;
  /** Stored byte files: under DATA_DIR/storage, finished and partial (.part) alike; or S3 objects under objects/. */
  const storageFiles = async (): Promise<number> => {
    if (s3) return (await s3.keys('objects/')).length;
    const root = path.join(p.config.dataDir, 'storage');
    try {
      return readdirSync(root, { recursive: true }).filter((f) => String(f).length > 3).length;
    } catch {
      return 0;
    }
  };
  /** A raw upload whose body arrives in chunks (no Content-Length); `abortAfter` bytes, then the socket is cut. */
  const streamUpload = (objectPath: string, chunks: number, chunkSize: number, abortAfter?: number) =>
    new Promise<number | 'aborted'>((resolve) => {
      const req = http.request(`${p.url}/storage/v1/object/${objectPath}`, {
        method: 'POST',
        headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/octet-stream' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', () => resolve('aborted'));
      let sent = 0;
      const next = () => {
        if (abortAfter !== undefined && sent >= abortAfter) {
          req.destroy();
          return resolve('aborted');
        }
        if (sent >= chunks * chunkSize) return void req.end();
        sent += chunkSize;
        req.write(Buffer.alloc(chunkSize, 7), () => setTimeout(next, 5));
      };
      next();
    });
  const objectCount = async () => Number((await p.adminPool.query('select count(*) from storage.objects')).rows[0].count);
  const signIn = async (email: string) => {
    const client = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const { data, error } = await client.auth.signUp({ email, password: 'a-good-password' });
    assert.equal(error, null);
    return { client, id: data.user!.id, token: data.session!.access_token };
  };

  before(async () => {
    if (backend === 's3') s3 = await startS3();
    p = await startTestPlatform({ WORKER: 'off', STORAGE_UPLOAD_LIMIT: String(64 * 1024), ...s3?.env });
    admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
    const a = await signIn('ann@example.com');
    ann = a.client;
    annId = a.id;
    annToken = a.token;
    bob = (await signIn('bob@example.com')).client;
    await p.adminPool.query(`
      create policy "buckets are visible to users" on storage.buckets for select to authenticated using (true);
      create policy "own folder: read" on storage.objects for select to authenticated
        using (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text);
      create policy "own folder: write" on storage.objects for insert to authenticated
        with check (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text);
      create policy "own folder: update" on storage.objects for update to authenticated
        using (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text);
      create policy "own folder: delete" on storage.objects for delete to authenticated
        using (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text);`);
  });
  after(async () => {
    await stopTestPlatform(p);
    await s3?.stop();
  });

  it('creates, reads, lists and updates buckets; refuses bad ids and duplicates', async () => {
    assert.deepEqual(await admin.storage.createBucket('docs', { public: false }), { data: { name: 'docs' }, error: null });
    const images = await admin.storage.createBucket('images', { public: true, allowedMimeTypes: ['image/*'], fileSizeLimit: '20KB' });
    assert.equal(images.error, null);
    const got = await admin.storage.getBucket('images');
    assert.equal(got.data?.public, true);
    assert.equal(got.data?.file_size_limit, 20_000, 'decimal units, as Supabase Storage reads them');
    assert.deepEqual(got.data?.allowed_mime_types, ['image/*']);
    assert.deepEqual(Object.keys(got.data ?? {}).sort(), ['allowed_mime_types', 'created_at', 'file_size_limit', 'id', 'name', 'owner', 'public', 'type', 'updated_at'],
      'exactly the fields Supabase Storage answers');
    assert.equal(got.data?.type, 'STANDARD');
    const dup = await admin.storage.createBucket('docs');
    assert.equal((dup.error as { status?: number } | null)?.status, 409);
    const bad = await fetch(`${p.url}/storage/v1/bucket`, { method: 'POST', headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'Bad Name!' }) });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(await bad.json()).sort(), ['error', 'message', 'statusCode']);
    assert.deepEqual(((await ann.storage.listBuckets()).data ?? []).map((b) => b.id).sort(), ['docs', 'images'], 'users see buckets through a SELECT policy');
    const anonList = await createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } }).storage.listBuckets();
    assert.deepEqual(anonList.data, [], 'no policy for anon: no buckets');
    assert.equal((await ann.storage.createBucket('mine')).error !== null, true, 'no INSERT policy on buckets: users cannot create them');
    assert.equal((await admin.storage.updateBucket('images', { public: true, fileSizeLimit: 30 * 1024, allowedMimeTypes: ['image/*'] })).error, null);
    assert.equal((await admin.storage.getBucket('images')).data?.file_size_limit, 30 * 1024);
  });

  it('uploads into the user’s own folder only, refuses duplicates without upsert, and downloads the same bytes', async () => {
    const name = `${annId}/notes/hello.txt`;
    const up = await ann.storage.from('docs').upload(name, Buffer.from('hello world'), { contentType: 'text/plain' });
    assert.equal(up.error, null);
    assert.equal(up.data?.path, name);
    assert.equal(up.data?.fullPath, `docs/${name}`);
    const again = await ann.storage.from('docs').upload(name, Buffer.from('again'), { contentType: 'text/plain' });
    assert.equal((again.error as { status?: number } | null)?.status, 409);
    const upsert = await ann.storage.from('docs').upload(name, Buffer.from('hello again'), { contentType: 'text/plain', upsert: true });
    assert.equal(upsert.error, null);
    const down = await ann.storage.from('docs').download(name);
    assert.equal(await down.data?.text(), 'hello again');
    const intrude = await bob.storage.from('docs').upload(`${annId}/evil.txt`, Buffer.from('x'), { contentType: 'text/plain' });
    assert.equal((intrude.error as { status?: number } | null)?.status, 403);
    const peek = await bob.storage.from('docs').download(name);
    assert.ok(peek.error, 'another user cannot read it');
    const blob = await ann.storage.from('docs').upload(`${annId}/blob.bin`, new Blob([Buffer.from([1, 2, 3])], { type: 'application/octet-stream' }));
    assert.equal(blob.error, null, 'a Blob goes as multipart, as supabase-js sends it');
    assert.deepEqual(Buffer.from(await (await ann.storage.from('docs').download(`${annId}/blob.bin`)).data!.arrayBuffer()), Buffer.from([1, 2, 3]));
  });

  it('serves downloads with validators, ranges, nosniff, and HTML as an attachment', async () => {
    const name = `${annId}/page.html`;
    await ann.storage.from('docs').upload(name, Buffer.from('<html><body>hi</body></html>'), { contentType: 'text/html', cacheControl: '120' });
    const url = `${p.url}/storage/v1/object/authenticated/docs/${name}`;
    const headers = { apikey: p.keys.anonKey, authorization: `Bearer ${annToken}` };
    const full = await fetch(url, { headers });
    assert.equal(full.status, 200);
    assert.equal(full.headers.get('x-content-type-options'), 'nosniff');
    assert.match(full.headers.get('content-disposition') ?? '', /^attachment/);
    assert.equal(full.headers.get('cache-control'), 'max-age=120');
    const etag = full.headers.get('etag')!;
    assert.ok(full.headers.get('last-modified'));
    await full.arrayBuffer();
    assert.equal((await fetch(url, { headers: { ...headers, 'if-none-match': etag } })).status, 304);
    const part = await fetch(url, { headers: { ...headers, range: 'bytes=6-11' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), 'bytes 6-11/28');
    assert.equal(await part.text(), '<body>');
    const exists = await ann.storage.from('docs').exists(name);
    assert.equal(exists.data, true);
  });

  it('holds the bucket’s type allow-list against the label and the bytes, and its size limit', async () => {
    const ok = await admin.storage.from('images').upload('dot.png', PNG, { contentType: 'image/png' });
    assert.equal(ok.error, null);
    const label = await admin.storage.from('images').upload('page.html', Buffer.from('<html></html>'), { contentType: 'text/html' });
    assert.equal((label.error as { status?: number } | null)?.status, 415);
    const disguised = await admin.storage.from('images').upload('fake.png', Buffer.from('<!doctype html><script>alert(1)</script>'), { contentType: 'image/png' });
    assert.equal((disguised.error as { status?: number } | null)?.status, 415, 'HTML labelled image/png is refused');
    const big = await admin.storage.from('images').upload('big.png', Buffer.concat([PNG, Buffer.alloc(40 * 1024)]), { contentType: 'image/png' });
    assert.equal((big.error as { status?: number } | null)?.status, 413);
    const tooBigForAnyBucket = await admin.storage.from('docs').upload('huge.bin', Buffer.alloc(65 * 1024), { contentType: 'application/octet-stream' });
    assert.equal((tooBigForAnyBucket.error as { status?: number } | null)?.status, 413, 'the per-request ceiling holds');
    const files = await storageFiles();
    assert.equal((await admin.storage.from('images').list()).data?.length, 1, 'refused uploads leave no row');
    assert.equal(files, await storageFiles(), 'and no bytes');
  });

  it('reads public buckets without a key, and refuses that for private ones', async () => {
    const pub = await fetch(`${p.url}/storage/v1/object/public/images/dot.png`);
    assert.equal(pub.status, 200);
    assert.equal(pub.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await pub.arrayBuffer()), PNG);
    assert.equal(admin.storage.from('images').getPublicUrl('dot.png').data.publicUrl, `${p.url}/storage/v1/object/public/images/dot.png`);
    const priv = await fetch(`${p.url}/storage/v1/object/public/docs/${annId}/notes/hello.txt`);
    assert.equal(priv.status, 400);
    assert.equal(((await priv.json()) as { statusCode: string }).statusCode, '400');
  });

  it('lists one level with folders, prefix, search, sort and paging', async () => {
    for (const n of ['b.txt', 'a.txt', 'sub/c.txt', 'sub/deeper/d.txt']) {
      assert.equal((await ann.storage.from('docs').upload(`${annId}/list/${n}`, Buffer.from(n), { contentType: 'text/plain' })).error, null);
    }
    const top = await ann.storage.from('docs').list(`${annId}/list`);
    assert.deepEqual(top.data?.map((e) => [e.name, e.id === null]), [['a.txt', false], ['b.txt', false], ['sub', true]]);
    const sub = await ann.storage.from('docs').list(`${annId}/list/sub`);
    assert.deepEqual(sub.data?.map((e) => e.name), ['c.txt', 'deeper']);
    const searched = await ann.storage.from('docs').list(`${annId}/list`, { search: 'B.T' });
    assert.deepEqual(searched.data?.map((e) => e.name), ['b.txt']);
    const paged = await ann.storage.from('docs').list(`${annId}/list`, { limit: 1, offset: 1, sortBy: { column: 'name', order: 'desc' } });
    assert.deepEqual(paged.data?.map((e) => e.name), ['b.txt']);
    assert.deepEqual((await bob.storage.from('docs').list(`${annId}/list`)).data, [], 'another user lists nothing');
  });

  it('copies and moves (also across buckets), and removes many', async () => {
    const src = `${annId}/list/a.txt`;
    assert.equal((await ann.storage.from('docs').copy(src, `${annId}/copy.txt`)).error, null);
    assert.equal(await (await ann.storage.from('docs').download(`${annId}/copy.txt`)).data?.text(), 'a.txt');
    assert.equal((await ann.storage.from('docs').move(`${annId}/copy.txt`, `${annId}/moved.txt`)).error, null);
    assert.ok((await ann.storage.from('docs').download(`${annId}/copy.txt`)).error, 'the source of a move is gone');
    assert.equal(await (await ann.storage.from('docs').download(`${annId}/moved.txt`)).data?.text(), 'a.txt');
    const across = await admin.storage.from('docs').copy(`${annId}/moved.txt`, 'copied.txt', { destinationBucket: 'archive' });
    assert.ok(across.error, 'no bucket archive yet');
    await admin.storage.createBucket('archive');
    assert.equal((await admin.storage.from('docs').move(`${annId}/moved.txt`, 'moved.txt', { destinationBucket: 'archive' })).error, null);
    assert.equal(await (await admin.storage.from('archive').download('moved.txt')).data?.text(), 'a.txt');
    const removed = await ann.storage.from('docs').remove([`${annId}/list/a.txt`, `${annId}/list/b.txt`, 'not-there.txt']);
    assert.deepEqual(removed.data?.map((o) => o.name).sort(), [`${annId}/list/a.txt`, `${annId}/list/b.txt`]);
    const byBob = await bob.storage.from('docs').remove([`${annId}/list/sub/c.txt`]);
    assert.deepEqual(byBob.data, [], 'policies decide what is removed');
  });

  it('signs download URLs bound to bucket, path and expiry', async () => {
    const name = `${annId}/notes/hello.txt`;
    const signed = await ann.storage.from('docs').createSignedUrl(name, 60);
    assert.equal(signed.error, null);
    const res = await fetch(signed.data!.signedUrl);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'hello again');
    const token = new URL(signed.data!.signedUrl).searchParams.get('token')!;
    const other = await fetch(`${p.url}/storage/v1/object/sign/docs/${annId}/page.html?token=${token}`);
    assert.equal(other.status, 400, 'a token signs one path only');
    const altered = await fetch(`${p.url}/storage/v1/object/sign/docs/${name}?token=${tamper(token)}`);
    assert.equal(altered.status, 400);
    const tooLong = await ann.storage.from('docs').createSignedUrl(name, 604_801);
    assert.ok(tooLong.error, 'at most 604800 seconds');
    const denied = await bob.storage.from('docs').createSignedUrl(name, 60);
    assert.ok(denied.error, 'only a reader can sign');
    const many = await ann.storage.from('docs').createSignedUrls([name, `${annId}/missing.txt`], 60);
    assert.equal(many.data?.length, 2);
    assert.ok(many.data?.[0]?.signedUrl);
    assert.ok(many.data?.[1]?.error);
    const expiring = await ann.storage.from('docs').createSignedUrl(name, 1);
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal((await fetch(expiring.data!.signedUrl)).status, 400, 'an expired token is refused');
  });

  it('signs upload URLs that write as the signer', async () => {
    const name = `${annId}/signed-upload.txt`;
    const signed = await ann.storage.from('docs').createSignedUploadUrl(name);
    assert.equal(signed.error, null);
    const anonClient = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const put = await anonClient.storage.from('docs').uploadToSignedUrl(name, signed.data!.token, Buffer.from('via signed url'), { contentType: 'text/plain' });
    assert.equal(put.error, null);
    assert.equal(await (await ann.storage.from('docs').download(name)).data?.text(), 'via signed url');
    const { rows } = await p.adminPool.query('select owner::text from storage.objects where bucket_id = $1 and name = $2', ['docs', name]);
    assert.equal(rows[0].owner, annId);
    const notAllowed = await bob.storage.from('docs').createSignedUploadUrl(`${annId}/bob.txt`);
    assert.ok(notAllowed.error, 'a user without an INSERT policy for the path cannot sign it');
  });

  it('overwrites with update() (PUT), and describes an object with info()', async () => {
    const name = `${annId}/notes/hello.txt`;
    assert.equal((await ann.storage.from('docs').update(name, Buffer.from('updated'), { contentType: 'text/plain', cacheControl: '60' })).error, null);
    assert.equal(await (await ann.storage.from('docs').download(name)).data?.text(), 'updated');
    const info = await ann.storage.from('docs').info(name);
    assert.equal(info.error, null);
    assert.equal(info.data?.name, name);
    assert.equal(info.data?.size, 7);
    assert.equal(info.data?.contentType, 'text/plain');
    assert.equal(info.data?.cacheControl, 'max-age=60');
    assert.equal(info.data?.bucketId, 'docs');
    const missing = await fetch(`${p.url}/storage/v1/object/authenticated/docs/${annId}/nothing.txt`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${annToken}` } });
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { statusCode: '404', error: 'not_found', message: 'Object not found' });
    const beyond = await fetch(`${p.url}/storage/v1/object/authenticated/docs/${name}`, { headers: { apikey: p.keys.anonKey, authorization: `Bearer ${annToken}`, range: 'bytes=100-' } });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers.get('content-range'), 'bytes */7');
  });

  it('signs many <bucket>/<path> entries in the spec’s batch form', async () => {
    const res = await fetch(`${p.url}/storage/v1/object/sign`, {
      method: 'POST',
      headers: { apikey: p.keys.anonKey, authorization: `Bearer ${annToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ paths: [`docs/${annId}/notes/hello.txt`, 'images/dot.png'], expiresIn: 120 }),
    });
    assert.equal(res.status, 200);
    const signed = (await res.json()) as Array<{ path: string; signedURL: string | null; error: string | null }>;
    assert.equal(signed[0]!.error, null);
    assert.equal(await (await fetch(`${p.url}/storage/v1${signed[0]!.signedURL}`)).text(), 'updated');
    assert.equal(signed[1]!.signedURL, null, 'no SELECT policy on images for users: no URL');
  });

  it('enforces the ceiling while streaming, and a cancelled upload leaves neither row nor bytes', async () => {
    const rows = await objectCount();
    const files = await storageFiles();
    assert.equal(await streamUpload('docs/streamed-too-big.bin', 20, 4096), 413, 'a chunked body past the 64 KB ceiling is cut at the limit');
    assert.equal(await streamUpload('docs/streamed-cancelled.bin', 20, 1024, 8 * 1024), 'aborted');
    for (let i = 0; i < 50 && (await storageFiles()) !== files; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await objectCount(), rows, 'no row');
    assert.equal(await storageFiles(), files, 'no bytes, not even a partial file');
    assert.equal(await streamUpload('docs/streamed-ok.bin', 4, 1024), 200, 'a chunked body within the limits is stored');
    assert.equal((await admin.storage.from('docs').download('streamed-ok.bin')).data?.size, 4096);
  });

  it('validates bucket settings in SQL, however they are written', async () => {
    const badTypes = await admin.storage.createBucket('typed', { public: false, allowedMimeTypes: ['not a type'] });
    assert.equal((badTypes.error as { status?: number } | null)?.status, 400);
    const zero = await admin.storage.updateBucket('images', { public: true, fileSizeLimit: 0 });
    assert.equal((zero.error as { status?: number } | null)?.status, 400);
    await assert.rejects(p.adminPool.query(`update storage.buckets set allowed_mime_types = array['x'] where id = 'images'`), /allowed_mime_types must hold types/);
  });

  it('serves HTML and SVG inline only from a bucket that opts in', async () => {
    const headers = { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${p.url}/storage/v1/bucket`, { method: 'POST', headers, body: JSON.stringify({ id: 'site', public: true, inline_active_content: true }) });
    assert.equal(created.status, 200);
    assert.equal(((await admin.storage.getBucket('site')).data as { inline_active_content?: boolean } | null)?.inline_active_content, true);
    await admin.storage.from('site').upload('index.html', Buffer.from('<!doctype html><p>hi</p>'), { contentType: 'text/html' });
    const page = await fetch(`${p.url}/storage/v1/object/public/site/index.html`);
    assert.equal(page.headers.get('content-disposition'), null, 'shown inline');
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    await page.arrayBuffer();
    const off = await fetch(`${p.url}/storage/v1/bucket/site`, { method: 'PUT', headers, body: JSON.stringify({ inline_active_content: false }) });
    assert.equal(off.status, 200);
    const again = await fetch(`${p.url}/storage/v1/object/public/site/index.html`);
    assert.match(again.headers.get('content-disposition') ?? '', /^attachment/, 'an attachment once the bucket opts out');
    await again.arrayBuffer();
    assert.equal((await admin.storage.emptyBucket('site')).error, null);
    assert.equal((await admin.storage.deleteBucket('site')).error, null);
  });

  it('sweeps bytes no row refers to, and keeps every object’s bytes', async () => {
    const stores = await openStorageStores(p.config);
    const orphan = newVersion();
    await stores.backend.write(orphan, Readable.from([Buffer.from('left behind by a crash')]), 1024);
    const before = await storageFiles();
    const query = (sql: string, values?: unknown[]) => p.adminPool.query(sql, values);
    const fresh = await sweepOrphanedBytes(stores, query, p.log, 3600);
    assert.equal(fresh.removed, 0, 'bytes younger than the grace period may belong to an upload in flight');
    const swept = await sweepOrphanedBytes(stores, query, p.log, 0);
    assert.equal(swept.removed, 1);
    assert.equal(swept.scanned, before);
    assert.equal(await storageFiles(), before - 1);
    assert.equal(await (await admin.storage.from('docs').download('streamed-ok.bin')).data?.size, 4096, 'objects keep their bytes');
  });

  it('empties and deletes buckets: 409 not_empty while objects remain', async () => {
    const del = await fetch(`${p.url}/storage/v1/bucket/archive`, { method: 'DELETE', headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` } });
    assert.equal(del.status, 409);
    assert.deepEqual(await del.json(), { statusCode: '409', error: 'not_empty', message: 'The bucket you tried to delete is not empty' });
    const before = await storageFiles();
    assert.equal((await admin.storage.emptyBucket('archive')).error, null);
    assert.equal(await storageFiles(), before - 1, 'emptying removes the bytes');
    assert.equal((await admin.storage.deleteBucket('archive')).error, null);
    assert.equal((await admin.storage.getBucket('archive')).error !== null, true);
  });
});
