// `npm run bench:storage`: object storage on loopback, each figure beside its
// floor in the same run, interleaved over rounds (median), because this
// machine is noisy:
//   - a 100 MB object up and down against a bare node:http server streaming the
//     same bytes to and from a file on the same disk (bench/bare-storage-server.ts)
//   - the same 100 MB by TUS (tus-js-client, 6 MB chunks), against the same floor
//   - 1 KB objects uploaded and downloaded per second, against the same floor
//   - JPEG (4032x3024) to 720 px per second, against sharp called directly
// Every downloaded byte is compared with what was sent (md5); a mismatch fails
// the run. The platform and the floor each run in their own process.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import * as tus from 'tus-js-client';
import { migrate } from '../db/migrate.ts';
import { signToken } from '../server/keys.ts';
import { freePort, startCluster } from '../test/helpers/cluster.ts';
import { BenchProcesses } from './processes.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BIG = Number(process.env.BENCH_BIG_MB ?? 100) * 1024 * 1024;
const SMALL_COUNT = Number(process.env.BENCH_SMALL_COUNT ?? 1000);
const SMALL_CONCURRENCY = 16;
const RENDERS = Number(process.env.BENCH_RENDERS ?? 40);
const RENDER_CONCURRENCY = Number(process.env.BENCH_RENDER_CONCURRENCY ?? Math.max(2, os.availableParallelism()));
const SECRET = 'bench-secret-bench-secret-bench-secret!!';
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mbps = (bytes: number, ms: number) => bytes / 1024 / 1024 / (ms / 1000);

