// Resumable uploads across two replicas on one database and one storage
// folder, behind a load balancer without sticky sessions: chunks may land on
// either replica, and two requests on one upload never write at once (the
// Postgres advisory-lock locker), so the object is byte-identical.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string; at: number };

describe('resumable uploads across two replicas', () => {
  let a: TestPlatform;
  let b: TestPlatform;
  const chunk = 128 * 1024;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const auth = (p: TestPlatform) => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'tus-resumable': '1.0.0' });

  /** One TUS request to a replica; with `hold`, half the body is sent, then the rest once `hold` settles. */
  const send = (p: TestPlatform, method: string, pathname: string, headers: Record<string, string>, body?: Buffer, hold?: Promise<unknown>) =>
    new Promise<Answer>((resolve) => {
      const req = http.request(new URL(pathname, p.url), { method, headers: { ...auth(p), ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text, at: Date.now() }));
        res.on('error', () => resolve({ status: 0, headers: {}, body: '', at: Date.now() }));
      });
      req.on('error', () => resolve({ status: 0, headers: {}, body: 'socket closed', at: Date.now() }));
      if (!body) return void req.end();
      if (!hold) return void req.end(body);
      req.write(body.subarray(0, body.length / 2));
      void hold.then(() => req.end(body.subarray(body.length / 2)), () => req.destroy());
    });
  const create = async (p: TestPlatform, name: string, length: number) => {
    const res = await send(p, 'POST', '/storage/v1/upload/resumable', {
      'upload-length': String(length), 'upload-metadata': `bucketName ${b64('shared')},objectName ${b64(name)},contentType ${b64('application/octet-stream')}`,
    });
    assert.equal(res.status, 201, res.body);
    return new URL(res.headers.location!).pathname;
  };
  const patch = (p: TestPlatform, location: string, offset: number, bytes: Buffer, hold?: Promise<unknown>) =>
    send(p, 'PATCH', location, { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, bytes, hold);
  const download = async (p: TestPlatform, name: string) => Buffer.from(await (await fetch(`${p.url}/storage/v1/object/shared/${name}`, { headers: auth(p) })).arrayBuffer());

  before(async () => {
    const env = { WORKER: 'off', LOG_LEVEL: 'warn', JWT_SECRET: randomBytes(32).toString('hex'), DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-replicas-')) };
    a = await startTestPlatform(env);
    b = await startTestPlatform(env, { databaseUrl: a.config.DATABASE_URL! });
    const admin = createClient(a.url, a.keys.serviceRoleKey, { auth: { persistSession: false } });
    assert.equal((await admin.storage.createBucket('shared')).error, null);
  });
  after(async () => {
    await b?.stop();
    await stopTestPlatform(a);
  });

  it('takes chunks on either replica in turn and finishes byte-identical', async () => {
    const data = randomBytes(5 * chunk);
    const location = await create(a, 'alternating.bin', data.length);
    for (let i = 0, offset = 0; offset < data.length; i++, offset += chunk) {
      const res = await patch(i % 2 === 0 ? b : a, location, offset, data.subarray(offset, offset + chunk));
      assert.equal(res.status, 204, `chunk ${i}: ${res.body}`);
    }
    assert.ok((await download(a, 'alternating.bin')).equals(data));
    assert.ok((await download(b, 'alternating.bin')).equals(data));
  });

  it('never lets two replicas write one upload at once: the newer request makes the older let go', async () => {
    const data = randomBytes(4 * chunk);
    const location = await create(a, 'contended.bin', data.length);
    assert.equal((await patch(a, location, 0, data.subarray(0, chunk))).status, 204);
    // Replica A holds a PATCH open halfway through the second chunk...
    let releaseA!: () => void;
    const held = new Promise<void>((r) => (releaseA = r));
    const onA = patch(a, location, chunk, data.subarray(chunk, 2 * chunk), held);
    await new Promise((r) => setTimeout(r, 300));
    // ...while the client, having given up on it, sends the same chunk to replica B.
    const onB = await patch(b, location, chunk, data.subarray(chunk, 2 * chunk));
    const first = await Promise.race([onA, new Promise<'open'>((r) => setTimeout(() => r('open'), 100))]);
    releaseA();
    const answerA = await onA;
    assert.notEqual(first, 'open', 'A’s request had ended before B’s was answered: the lock is shared across replicas');
    assert.ok(answerA.at <= onB.at, 'A let go first');
    assert.ok([204, 409].includes(onB.status), `B wrote, or found the offset moved on: ${onB.status} ${onB.body}`);
    // The client resumes from HEAD's offset, on whichever replica.
    const head = await send(b, 'HEAD', location, {});
    assert.equal(head.status, 200);
    let offset = Number(head.headers['upload-offset']);
    assert.ok(offset >= chunk && offset <= 2 * chunk, `offset ${offset}`);
    for (let i = 0; offset < data.length; i++) {
      const next = Math.min(offset + chunk, data.length);
      const res = await patch(i % 2 === 0 ? a : b, location, offset, data.subarray(offset, next));
      assert.equal(res.status, 204, res.body);
      offset = next;
    }
    assert.ok((await download(a, 'contended.bin')).equals(data), 'byte-identical after the contention');
  });
});
