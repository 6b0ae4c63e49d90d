// The whole server killed (SIGKILL) in the middle of a plain upload and of a
// resumable one, then started again: no object row without its bytes, every
// acknowledged object byte-identical, and the TUS upload resumes from HEAD's
// offset to an identical file.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { signApiKey } from '../../server/keys.ts';
import { freePort } from '../helpers/cluster.ts';
import { freshDatabase } from '../helpers/db.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

describe('server killed mid-upload', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let server: ChildProcess | undefined;
  let port: number;
  let key: string;
  const secret = randomBytes(32).toString('hex');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pgbase-crash-'));
  const headers = () => ({ apikey: key, authorization: `Bearer ${key}` });

  const start = async () => {
    server = spawn(process.execPath, ['server/main.ts'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.url, DATA_DIR: dataDir, JWT_SECRET: secret, PORT: String(port), PLATFORM_PORT: '0', HOST: '127.0.0.1', WORKER: 'off', LOG_LEVEL: 'warn', MIGRATIONS_DIR: path.join(dataDir, 'none') },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (let i = 0; i < 300; i++) {
      if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the server did not start');
  };
  const kill = async () => {
    const s = server!;
    const exited = new Promise((r) => s.once('exit', r));
    s.kill('SIGKILL');
    await exited;
    server = undefined;
  };
  /** A request whose body is sent in pieces; never resolves if the server dies first (the caller races it). */
  const slowRequest = (method: string, pathname: string, extra: Record<string, string>, body: Buffer, pieces: number, onPiece: (i: number) => void) =>
    new Promise<number>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method, path: pathname, headers: { ...headers(), ...extra, 'content-length': String(body.length) } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', () => resolve(0));
      const size = Math.ceil(body.length / pieces);
      let i = 0;
      const next = () => {
        if (i >= pieces) return void req.end();
        req.write(body.subarray(i * size, (i + 1) * size), () => {
          onPiece(i++);
          setTimeout(next, 20);
        });
      };
      next();
    });

  before(async () => {
    db = await freshDatabase();
    port = await freePort();
    key = await signApiKey(secret, 'default', 'service_role');
    await start();
    const made = await fetch(`http://127.0.0.1:${port}/storage/v1/bucket`, { method: 'POST', headers: { ...headers(), 'content-type': 'application/json' }, body: JSON.stringify({ id: 'files' }) });
    assert.equal(made.status, 200);
  });
  after(async () => {
    if (server) await kill();
    await db.drop();
  });

  it('loses nothing acknowledged and leaves no row without bytes', async () => {
    const acknowledged = new Map<string, Buffer>();
    for (let i = 0; i < 5; i++) {
      const bytes = randomBytes(10_000 + i);
      const res = await fetch(`http://127.0.0.1:${port}/storage/v1/object/files/done-${i}.bin`, { method: 'POST', headers: { ...headers(), 'content-type': 'application/octet-stream' }, body: bytes });
      assert.equal(res.status, 200);
      acknowledged.set(`done-${i}.bin`, bytes);
    }
    // A TUS upload with two chunks acknowledged, then a third in flight.
    const data = randomBytes(4 * 256 * 1024);
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const created = await fetch(`http://127.0.0.1:${port}/storage/v1/upload/resumable`, {
      method: 'POST', headers: { ...headers(), 'tus-resumable': '1.0.0', 'upload-length': String(data.length), 'upload-metadata': `bucketName ${b64('files')},objectName ${b64('resumable.bin')}` },
    });
    assert.equal(created.status, 201);
    const location = new URL(created.headers.get('location')!).pathname;
    const chunk = 256 * 1024;
    for (let offset = 0; offset < 2 * chunk; offset += chunk) {
      const res = await fetch(`http://127.0.0.1:${port}${location}`, {
        method: 'PATCH', headers: { ...headers(), 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, body: data.subarray(offset, offset + chunk),
      });
      assert.equal(res.status, 204);
    }
    // Both in flight when the server dies: a plain upload and the third chunk.
    let plainPieces = 0;
    let tusPieces = 0;
    const plain = slowRequest('POST', '/storage/v1/object/files/in-flight.bin', { 'content-type': 'application/octet-stream' }, randomBytes(2 * 1024 * 1024), 40, (i) => (plainPieces = i + 1));
    const third = slowRequest('PATCH', location, { 'tus-resumable': '1.0.0', 'upload-offset': String(2 * chunk), 'content-type': 'application/offset+octet-stream' }, data.subarray(2 * chunk, 3 * chunk), 20, (i) => (tusPieces = i + 1));
    for (let i = 0; i < 200 && (plainPieces < 10 || tusPieces < 5); i++) await new Promise((r) => setTimeout(r, 20));
    await kill();
    assert.equal(await plain, 0, 'the plain upload was not acknowledged');
    assert.equal(await third, 0, 'the third chunk was not acknowledged');

    await start();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query(`select name, version, (metadata->>'size')::bigint as size from storage.objects`).finally(() => client.end());
    for (const row of rows as Array<{ name: string; version: string; size: string }>) {
      const file = path.join(dataDir, 'storage', row.version.slice(0, 2), row.version);
      assert.ok(existsSync(file), `${row.name} has its bytes`);
      assert.equal(statSync(file).size, Number(row.size), `${row.name} has all its bytes`);
    }
    assert.ok(!rows.some((r: { name: string }) => r.name === 'in-flight.bin'), 'the interrupted plain upload left no row');
    for (const [name, bytes] of acknowledged) {
      const got = Buffer.from(await (await fetch(`http://127.0.0.1:${port}/storage/v1/object/files/${name}`, { headers: headers() })).arrayBuffer());
      assert.ok(got.equals(bytes), `${name} is byte-identical`);
    }
    const head = await fetch(`http://127.0.0.1:${port}${location}`, { method: 'HEAD', headers: { ...headers(), 'tus-resumable': '1.0.0' } });
    assert.equal(head.status, 200);
    let offset = Number(head.headers.get('upload-offset'));
    assert.ok(offset >= 2 * chunk && offset < 3 * chunk, `resumes at or after the acknowledged offset (${offset})`);
    while (offset < data.length) {
      const next = Math.min(offset + chunk, data.length);
      const res = await fetch(`http://127.0.0.1:${port}${location}`, {
        method: 'PATCH', headers: { ...headers(), 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, body: data.subarray(offset, next),
      });
      assert.ok([200, 204].includes(res.status), `PATCH at ${offset}: ${res.status}`);
      offset = next;
    }
    const finished = Buffer.from(await (await fetch(`http://127.0.0.1:${port}/storage/v1/object/files/resumable.bin`, { headers: headers() })).arrayBuffer());
    assert.ok(finished.equals(data), 'the resumed upload is byte-identical');
  });
});
