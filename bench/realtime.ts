// `npm run bench:realtime`: realtime on loopback, each figure beside its
// floor in the same run (median of interleaved rounds after a warm-up):
//   - broadcast fan-out from one sender to 100 and to 1,000 subscribers:
//     deliveries per second, p50 and p99 latency, and none lost, against a
//     bare `ws` server forwarding the same frames (bench/bare-realtime-server.ts)
//   - postgres_changes with an owner RLS policy to 100 subscribers with
//     distinct users while inserts run: changes delivered per second and p95
//     from commit to receipt; every change must reach its owner exactly once
//     and nobody else. Its floor is the same inserts with capture off.
// The platform and the bare server each run in their own process; the
// clients run here.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import WebSocket from 'ws';
import { signToken } from '../server/keys.ts';
import { freePort, startCluster } from '../test/helpers/cluster.ts';
import { BenchProcesses } from './processes.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECRET = 'bench-secret-bench-secret-bench-secret!!';
const WINDOW = Number(process.env.BENCH_WINDOW ?? 16); // messages in flight at once
const FANOUTS = [
  { subscribers: 100, messages: Number(process.env.BENCH_MESSAGES_100 ?? 2000) },
  { subscribers: 1000, messages: Number(process.env.BENCH_MESSAGES_1000 ?? 200) },
];
const CHANGE_USERS = Number(process.env.BENCH_CHANGE_USERS ?? 100);
const CHANGE_INSERTS = Number(process.env.BENCH_INSERTS ?? 20_000);
const INSERT_CONNECTIONS = 8;
const ROWS_PER_INSERT = Number(process.env.BENCH_ROWS_PER_INSERT ?? 10);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function openMany(url: string, n: number): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  for (let i = 0; i < n; i += 100) out.push(...(await Promise.all(Array.from({ length: Math.min(100, n - i) }, () => open(url)))));
  return out;
}

/** Joins a pgbase channel on a vsn 2.0.0 socket and waits for the ok. */
function join(ws: WebSocket, topic: string, payload: unknown, waitFor = (m: unknown[]) => m[3] === 'phx_reply'): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (data: Buffer, isBinary: boolean) => {
      if (isBinary) return;
      const m = JSON.parse(String(data)) as unknown[];
      if (m[2] !== topic) return;
      if (m[3] === 'phx_reply' && (m[4] as { status: string }).status !== 'ok') return reject(new Error(JSON.stringify(m[4])));
      if (waitFor(m)) {
        ws.off('message', onMessage);
        resolve();
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify(['1', '1', topic, 'phx_join', payload]));
  });
}

type FanoutResult = { rate: number; p50: number; p99: number; lost: number };

/**
 * One sender, n subscribers, `messages` messages with at most WINDOW in
 * flight (a message is done when every subscriber has it): the capacity of
 * the fan-out below saturation, and every delivery counted.
 */
async function fanout(kind: 'pgbase' | 'bare', url: string, n: number, messages: number): Promise<FanoutResult> {
  const topic = 'realtime:bench';
  const sockets = await openMany(url, n + 1);
  const [sender, ...subscribers] = sockets as [WebSocket, ...WebSocket[]];
  if (kind === 'pgbase') await Promise.all(sockets.map((ws) => join(ws, topic, { config: {} })));
  const remaining = new Int32Array(messages).fill(n);
  const sentAt = new Float64Array(messages);
  const latencies: number[] = [];
  let received = 0;
  let sent = 0;
  let inFlight = 0;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const send = () => {
    while (inFlight < WINDOW && sent < messages) {
      const seq = sent++;
      inFlight++;
      sentAt[seq] = performance.now();
      const payload = { s: seq, pad: 'x'.repeat(64) };
      sender.send(kind === 'pgbase' ? JSON.stringify(['1', String(seq + 2), topic, 'broadcast', { type: 'broadcast', event: 'tick', payload }]) : JSON.stringify(payload));
    }
  };
  for (const ws of subscribers) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      let body: Buffer = data;
      if (kind === 'pgbase') {
        if (!isBinary || data[0] !== 4) return; // user broadcasts arrive as kind-4 frames
        body = data.subarray(5 + data[1]! + data[2]! + data[3]!);
      }
      const seq = (JSON.parse(body.toString()) as { s: number }).s;
      received++;
      latencies.push(performance.now() - sentAt[seq]!);
      if (--remaining[seq]! === 0) {
        inFlight--;
        if (sent < messages) send();
        else if (inFlight === 0) finish();
      }
    });
  }
  const started = performance.now();
  send();
  await Promise.race([done, new Promise((r) => setTimeout(r, 120_000))]);
  const elapsed = performance.now() - started;
  for (const ws of sockets) ws.terminate();
  return { rate: (received / elapsed) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99), lost: n * messages - received };
}

