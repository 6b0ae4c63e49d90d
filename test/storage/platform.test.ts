// The control plane's storage endpoints: buckets listed and files uploaded by
// an operator with a platform token; project keys are refused.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { signPlatformToken } from '../../server/keys.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

const PLATFORM_SECRET = randomBytes(32).toString('hex');

describe('control plane: storage', () => {
  let p: TestPlatform;
  let token: string;
  before(async () => {
    p = await startTestPlatform({ WORKER: 'off', PLATFORM_JWT_SECRET: PLATFORM_SECRET, PROJECT_REF: 'acme' });
    token = await signPlatformToken(PLATFORM_SECRET, 'ops@example.com', ['acme'], 3600);
    await p.adminPool.query(`insert into storage.buckets (id, name, public) values ('media', 'media', true)`);
  });
  after(async () => stopTestPlatform(p));

  const call = (path: string, auth: string | undefined, init: RequestInit = {}) =>
    fetch(`${p.platformUrl}/api/platform${path}`, { ...init, headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}) } });

  it('lists buckets with a platform token, and refuses the service-role key', async () => {
    const listed = await call('/storage/acme/buckets', token);
    assert.equal(listed.status, 200);
    const buckets = (await listed.json()) as Array<{ id: string; public: boolean }>;
    assert.deepEqual(buckets.map((b) => [b.id, b.public]), [['media', true]]);
    const refused = await call('/storage/acme/buckets', p.keys.serviceRoleKey);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'unauthorized');
    assert.equal((await call('/storage/other/buckets', token)).status, 403);
  });

  it('uploads a multipart file in field file, readable from the project API', async () => {
    const form = new FormData();
    form.append('file', new Blob(['operator upload'], { type: 'text/plain' }), 'note.txt');
    const up = await call('/storage/acme/object/media/docs/note.txt', token, { method: 'POST', body: form });
    assert.equal(up.status, 200);
    assert.equal(((await up.json()) as { Key: string }).Key, 'media/docs/note.txt');
    const read = await fetch(`${p.url}/storage/v1/object/public/media/docs/note.txt`);
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('content-type'), 'text/plain');
    assert.equal(await read.text(), 'operator upload');
    const raw = await call('/storage/acme/object/media/raw.txt', token, { method: 'POST', body: 'x' });
    assert.equal(raw.status, 400);
  });
});
