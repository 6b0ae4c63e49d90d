// Resumable uploads (TUS 1.0) at /storage/v1/upload/resumable with tus-js-client,
// on both backends: authorisation and bucket rules at creation, progress by
// HEAD, resuming after a client disconnect and after a server restart, upsert,
// and the worker job that deletes expired unfinished uploads with their bytes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import { Readable } from 'node:stream';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import * as tus from 'tus-js-client';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { freshDatabase } from '../helpers/db.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { newVersion } from '../../server/storage/backend.ts';
import { openStorageStores } from '../../server/storage/stores.ts';

const CHUNK = 64 * 1024;

type Outcome = { ok: true; url: string } | { ok: false; status: number | undefined; body: string };

for (const backend of ['local', 's3'] as const) describe(`resumable upload on ${backend === 'local' ? 'local files' : 'S3'} with tus-js-client`, () => {
  let p: TestPlatform;
  let s3: TestS3 | undefined;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let admin: SupabaseClient;
  let ann: { client: SupabaseClient; id: string; token: string };
  let bob: { client: SupabaseClient; id: string; token: string };
  let env: Record<string, string>;

  const start = async () => {
    p = await startTestPlatform(env, { databaseUrl: db.url });
    admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
  };
  const signUp = async (email: string) => {
    const client = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const { data, error } = await client.auth.signUp({ email, password: 'a-good-password' });
    assert.equal(error, null);
    return { client, id: data.user!.id, token: data.session!.access_token };
  };
  const endpoint = () => `${p.url}/storage/v1/upload/resumable`;
  const headersFor = (token: string, extra: Record<string, string> = {}) => ({ apikey: p.keys.anonKey, authorization: `Bearer ${token}`, ...extra });

  /** Runs a tus upload; `stopAfter` bytes acknowledged, it is aborted (a client that went away). */
  const tusUpload = (data: Buffer, opts: { token: string; bucket: string; name: string; type?: string; upsert?: boolean; uploadUrl?: string; stopAfter?: number; onOffset?: (n: number) => void }) =>
    new Promise<Outcome>((resolve) => {
      const upload: tus.Upload = new tus.Upload(data, {
        endpoint: endpoint(),
        ...(opts.uploadUrl ? { uploadUrl: opts.uploadUrl } : {}),
        chunkSize: CHUNK,
        retryDelays: [],
        headers: headersFor(opts.token, opts.upsert ? { 'x-upsert': 'true' } : {}),
        metadata: { bucketName: opts.bucket, objectName: opts.name, contentType: opts.type ?? 'application/octet-stream', cacheControl: '60' },
        onChunkComplete: (_size, accepted) => {
          opts.onOffset?.(accepted);
          if (opts.stopAfter !== undefined && accepted >= opts.stopAfter) {
            void upload.abort().then(() => resolve({ ok: true, url: upload.url! }));
          }
        },
        onSuccess: () => resolve({ ok: true, url: upload.url! }),
        onError: (err) => {
          const res = (err as tus.DetailedError).originalResponse;
          resolve({ ok: false, status: res?.getStatus(), body: res?.getBody() ?? err.message });
        },
      });
      upload.start();
    });
  const offsetOf = async (url: string, token: string) => {
    const res = await fetch(url, { method: 'HEAD', headers: headersFor(token, { 'tus-resumable': '1.0.0' }) });
    return { status: res.status, offset: res.headers.get('upload-offset'), length: res.headers.get('upload-length'), tus: res.headers.get('tus-resumable') };
  };
  const download = async (client: SupabaseClient, bucket: string, name: string) => Buffer.from(await (await client.storage.from(bucket).download(name)).data!.arrayBuffer());
  const unfinished = async () => Number((await p.adminPool.query('select count(*) from storage.resumable_uploads')).rows[0].count);
  /** Whether the bytes of a version are stored (finished or not). */
  const stored = async (version: string) =>
    s3 ? (await s3.keys(`objects/${version.slice(0, 2)}/${version}`)).length > 0 : existsSync(path.join(p.config.dataDir, 'storage', version.slice(0, 2), version));

  before(async () => {
    db = await freshDatabase();
    if (backend === 's3') s3 = await startS3();
    env = {
      JWT_SECRET: randomBytes(32).toString('hex'),
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-tus-')),
      STORAGE_UPLOAD_LIMIT: String(128 * 1024),
      ...s3?.env,
    };
    await start();
    ann = await signUp('ann@example.com');
    bob = await signUp('bob@example.com');
    await admin.storage.createBucket('docs', { public: false, fileSizeLimit: 2 * 1024 * 1024 });
    await admin.storage.createBucket('pics', { public: false, allowedMimeTypes: ['image/*'] });
    await p.adminPool.query(`
      create policy "own folder: read" on storage.objects for select to authenticated
        using (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text);
      create policy "own folder: write" on storage.objects for insert to authenticated
        with check (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text);
      create policy "own folder: update" on storage.objects for update to authenticated
        using (bucket_id = 'docs' and (storage.foldername(name))[1] = auth.uid()::text);`);
  });
  after(async () => {
    await stopTestPlatform(p);
    await db.drop();
    await s3?.stop();
  });

  it('uploads a file larger than the per-request ceiling in chunks, as the caller, with its metadata', async () => {
    const data = randomBytes(300 * 1024);
    const name = `${ann.id}/big.bin`;
    const result = await tusUpload(data, { token: ann.token, bucket: 'docs', name });
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.deepEqual(await download(ann.client, 'docs', name), data, 'the same bytes come back');
    const info = await ann.client.storage.from('docs').info(name);
    assert.equal(info.data?.size, data.length);
    assert.equal(info.data?.contentType, 'application/octet-stream');
    assert.equal(info.data?.cacheControl, 'max-age=60');
    const { rows } = await p.adminPool.query(`select owner_id, metadata->>'eTag' as etag from storage.objects where name = $1`, [name]);
    assert.equal(rows[0].owner_id, ann.id, 'recorded as the uploader');
    assert.match(rows[0].etag, /^".+"$/);
    assert.equal(await unfinished(), 0, 'the finished upload is off the books');
    const plain = await ann.client.storage.from('docs').upload(`${ann.id}/plain.bin`, data);
    assert.equal((plain.error as { status?: number } | null)?.status, 413, 'the same file is too big for a plain upload');
  });

  it('checks policies and bucket rules when the upload is created, before any byte is stored', async () => {
    const intrude = await tusUpload(Buffer.alloc(1000), { token: bob.token, bucket: 'docs', name: `${ann.id}/intrude.bin` });
    assert.equal(intrude.ok, false);
    assert.equal((intrude as { status?: number }).status, 403);
    assert.deepEqual(JSON.parse((intrude as { body: string }).body), { statusCode: '403', error: 'Unauthorized', message: 'new row violates row-level security policy' });
    const tooBig = await tusUpload(Buffer.alloc(2 * 1024 * 1024 + 1), { token: ann.token, bucket: 'docs', name: `${ann.id}/huge.bin` });
    assert.equal((tooBig as { status?: number }).status, 413, "the bucket's size limit holds against Upload-Length");
    const wrongType = await tusUpload(Buffer.alloc(10), { token: p.keys.serviceRoleKey, bucket: 'pics', name: 'a.txt', type: 'text/plain' });
    assert.equal((wrongType as { status?: number }).status, 415);
    const disguised = await tusUpload(Buffer.from('<!doctype html><script>alert(1)</script>'), { token: p.keys.serviceRoleKey, bucket: 'pics', name: 'fake.png', type: 'image/png' });
    assert.equal((disguised as { status?: number }).status, 415, 'HTML labelled image/png is refused when the bytes arrive');
    assert.equal((await admin.storage.from('pics').list()).data?.length, 0, 'and is not kept');
    const noBucket = await tusUpload(Buffer.alloc(10), { token: ann.token, bucket: 'nope', name: `${ann.id}/x` });
    assert.equal((noBucket as { status?: number }).status, 404);
    assert.equal(await unfinished(), 0, 'refused creations leave nothing behind');
  });

  it('reports progress by HEAD and resumes after the client went away; others cannot touch the upload', async () => {
    const data = randomBytes(5 * CHUNK);
    const name = `${ann.id}/resumed.bin`;
    const first = await tusUpload(data, { token: ann.token, bucket: 'docs', name, stopAfter: 2 * CHUNK });
    assert.equal(first.ok, true);
    const url = (first as { url: string }).url;
    const progress = await offsetOf(url, ann.token);
    assert.equal(progress.status, 200);
    assert.equal(Number(progress.offset), 2 * CHUNK, 'HEAD reports the bytes received');
    assert.equal(Number(progress.length), data.length);
    assert.equal(progress.tus, '1.0.0', 'answers carry Tus-Resumable: 1.0.0');
    const noVersion = await fetch(url, { method: 'HEAD', headers: headersFor(ann.token) });
    assert.equal(noVersion.status, 412, 'a request without Tus-Resumable is refused');
    assert.equal((await offsetOf(url, bob.token)).status, 404, "another user cannot see ann's upload");
    const patch = await fetch(url, { method: 'PATCH', headers: headersFor(bob.token, { 'tus-resumable': '1.0.0', 'upload-offset': String(2 * CHUNK), 'content-type': 'application/offset+octet-stream' }), body: Buffer.alloc(10) });
    assert.equal(patch.status, 404, 'nor write to it');
    const offsets: number[] = [];
    const resumed = await tusUpload(data, { token: ann.token, bucket: 'docs', name, uploadUrl: url, onOffset: (n) => offsets.push(n) });
    assert.equal(resumed.ok, true, JSON.stringify(resumed));
    assert.equal(offsets[0], 3 * CHUNK, 'the resumed upload starts where the first stopped');
    assert.deepEqual(await download(ann.client, 'docs', name), data);
  });

  it('refuses a duplicate name at creation unless x-upsert is set, which replaces the object', async () => {
    const name = `${ann.id}/twice.txt`;
    assert.equal((await tusUpload(Buffer.from('first'), { token: ann.token, bucket: 'docs', name, type: 'text/plain' })).ok, true);
    const dup = await tusUpload(Buffer.from('second'), { token: ann.token, bucket: 'docs', name, type: 'text/plain' });
    assert.equal((dup as { status?: number }).status, 409);
    const { rows: [old] } = await p.adminPool.query('select version from storage.objects where name = $1', [name]);
    assert.equal((await tusUpload(Buffer.from('second'), { token: ann.token, bucket: 'docs', name, type: 'text/plain', upsert: true })).ok, true);
    assert.equal((await download(ann.client, 'docs', name)).toString(), 'second');
    assert.equal(await stored(old.version), false, 'the replaced bytes are deleted');
  });

  it('resumes an upload after the server restarts', async () => {
    const data = randomBytes(4 * CHUNK);
    const name = `${ann.id}/across-restart.bin`;
    const first = await tusUpload(data, { token: ann.token, bucket: 'docs', name, stopAfter: CHUNK });
    const oldUrl = new URL((first as { url: string }).url);
    await p.stop();
    await start();
    const url = `${p.url}${oldUrl.pathname}`;
    assert.equal(Number((await offsetOf(url, ann.token)).offset), CHUNK, 'the new process knows the offset');
    const resumed = await tusUpload(data, { token: ann.token, bucket: 'docs', name, uploadUrl: url });
    assert.equal(resumed.ok, true, JSON.stringify(resumed));
    assert.deepEqual(await download(admin, 'docs', name), data);
  });

  it('cancels an upload with DELETE: its bytes and its record go, and only its creator may', async () => {
    const first = await tusUpload(randomBytes(3 * CHUNK), { token: ann.token, bucket: 'docs', name: `${ann.id}/cancelled.bin`, stopAfter: CHUNK });
    const url = (first as { url: string }).url;
    const version = url.split('/').pop()!;
    // Unfinished bytes: a file on local disk; on S3, multipart parts beside an .info record.
    const pending = async () => (s3 ? (await s3.keys(`resumable/${version}`)).length > 0 : await stored(version));
    assert.equal(await pending(), true);
    const del = (token: string) => fetch(url, { method: 'DELETE', headers: headersFor(token, { 'tus-resumable': '1.0.0' }) });
    assert.equal((await del(bob.token)).status, 404, 'not by another user');
    assert.equal((await del(ann.token)).status, 204);
    for (let i = 0; i < 100 && (await unfinished()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await unfinished(), 0, 'the record is gone');
    assert.equal(await pending(), false, 'and the bytes');
    assert.equal((await offsetOf(url, ann.token)).status, 404);
  });

  it('a worker job deletes expired unfinished uploads with their bytes', async () => {
    const name = `${ann.id}/abandoned.bin`;
    const first = await tusUpload(randomBytes(3 * CHUNK), { token: ann.token, bucket: 'docs', name, stopAfter: CHUNK });
    const url = (first as { url: string }).url;
    const version = url.split('/').pop()!;
    assert.equal(await unfinished(), 1);
    await p.adminPool.query(`update storage.resumable_uploads set expires_at = now() - interval '1 second'`);
    assert.equal((await offsetOf(url, ann.token)).status, 404, 'an expired upload cannot be continued');
    await p.adminPool.query(`select graphile_worker.add_job('storage_expire_resumable')`);
    for (let i = 0; i < 200 && (await unfinished()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await unfinished(), 0, 'the job took it off the books');
    for (let i = 0; i < 100 && (await stored(version)); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await stored(version), false, 'and deleted its bytes');
  });

  it('the scheduled sweeper job removes bytes no row refers to, and no others', async () => {
    const stores = await openStorageStores(p.config);
    const orphan = newVersion();
    await stores.backend.write(orphan, Readable.from([Buffer.from('left by a crash')]), 1024);
    const { rows: [kept] } = await p.adminPool.query(`select version from storage.objects where name = $1`, [`${ann.id}/big.bin`]);
    await p.adminPool.query(`select graphile_worker.add_job('storage_sweep_orphans', '{"graceSeconds": 0}')`);
    for (let i = 0; i < 200 && (await stored(orphan)); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await stored(orphan), false, 'the orphan is gone');
    assert.equal(await stored(kept.version), true, "an object's bytes stay");
  });
});
