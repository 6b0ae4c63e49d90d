// `npm run bench:platform-sql` (issue 50): the database platform in SQL, on a
// throwaway PostgreSQL 15 cluster with the platform (its worker in-process)
// beside it in its own process.
//   - Queues: send, read and archive through pgmq's functions against the
//     same work as bare statements on the same tables (the SKIP LOCKED loop
//     pgmq's functions wrap), in interleaved rounds (median); goal >= 0.8.
//     Then messages per second read and archived by 1, 4 and 16 readers.
//   - Cron: 100 jobs every second for BENCH_CRON_SECONDS; each inserts its
//     clock time; lateness = that time past its second. Goal: p99 < 200 ms.
//   - Database Webhooks: BENCH_HOOK_RATE row inserts per second into a table
//     with supabase_functions.http_request, delivered to a receiver here;
//     p50 and p99 from the insert's clock time (it commits at once) to the
//     receiver's hand, and none lost.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { freePort, startCluster } from '../test/helpers/cluster.ts';
import { BenchProcesses } from './processes.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 4000);
const BATCH = 10; // messages a reader takes per read
const CRON_JOBS = 100;
const CRON_SECONDS = Number(process.env.BENCH_CRON_SECONDS ?? 12);
const HOOK_RATE = Number(process.env.BENCH_HOOK_RATE ?? 500);
const HOOK_SECONDS = Number(process.env.BENCH_HOOK_SECONDS ?? 10);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Way = {
  send: (c: pg.PoolClient, i: number) => Promise<unknown>;
  read: (c: pg.PoolClient) => Promise<string[]>;
  archive: (c: pg.PoolClient, ids: string[]) => Promise<unknown>;
};

// pgmq's functions, as an application calls them.
const PGMQ: Way = {
  send: (c, i) => c.query({ text: `select * from pgmq.send('bench', $1::jsonb)`, values: [`{"n": ${i}}`] }),
  read: async (c) => (await c.query<{ msg_id: string }>({ text: `select msg_id from pgmq.read('bench', 30, ${BATCH})` })).rows.map((r) => r.msg_id),
  archive: (c, ids) => c.query({ text: `select pgmq.archive('bench', $1::bigint[])`, values: [ids] }),
};

// The same statements on the same tables, written out: the floor. Both are
// sent as node-pg sends any query (unnamed: parsed and planned each time), as
// an application would send either.
const BARE: Way = {
  send: (c, i) => c.query({ text: 'insert into pgmq.q_bench (vt, message) values (clock_timestamp(), $1::jsonb) returning msg_id', values: [`{"n": ${i}}`] }),
  read: async (c) => (await c.query<{ msg_id: string }>({
    text: `with next as (select msg_id from pgmq.q_bench where vt <= clock_timestamp() order by msg_id limit ${BATCH} for update skip locked)
           update pgmq.q_bench m set vt = clock_timestamp() + interval '30 seconds', read_ct = m.read_ct + 1 from next where m.msg_id = next.msg_id
           returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message, m.headers`,
  })).rows.map((r) => r.msg_id),
  archive: (c, ids) => c.query({
    text: `with gone as (delete from pgmq.q_bench where msg_id = any($1::bigint[]) returning msg_id, read_ct, enqueued_at, vt, message, headers)
           insert into pgmq.a_bench (msg_id, read_ct, enqueued_at, vt, message, headers) select * from gone returning msg_id`,
    values: [ids],
  }),
};

/** MESSAGES sent by 4 connections, then read and archived by `readers`: seconds for each half. */
async function cycle(pool: pg.Pool, way: Way, readers: number): Promise<{ send: number; consume: number }> {
  const clients = await Promise.all(Array.from({ length: Math.max(4, readers) }, () => pool.connect()));
  try {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(clients.slice(0, 4).map(async (c) => {
      while (next < MESSAGES) await way.send(c, next++);
    }));
    const t1 = performance.now();
    let done = 0;
    await Promise.all(clients.slice(0, readers).map(async (c) => {
      for (;;) {
        const ids = await way.read(c);
        if (ids.length === 0) return;
        await way.archive(c, ids);
        done += ids.length;
      }
    }));
    const t2 = performance.now();
    if (done !== MESSAGES) throw new Error(`read ${done} of ${MESSAGES}`);
    return { send: (t1 - t0) / 1000, consume: (t2 - t1) / 1000 };
  } finally {
    for (const c of clients) c.release();
  }
}