type ChangeResult = { rate: number; p95: number; insertRate: number; floorInsertRate: number; wrong: number; missing: number; duplicates: number };

async function changes(apiUrl: string, dbUrl: string): Promise<ChangeResult> {
  const admin = new pg.Client({ connectionString: dbUrl });
  await admin.connect();
  await admin.query(`
    drop table if exists public.bench_todos;
    create table public.bench_todos (id bigint generated always as identity primary key, owner uuid not null, body text not null);
    alter table public.bench_todos enable row level security;
    create policy owner_reads on public.bench_todos for select to authenticated using (auth.uid() = owner);`);
  const users = Array.from({ length: Math.max(CHANGE_USERS, 1) }, () => randomUUID());
  const inserters = await Promise.all(Array.from({ length: INSERT_CONNECTIONS }, async () => {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    return c;
  }));
  const committedAt = new Map<number, number>();
  // Rows go in ROWS_PER_INSERT at a time, each statement its own transaction.
  const insertAll = async (count: number, record: boolean) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(inserters.map(async (c) => {
      for (;;) {
        const first = next;
        next += ROWS_PER_INSERT;
        if (first >= count) return;
        const n = Math.min(ROWS_PER_INSERT, count - first);
        const owners = Array.from({ length: n }, (_, k) => users[(first + k) % users.length]);
        const bodies = Array.from({ length: n }, (_, k) => `todo ${first + k}`);
        const { rows } = await c.query<{ id: string }>('insert into public.bench_todos (owner, body) select * from unnest($1::uuid[], $2::text[]) returning id', [owners, bodies]);
        const now = performance.now();
        if (record) for (const r of rows) committedAt.set(Number(r.id), now);
      }
    }));
    return (count / (performance.now() - started)) * 1000;
  };
  // The floor: the same inserts with nothing captured.
  const floorInsertRate = await insertAll(Math.min(CHANGE_INSERTS, 5000), false);
  await admin.query('truncate public.bench_todos; alter publication supabase_realtime add table public.bench_todos');

  const wsUrl = `${apiUrl.replace('http', 'ws')}/realtime/v1/websocket?vsn=2.0.0&apikey=`;
  const owners = new Map<number, string>(); // row id -> who received it
  const latencies: number[] = [];
  let wrong = 0;
  let duplicates = 0;
  let lastReceipt = 0;
  const sockets = await Promise.all(users.slice(0, CHANGE_USERS).map(async (user) => {
    const token = await signToken(SECRET, { sub: user, role: 'authenticated', aud: 'authenticated' }, 3600);
    const ws = await open(wsUrl + token);
    await join(ws, 'realtime:todos', { config: { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'bench_todos' }] } }, (m) => m[3] === 'system');
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return;
      const m = JSON.parse(String(data)) as [unknown, unknown, string, string, { data: { record: { id: number; owner: string } } }];
      if (m[3] !== 'postgres_changes') return;
      const row = m[4].data.record;
      const now = performance.now();
      lastReceipt = now;
      if (row.owner !== user) wrong++;
      if (owners.has(row.id)) duplicates++;
      owners.set(row.id, user);
      const committed = committedAt.get(row.id);
      latencies.push(committed === undefined ? 0 : Math.max(0, now - committed));
    });
    return ws;
  }));
  const started = performance.now();
  const insertRate = await insertAll(CHANGE_INSERTS, true);
  const deadline = Date.now() + 60_000;
  while (CHANGE_USERS > 0 && owners.size < CHANGE_INSERTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const rate = (owners.size / (lastReceipt - started)) * 1000;
  for (const ws of sockets) ws.terminate();
  for (const c of inserters) await c.end();
  await admin.query('alter publication supabase_realtime drop table public.bench_todos');
  await admin.end();
  return { rate, p95: percentile(latencies, 95), insertRate, floorInsertRate, wrong, missing: CHANGE_INSERTS - owners.size, duplicates };
}