/** One request: body written in 1 MB slices; the answer's body md5-hashed as it streams. */
function request(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; size: number; hash: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) }, agent }, (res) => {
      const hash = createHash('md5');
      let size = 0;
      res.on('data', (c: Buffer) => {
        hash.update(c);
        size += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode!, size, hash: hash.digest('hex') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (!body) return void req.end();
    let offset = 0;
    const write = () => {
      while (offset < body.length) {
        const slice = body.subarray(offset, offset + 1024 * 1024);
        offset += slice.length;
        if (!req.write(slice)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function inParallel(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await fn(next++);
  }));
}

const cluster = await startCluster();
const processes = new BenchProcesses();
const check = (ok: boolean, what: string) => {
  if (!ok) throw new Error(`bench check failed: ${what}`);
};
try {
  await migrate(cluster.url);
  const apiPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  await processes.startPlatform(api, {
    DATABASE_URL: cluster.url, PORT: String(apiPort), PLATFORM_PORT: String(await freePort()), HOST: '127.0.0.1', JWT_SECRET: SECRET,
    DATA_DIR: path.join(cluster.dir, 'data'), MIGRATIONS_DIR: path.join(cluster.dir, 'none'), WORKER: 'off', LOG_LEVEL: 'warn',
    STORAGE_UPLOAD_LIMIT: String(Math.max(BIG * 2, 64 * 1024 * 1024)), STORAGE_RENDER_CACHE_BYTES: '0', STORAGE_IMAGE_MAX_INPUT_PIXELS: '20000000',
  });
  const barePort = await freePort();
  const bare = `http://127.0.0.1:${barePort}`;
  await processes.start(['bench/bare-storage-server.ts', String(barePort), path.join(cluster.dir, 'bare')], {}, (o) => o.includes('ready'));

  const service = await signToken(SECRET, { role: 'service_role' }, 3600);
  const auth = { apikey: service, authorization: `Bearer ${service}` };
  for (const [id, pub] of [['bench', false], ['pics', true]] as const) {
    const res = await request(`${api}/storage/v1/bucket`, 'POST', { ...auth, 'content-type': 'application/json' }, Buffer.from(JSON.stringify({ id, public: pub })));
    check(res.status === 200, `create bucket ${id}: ${res.status}`);
  }

  console.log(`# preparing ${BIG / 1024 / 1024} MB of random bytes and a 4032x3024 JPEG`);
  const big = randomBytes(BIG);
  const bigHash = md5(big);
  const small = randomBytes(1024);
  const smallHash = md5(small);
  const jpeg = await sharp(randomBytes(1008 * 756 * 3), { raw: { width: 1008, height: 756, channels: 3 } }).resize(4032, 3024, { kernel: 'cubic' }).jpeg({ quality: 85 }).toBuffer();
  check((await request(`${api}/storage/v1/object/pics/photo.jpg`, 'POST', { ...auth, 'content-type': 'image/jpeg' }, jpeg)).status === 200, 'upload photo');

  type Round = Record<string, { ours: number; bare: number }>;
  const rounds: Round[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const warmup = round === 0;
    const r: Round = {};
    // 100 MB up and down
    const upOurs = await timed(() => request(`${api}/storage/v1/object/bench/big-${round}.bin`, 'POST', { ...auth, 'content-type': 'application/octet-stream' }, big));
    check(upOurs.value.status === 200, `upload: ${upOurs.value.status}`);
    const upBare = await timed(() => request(`${bare}/big-${round}.bin`, 'PUT', {}, big));
    const downOurs = await timed(() => request(`${api}/storage/v1/object/bench/big-${round}.bin`, 'GET', auth));
    check(downOurs.value.hash === bigHash && downOurs.value.size === BIG, 'downloaded bytes equal the uploaded ones');
    const downBare = await timed(() => request(`${bare}/big-${round}.bin`, 'GET', {}));
    check(downBare.value.hash === bigHash, 'bare download equal');
    r.upload = { ours: mbps(BIG, upOurs.ms), bare: mbps(BIG, upBare.ms) };
    r.download = { ours: mbps(BIG, downOurs.ms), bare: mbps(BIG, downBare.ms) };
    // TUS, 6 MB chunks
    const tusRun = await timed(() => new Promise<void>((resolve, reject) => {
      new tus.Upload(big, {
        endpoint: `${api}/storage/v1/upload/resumable`, chunkSize: 6 * 1024 * 1024, retryDelays: [], headers: auth,
        metadata: { bucketName: 'bench', objectName: `tus-${round}.bin`, contentType: 'application/octet-stream' },
        onSuccess: () => resolve(), onError: reject,
      }).start();
    }));
    const tusBack = await request(`${api}/storage/v1/object/bench/tus-${round}.bin`, 'GET', auth);
    check(tusBack.hash === bigHash, 'TUS bytes equal');
    r.tus = { ours: mbps(BIG, tusRun.ms), bare: r.upload.bare };
    // 1 KB objects
    const smallUp = await timed(() => inParallel(SMALL_COUNT, SMALL_CONCURRENCY, async (i) => {
      const res = await request(`${api}/storage/v1/object/bench/small/${round}/${i}.bin`, 'POST', { ...auth, 'content-type': 'application/octet-stream' }, small);
      check(res.status === 200, `small upload ${res.status}`);
    }));
    const smallUpBare = await timed(() => inParallel(SMALL_COUNT, SMALL_CONCURRENCY, async (i) => void (await request(`${bare}/small-${round}-${i}`, 'PUT', {}, small))));
    const smallDown = await timed(() => inParallel(SMALL_COUNT, SMALL_CONCURRENCY, async (i) => {
      const res = await request(`${api}/storage/v1/object/bench/small/${round}/${i}.bin`, 'GET', auth);
      check(res.hash === smallHash, 'small bytes equal');
    }));
    const smallDownBare = await timed(() => inParallel(SMALL_COUNT, SMALL_CONCURRENCY, async (i) => void (await request(`${bare}/small-${round}-${i}`, 'GET', {}))));
    const perSecond = (ms: number) => SMALL_COUNT / (ms / 1000);
    r.smallUp = { ours: perSecond(smallUp.ms), bare: perSecond(smallUpBare.ms) };
    r.smallDown = { ours: perSecond(smallDown.ms), bare: perSecond(smallDownBare.ms) };
    // JPEG to 720 px: the platform (cache off) against sharp in this process
    const rendered = await timed(() => inParallel(RENDERS, RENDER_CONCURRENCY, async (i) => {
      const res = await request(`${api}/storage/v1/render/image/public/pics/photo.jpg?width=720&quality=${70 + (i % 2)}`, 'GET', {});
      check(res.status === 200 && res.size > 1000, `render ${res.status}`);
    }));
    const direct = await timed(() => inParallel(RENDERS, RENDER_CONCURRENCY, async (i) => {
      const out = await sharp(jpeg).rotate().resize({ width: 720 }).jpeg({ quality: 70 + (i % 2) }).toBuffer();
      check(out.length > 1000, 'sharp output');
    }));
    r.transform = { ours: RENDERS / (rendered.ms / 1000), bare: RENDERS / (direct.ms / 1000) };
    if (!warmup) rounds.push(r);
    console.log(`# round ${warmup ? 'warm-up' : round}: ${Object.entries(r).map(([k, v]) => `${k} ${(v.ours / v.bare).toFixed(2)}`).join(', ')}`);
  }

  const rows: Array<[string, string, string, string, string]> = [
    ['upload', 'upload 100 MB, MB/s', 'bare stream to file', 'upload', '0.5'],
    ['download', 'download 100 MB, MB/s', 'bare file to stream', 'download', '0.6'],
    ['tus', '100 MB TUS in 6 MB chunks, MB/s', 'bare stream to file', 'tus', ''],
    ['smallUp', '1 KB uploads/s', 'bare: 1 KB to file', 'smallUp', ''],
    ['smallDown', '1 KB downloads/s', 'bare: 1 KB file to stream', 'smallDown', ''],
    ['transform', 'JPEG 4032x3024 to 720 px/s', 'sharp called directly', 'transform', '0.8'],
  ];
  const lines = [
    `| workload | pgbase | floor | floor figure | ratio (median of ${ROUNDS}) | goal |`,
    '|---|---|---|---|---|---|',
  ];
  let missed = 0;
  for (const [key, what, floor, , goal] of rows) {
    const ours = median(rounds.map((r) => r[key]!.ours));
    const bareFigure = median(rounds.map((r) => r[key]!.bare));
    const ratio = median(rounds.map((r) => r[key]!.ours / r[key]!.bare));
    if (goal && ratio < Number(goal)) missed++;
    lines.push(`| ${what} | ${ours.toFixed(0)} | ${floor} | ${bareFigure.toFixed(0)} | ${ratio.toFixed(2)} | ${goal ? `≥ ${goal}${ratio >= Number(goal) ? ' ✓' : ' ✗'}` : ''} |`);
  }
  console.log(`\n${lines.join('\n')}\n\nevery downloaded byte compared equal (md5)${missed ? `; ${missed} goal(s) missed` : ''}`);
} finally {
  agent.destroy();
  await processes.stop();
  await cluster.stop();
}
