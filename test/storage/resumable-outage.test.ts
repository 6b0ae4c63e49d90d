// A resumable upload whose last chunk lands while the database is away: the
// acknowledged bytes are kept (503, never a discard), and the client's next
// HEAD, once the database is back, records the object byte-identical.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { freshDatabase } from '../helpers/db.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('resumable upload across a database outage at the last chunk', () => {
  let cluster: Cluster;
  let p: TestPlatform;
  const data = randomBytes(3 * 256 * 1024);
  const auth = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'tus-resumable': '1.0.0' });
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  /** One raw TUS request; `body` may be sent in two halves with `between` run after the first. */
  const tusRequest = (method: string, path: string, headers: Record<string, string>, body?: Buffer, between?: () => Promise<void>) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const url = new URL(path, p.url);
      const req = http.request(url, { method, headers: { ...auth(), ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      if (!body) return void req.end();
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half), () => {
        void (between ?? (async () => undefined))().then(() => req.end(body.subarray(half)), reject);
      });
    });

  before(async () => {
    cluster = await startCluster({ durable: true });
    const db = await freshDatabase(cluster.url);
    p = await startTestPlatform({ WORKER: 'off', DB_CONNECT_TIMEOUT_MS: '1000' }, { databaseUrl: db.url });
    const admin = createClient(p.url, p.keys.serviceRoleKey, { auth: { persistSession: false } });
    assert.equal((await admin.storage.createBucket('uploads')).error, null);
  });
  after(async () => {
    await stopTestPlatform(p).catch(() => undefined);
    await cluster.stop();
  });

  it('keeps the acknowledged bytes and finishes on the next HEAD', async () => {
    const created = await tusRequest('POST', '/storage/v1/upload/resumable', {
      'upload-length': String(data.length),
      'upload-metadata': `bucketName ${b64('uploads')},objectName ${b64('big.bin')},contentType ${b64('application/octet-stream')}`,
    });
    assert.equal(created.status, 201, created.body);
    const location = created.headers.location!;
    const chunk = 256 * 1024;
    for (let offset = 0; offset < data.length - chunk; offset += chunk) {
      const patched = await tusRequest('PATCH', location, { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, data.subarray(offset, offset + chunk));
      assert.equal(patched.status, 204, patched.body);
    }
    // The last chunk: the database goes away while its bytes stream in (once
    // the first of them are on disk, so the request's checks have passed).
    const version = location.split('/').pop()!;
    const partial = path.join(p.config.dataDir, 'storage', version.slice(0, 2), version);
    const whileWriting = async () => {
      for (let i = 0; i < 200 && !(existsSync(partial) && statSync(partial).size > data.length - chunk); i++) await new Promise((r) => setTimeout(r, 25));
      await cluster.kill('SIGKILL');
    };
    const last = await tusRequest('PATCH', location, { 'upload-offset': String(data.length - chunk), 'content-type': 'application/offset+octet-stream' },
      data.subarray(data.length - chunk), whileWriting);
    assert.equal(last.status, 503, `the finish waits for the database: ${last.body}`);
    assert.match(last.body, /retry shortly/);

    await cluster.start();
    let head: Awaited<ReturnType<typeof tusRequest>> | undefined;
    for (let i = 0; i < 100; i++) {
      head = await tusRequest('HEAD', location, {});
      if (head.status !== 503) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(head!.status, 200, "HEAD finds the upload, not a 404");
    assert.equal(head!.headers['upload-offset'], String(data.length), 'every byte is acknowledged');
    const { rows } = await p.adminPool.query('select count(*)::int as n from storage.objects where bucket_id = $1 and name = $2', ['uploads', 'big.bin']);
    assert.equal(rows[0].n, 1, 'the HEAD recorded the object');
    const got = await fetch(`${p.url}/storage/v1/object/uploads/big.bin`, { headers: auth() });
    assert.equal(got.status, 200);
    assert.ok(Buffer.from(await got.arrayBuffer()).equals(data), 'the object is byte-identical');
    const again = await tusRequest('HEAD', location, {});
    assert.equal(again.status, 404, 'a finished upload is gone from the resumable endpoint');
  });
});