const cluster = await startCluster();
const processes = new BenchProcesses();
try {
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('create database bench');
  await admin.end();
  const dbUrl = cluster.url.replace(/\/postgres$/, '/bench');
  const port = await freePort();
  const barePort = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  console.log('# starting the platform and the bare ws server');
  await processes.startPlatform(apiUrl, {
    DATABASE_URL: dbUrl, PORT: String(port), PLATFORM_PORT: String(await freePort()), HOST: '127.0.0.1',
    JWT_SECRET: SECRET, WORKER: 'off', LOG_LEVEL: 'warn',
    REALTIME_MAX_EVENTS_PER_SECOND: '1000000', REALTIME_MAX_QUEUED_BYTES: String(64 * 1024 * 1024), REALTIME_MAX_CHANNELS_PER_SOCKET: '10',
  });
  await processes.start(['bench/bare-realtime-server.ts', String(barePort)], {}, (out) => out.includes('listening'));
  const anon = await signToken(SECRET, { role: 'anon' }, 3600);
  const pgbaseUrl = `ws://127.0.0.1:${port}/realtime/v1/websocket?vsn=2.0.0&apikey=${anon}`;
  const bareUrl = `ws://127.0.0.1:${barePort}`;

  const lines: string[] = [];
  for (const { subscribers, messages } of FANOUTS) {
    console.log(`# broadcast to ${subscribers}: warm-up`);
    await fanout('pgbase', pgbaseUrl, subscribers, Math.ceil(messages / 4));
    await fanout('bare', bareUrl, subscribers, Math.ceil(messages / 4));
    const ours: FanoutResult[] = [];
    const bare: FanoutResult[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      ours.push(await fanout('pgbase', pgbaseUrl, subscribers, messages));
      bare.push(await fanout('bare', bareUrl, subscribers, messages));
      console.log(`#   round ${round}: pgbase ${fmt(ours.at(-1)!.rate)}/s, bare ws ${fmt(bare.at(-1)!.rate)}/s`);
    }
    const lost = ours.reduce((n, r) => n + r.lost, 0);
    if (lost > 0) throw new Error(`${lost} broadcast deliveries lost below saturation`);
    const ratio = median(ours.map((r, i) => r.rate / bare[i]!.rate));
    lines.push(
      `| broadcast, 1 sender to ${fmt(subscribers)} subscribers, deliveries/s | ${fmt(median(ours.map((r) => r.rate)))} | bare ws fan-out | ${fmt(median(bare.map((r) => r.rate)))} | ${ratio.toFixed(2)} | ≥ 0.6 ${ratio >= 0.6 ? '✓' : '✗'} |`,
      `| ... p50 / p99 latency, ms | ${median(ours.map((r) => r.p50)).toFixed(1)} / ${median(ours.map((r) => r.p99)).toFixed(1)} | | ${median(bare.map((r) => r.p50)).toFixed(1)} / ${median(bare.map((r) => r.p99)).toFixed(1)} | | |`,
    );
  }

  console.log(`# postgres_changes: ${CHANGE_USERS} users, ${fmt(CHANGE_INSERTS)} inserts`);
  const runs: ChangeResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const r = await changes(apiUrl, dbUrl);
    console.log(`#   round ${round}: ${fmt(r.rate)} deliveries/s, p95 ${r.p95.toFixed(0)} ms, inserts ${fmt(r.insertRate)}/s (floor ${fmt(r.floorInsertRate)}/s)`);
    if (r.wrong || r.missing || r.duplicates) throw new Error(`postgres_changes: ${r.wrong} to the wrong user, ${r.missing} missing, ${r.duplicates} duplicated`);
    runs.push(r);
  }
  const rate = median(runs.map((r) => r.rate));
  lines.push(
    `| postgres_changes with owner RLS to ${CHANGE_USERS} users, deliveries/s | ${fmt(rate)} | (goal is absolute) | | | > 4,000 ${rate > 4000 ? '✓' : '✗'} |`,
    `| ... p95 from commit to receipt, ms | ${median(runs.map((r) => r.p95)).toFixed(0)} | | | | |`,
    `| ... rows inserted/s while streaming (8 connections, ${ROWS_PER_INSERT} rows a statement) | ${fmt(median(runs.map((r) => r.insertRate)))} | same inserts, capture off | ${fmt(median(runs.map((r) => r.floorInsertRate)))} | ${(median(runs.map((r) => r.insertRate / r.floorInsertRate))).toFixed(2)} | |`,
  );
  console.log('\n| workload | pgbase | floor | floor figure | ratio | goal |\n|---|---|---|---|---|---|');
  for (const l of lines) console.log(l);
  console.log('\nEvery broadcast reached every subscriber; every change reached its owner exactly once and nobody else.');
} finally {
  await processes.stop();
  await cluster.stop();
}
