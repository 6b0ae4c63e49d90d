// Storage as an outsider attacks it: signed-URL tokens tried as API
// credentials and on other routes, paths and parameters; object names that
// climb out of the storage root; active content dressed up as an image.
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import sharp from 'sharp';
import * as tus from 'tus-js-client';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const HTML = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');

describe('storage attacks: signed URLs, paths, active content', () => {
  let p: TestPlatform;
  let admin: SupabaseClient;
  let png: Buffer;

  /** A request sent exactly as written (fetch would normalise `..` and `%2e`). */
  const raw = (method: string, rawPath: string, body?: Buffer | string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const url = new URL(p.url);
      const req = http.request({ host: url.hostname, port: url.port, method, path: rawPath, headers: {
        apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, ...(body !== undefined ? { 'content-type': 'text/plain' } : {}), ...headers,
      } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  /** Every file under DATA_DIR, relative to it. */
  const dataFiles = () => readdirSync(p.config.dataDir, { recursive: true }).map(String).filter((f) => statSync(path.join(p.config.dataDir, f)).isFile()).sort();
  const objectNames = async () => (await p.adminPool.query<{ name: string }>('select name from storage.objects order by name')).rows.map((r) => r.name);

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c00' } }).png().toBuffer();
    assert.equal((await admin.storage.createBucket('files', { public: false })).error, null);
    assert.equal((await admin.storage.createBucket('images', { public: true, allowedMimeTypes: ['image/png'] })).error, null);
    assert.equal((await admin.storage.from('files').upload('secret.txt', Buffer.from('top secret'), { contentType: 'text/plain' })).error, null);
    assert.equal((await admin.storage.from('files').upload('other.txt', Buffer.from('other'), { contentType: 'text/plain' })).error, null);
    assert.equal((await admin.storage.from('files').upload('pic.png', png, { contentType: 'image/png' })).error, null);
  });
  after(() => stopTestPlatform(p));

  it('a signed-URL token of any kind, minted with the service key, is no API credential', async () => {
    const download = new URL((await admin.storage.from('files').createSignedUrl('secret.txt', 600)).data!.signedUrl).searchParams.get('token')!;
    const render = new URL((await admin.storage.from('files').createSignedUrl('pic.png', 600, { transform: { width: 10 } })).data!.signedUrl).searchParams.get('token')!;
    const upload = (await admin.storage.from('files').createSignedUploadUrl('new.txt')).data!.token;
    for (const [kind, token] of [['download', download], ['render', render], ['upload', upload]] as const) {
      const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
      assert.equal(payload.role, undefined, `a ${kind} token carries no role claim`);
      assert.equal(payload.aud, kind === 'download' ? 'storage:object' : `storage:${kind}`, `a ${kind} token names its operation`);
      const asBearer = { apikey: p.keys.anonKey, authorization: `Bearer ${token}` };
      const rest = await fetch(`${p.url}/rest/v1/`, { headers: asBearer });
      assert.equal(rest.status, 401, `a ${kind} token as Bearer is refused by REST`);
      const adminUsers = await fetch(`${p.url}/auth/v1/admin/users`, { headers: asBearer });
      assert.equal(adminUsers.status, 403, `a ${kind} token as Bearer is refused by auth admin (GoTrue's bad_jwt)`);
      const buckets = await fetch(`${p.url}/storage/v1/bucket`, { headers: asBearer });
      assert.equal(buckets.status, 401, `a ${kind} token as Bearer is refused by storage`);
      const asKey = await fetch(`${p.url}/storage/v1/bucket`, { headers: { apikey: token } });
      assert.equal(asKey.status, 401, `a ${kind} token as apikey is refused`);
    }
  });

  it('a signed URL works for its own route, object and parameters only', async () => {
    const signed = (await admin.storage.from('files').createSignedUrl('pic.png', 600, { transform: { width: 10 } })).data!.signedUrl;
    const renderToken = new URL(signed).searchParams.get('token')!;
    const ok = await fetch(signed);
    assert.equal(ok.status, 200);
    assert.equal((await sharp(Buffer.from(await ok.arrayBuffer())).metadata()).width, 10, 'the signed transform is applied');
    const original = await fetch(`${p.url}/storage/v1/object/sign/files/pic.png?token=${renderToken}`);
    assert.equal(original.status, 400, 'a render token does not download the original');
    assert.equal((await original.json() as { error: string }).error, 'InvalidJWT');
    const wider = await fetch(`${signed}&width=400`);
    assert.equal(wider.status, 400, 'changed transform parameters are refused');
    const sameWidth = await fetch(`${signed}&width=10`);
    assert.equal(sameWidth.status, 200, 'parameters equal to the signed ones are accepted');

    const download = (await admin.storage.from('files').createSignedUrl('secret.txt', 600)).data!.signedUrl;
    const token = new URL(download).searchParams.get('token')!;
    const otherPath = await fetch(`${p.url}/storage/v1/object/sign/files/other.txt?token=${token}`);
    assert.equal(otherPath.status, 400, 'another path');
    assert.doesNotMatch(await otherPath.text(), /other/, 'no bytes of the other object');
    const edited = await raw('GET', `/storage/v1/object/sign/files/x/../secret.txt?token=${token}`, undefined, { apikey: '', authorization: '' });
    assert.equal(edited.status, 400, 'an edited path');
    const asRender = await fetch(`${p.url}/storage/v1/render/image/sign/files/secret.txt?token=${token}`);
    assert.equal(asRender.status, 400, 'a download token does not render');
    const asUpload = await fetch(`${p.url}/storage/v1/object/upload/sign/files/secret.txt?token=${token}`, { method: 'PUT', body: 'overwritten', headers: { 'content-type': 'text/plain' } });
    assert.equal(asUpload.status, 400, 'a download token does not upload');

    const shortLived = (await admin.storage.from('files').createSignedUrl('secret.txt', 1)).data!.signedUrl;
    await new Promise((r) => setTimeout(r, 2100));
    const expired = await fetch(shortLived);
    assert.equal(expired.status, 400, 'an expired token');
    assert.doesNotMatch(await expired.text(), /top secret/);

    const { data } = await admin.storage.from('files').download('secret.txt');
    assert.equal(await data!.text(), 'top secret', 'nothing was overwritten');
  });

  it('a plain signed upload token writes once (then 409, as Supabase answers); one minted with upsert overwrites only its own path', async () => {
    const { data } = await admin.storage.from('files').createSignedUploadUrl('once.txt');
    const anon = createClient(p.url, p.keys.anonKey, { auth: { persistSession: false } });
    const first = await anon.storage.from('files').uploadToSignedUrl('once.txt', data!.token, Buffer.from('first'), { contentType: 'text/plain' });
    assert.equal(first.error, null);
    const again = await fetch(`${p.url}/storage/v1/object/upload/sign/files/once.txt?token=${data!.token}`, { method: 'PUT', body: 'second', headers: { 'content-type': 'text/plain', 'x-upsert': 'true' } });
    assert.equal(again.status, 409, 'a reused plain upload token cannot overwrite');
    assert.match(await again.text(), /Duplicate/);
    assert.equal(await (await admin.storage.from('files').download('once.txt')).data!.text(), 'first', 'the first write stands');
    const upserting = (await admin.storage.from('files').createSignedUploadUrl('mine.txt', { upsert: true })).data!.token;
    const otherPath = await fetch(`${p.url}/storage/v1/object/upload/sign/files/once.txt?token=${upserting}`, { method: 'PUT', body: 'hijack', headers: { 'content-type': 'text/plain', 'x-upsert': 'true' } });
    assert.equal(otherPath.status, 400, 'an upsert token is still bound to its own path');
    assert.equal(await (await admin.storage.from('files').download('once.txt')).data!.text(), 'first');
    const elsewhere = (await admin.storage.from('files').createSignedUploadUrl('there.txt')).data!.token;
    const wrongPath = await fetch(`${p.url}/storage/v1/object/upload/sign/files/here.txt?token=${elsewhere}`, { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain' } });
    assert.equal(wrongPath.status, 400, 'an upload token for another path');
    assert.ok(!(await objectNames()).includes('here.txt'));
  });

  it('object names that climb out, hide a backslash or a NUL, or run past 1,024 bytes are refused everywhere', async () => {
    const before = dataFiles();
    const objects = await objectNames();
    const names = ['../escape.txt', 'a/../../escape.txt', '%2e%2e/escape.txt', '%2E%2E%2Fescape.txt', '..%5cescape.txt', 'a%5c..%5c..%5cescape.txt', '..\\escape.txt', 'nul%00.txt', '/etc/passwd', `${'a'.repeat(1025)}`];
    for (const name of names) {
      const res = await raw('POST', `/storage/v1/object/files/${name}`, 'escaped');
      assert.equal(res.status, 400, `upload ${JSON.stringify(name)}: ${res.status} ${res.body}`);
    }
    for (const dest of ['../escape.txt', 'a\\..\\escape.txt', '/abs.txt', 'a/./b.txt', 'x'.repeat(1025)]) {
      for (const op of ['copy', 'move']) {
        const res = await raw('POST', `/storage/v1/object/${op}`, JSON.stringify({ bucketId: 'files', sourceKey: 'other.txt', destinationKey: dest }), { 'content-type': 'application/json' });
        assert.equal(res.status, 400, `${op} to ${JSON.stringify(dest)}: ${res.status} ${res.body}`);
      }
    }
    for (const name of ['../escape.txt', '..\\escape.txt']) {
      const status = await new Promise<number | undefined>((resolve) => {
        const upload = new tus.Upload(Buffer.from('escaped'), {
          endpoint: `${p.url}/storage/v1/upload/resumable`, retryDelays: [],
          headers: { apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}` },
          metadata: { bucketName: 'files', objectName: name, contentType: 'text/plain' },
          onError: (err) => resolve((err as tus.DetailedError).originalResponse?.getStatus()),
          onSuccess: () => resolve(200),
        });
        upload.start();
      });
      assert.equal(status, 400, `TUS ${JSON.stringify(name)}`);
    }
    assert.deepEqual(await objectNames(), objects, 'no object row was written');
    assert.deepEqual(dataFiles(), before, 'no file was written anywhere under DATA_DIR');
    assert.ok(!readdirSync(path.dirname(p.config.dataDir)).some((f) => f.startsWith('escape')), 'nothing beside DATA_DIR');
  });

  it('HTML declared as an allowed image is refused, and active content never goes out inline', async () => {
    const disguised = await admin.storage.from('images').upload('x.png', HTML, { contentType: 'image/png' });
    assert.ok(disguised.error, 'HTML bytes labelled image/png are refused by the sniffed type');
    assert.ok(!(await objectNames()).includes('x.png'));
    const cases: Array<[string, string]> = [['list.bin', 'image/png, text/html'], ['style.xsl', 'text/xsl'], ['page.html', 'text/html'], ['pic.svg', 'image/svg+xml'], ['doc.xhtml', 'application/xhtml+xml']];
    for (const [name, type] of cases) {
      const put = await raw('POST', `/storage/v1/object/files/${name}`, HTML, { 'content-type': type });
      assert.equal(put.status, 200, `${type} stored: ${put.body}`);
      const got = await raw('GET', `/storage/v1/object/authenticated/files/${name}`);
      assert.equal(got.status, 200);
      assert.match(String(got.headers['content-disposition']), /^attachment/, `${type} is sent as an attachment`);
      assert.equal(got.headers['x-content-type-options'], 'nosniff');
      assert.equal(got.headers['content-security-policy'], 'sandbox');
      assert.ok(!String(got.headers['content-type']).includes(','), `one type is sent for ${type}: ${got.headers['content-type']}`);
    }
    const image = await raw('GET', '/storage/v1/object/authenticated/files/pic.png');
    assert.equal(image.headers['content-disposition'], undefined, 'a PNG is shown inline');
    assert.equal(image.headers['content-security-policy'], 'sandbox', 'and sandboxed too');
  });
});