const cluster = await startCluster();
const processes = new BenchProcesses();
const pool = new pg.Pool({ connectionString: cluster.url, max: 24 });
pool.on('error', () => undefined); // the cluster stopping at the end
const received: number[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    const at = (JSON.parse(body) as { record: { at: string } }).record.at;
    received.push(Date.now() - Date.parse(at));
    res.end('ok');
  });
});
try {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await processes.startPlatform(url, {
    DATABASE_URL: cluster.url, JWT_SECRET: randomBytes(32).toString('hex'), AI_MASTER_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn',
    PORT: String(port), PLATFORM_PORT: String(await freePort()), HOST: '127.0.0.1', WORKER: 'in-process', WORKER_CONCURRENCY: '4',
    HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1', DATA_DIR: path.join(cluster.dir, 'data'),
  });

  // Queues.
  await pool.query(`select pgmq.create('bench')`);
  const rates = { pgmq: { all: [] as number[], send: [] as number[], consume: [] as number[] }, bare: { all: [] as number[], send: [] as number[], consume: [] as number[] } };
  await cycle(pool, PGMQ, 4); // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, way] of [['bare', BARE], ['pgmq', PGMQ]] as const) {
      const t = await cycle(pool, way, 4);
      rates[name].all.push(MESSAGES / (t.send + t.consume));
      rates[name].send.push(MESSAGES / t.send);
      rates[name].consume.push(MESSAGES / t.consume);
    }
  }
  const pgmqRate = median(rates.pgmq.all);
  const bareRate = median(rates.bare.all);
  console.log(`queue, ${fmt(MESSAGES)} messages sent by 4 and read+archived by 4, median of ${ROUNDS}:`);
  console.log(`  bare statements ${fmt(bareRate)} msg/s; pgmq functions ${fmt(pgmqRate)} msg/s; ratio ${(pgmqRate / bareRate).toFixed(2)} (goal >= 0.8: ${pgmqRate / bareRate >= 0.8 ? 'met' : 'not met'})`);
  console.log(`  send ${fmt(median(rates.bare.send))} vs ${fmt(median(rates.pgmq.send))} msg/s; read+archive ${fmt(median(rates.bare.consume))} vs ${fmt(median(rates.pgmq.consume))} msg/s`);
  for (const readers of [1, 4, 16]) {
    const consume = median(await Promise.all([0].map(async () => (await cycle(pool, PGMQ, readers)).consume)));
    console.log(`  ${readers} reader${readers > 1 ? 's' : ''}: ${fmt(MESSAGES / consume)} msg/s read and archived`);
  }

  // Cron.
  await pool.query('create table public.bench_cron (job int not null, at timestamptz not null)');
  await pool.query(`select cron.schedule('bench-' || n, '1 seconds', format('insert into public.bench_cron values (%s, clock_timestamp())', n)) from generate_series(1, ${CRON_JOBS}) n`);
  const since = new Date(Date.now() + 2000); // the first ticks after scheduling are the warm-up
  await sleep(CRON_SECONDS * 1000);
  await pool.query(`select cron.unschedule('bench-' || n) from generate_series(1, ${CRON_JOBS}) n`);
  const until = new Date(Date.now() - 1500);
  const { rows: cron } = await pool.query<{ late_ms: string; per_tick: number }>(
    `select extract(epoch from at - date_trunc('second', at)) * 1000 as late_ms, count(*) over (partition by job, date_trunc('second', at))::int as per_tick
       from public.bench_cron where at >= $1 and at < $2`, [since, until]);
  const { rows: [seconds] } = await pool.query<{ ticks: number; short: number }>(
    `select count(*)::int as ticks, count(*) filter (where n < ${CRON_JOBS})::int as short
       from (select date_trunc('second', at) s, count(*) n from public.bench_cron where at >= $1 and at < $2 group by 1) t`, [since, until]);
  const late = cron.map((r) => Number(r.late_ms));
  const p99 = percentile(late, 99);
  console.log(`cron, ${CRON_JOBS} jobs every second: ${seconds!.ticks} ticks, ${fmt(cron.length)} runs, ticks missing a run: ${seconds!.short}, twice in a tick: ${cron.filter((r) => r.per_tick > 1).length}`);
  console.log(`  lateness p50 ${percentile(late, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...late).toFixed(1)} ms (goal p99 < 200 ms: ${p99 < 200 ? 'met' : 'not met'})`);

  // Database Webhooks.
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await pool.query(`create table public.bench_hook (id bigserial primary key, at timestamptz not null default clock_timestamp());
    create trigger bench_hook after insert on public.bench_hook for each row
      execute function supabase_functions.http_request('${hookUrl}', 'POST', '{"Content-Type":"application/json"}', '{}', '5000')`);
  const total = HOOK_RATE * HOOK_SECONDS;
  const tick = 20; // ms: HOOK_RATE / 50 inserts every tick, each its own transaction
  const started = performance.now();
  let sent = 0;
  const inFlight: Promise<unknown>[] = [];
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * HOOK_RATE) + HOOK_RATE / 50);
    for (; sent < due; sent++) inFlight.push(pool.query('insert into public.bench_hook default values'));
    await sleep(tick);
  }
  await Promise.all(inFlight);
  const offered = total / ((performance.now() - started) / 1000);
  for (let i = 0; i < 100 && received.length < total; i++) await sleep(100);
  console.log(`webhooks, ${fmt(total)} inserts at ${fmt(offered)}/s: ${fmt(received.length)} delivered (${total - received.length} lost)`);
  console.log(`  commit to receiver p50 ${percentile(received, 50)} ms, p99 ${percentile(received, 99)} ms`);
} finally {
  await processes.stop();
  await pool.end();
  receiver.close();
  await cluster.stop();
}
