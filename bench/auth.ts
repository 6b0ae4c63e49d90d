// `npm run bench:auth`: password sign-in and refresh on loopback, beside the
// bare rate of the same native bcrypt (pgcrypto crypt(), run by pgbench on the
// same cluster, same cost factor, same cores), with the server's event-loop
// lag measured during the load. The load comes from a child process.
import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/log.ts';
import { startPlatform } from '../server/start.ts';
import { pgBinDir, startCluster } from '../test/helpers/cluster.ts';

const run = promisify(execFile);
const COST = Number(process.env.BENCH_BCRYPT_COST ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const USERS = 40;

const cluster = await startCluster();
const url = cluster.url;
const platform = await startPlatform(
  loadConfig({
    DATABASE_URL: url, PORT: '0', PLATFORM_PORT: '0', HOST: '127.0.0.1', JWT_SECRET: 'bench-secret-bench-secret-bench-secret!!',
    DATA_DIR: path.join(cluster.dir, 'data'), MIGRATIONS_DIR: path.join(cluster.dir, 'none'), WORKER: 'off', LOG_LEVEL: 'silent',
    AUTH_BCRYPT_COST: String(COST), DB_POOL_MAX: String(CLIENTS * 2),
    AUTH_RATE_LIMIT_SIGN_IN: '100000000/60', AUTH_RATE_LIMIT_TOKEN_REFRESH: '100000000/60',
  }),
  { log: createLogger('silent') },
);
try {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`select auth.sign_up('bench' || i || '@example.com', null, 'bench-password', '{}', true, $1) from generate_series(1, ${USERS}) i`, [COST]);
  const hash = (await admin.query<{ h: string }>(`select encrypted_password as h from auth.users limit 1`)).rows[0]!.h;
  await admin.end();
  console.log(`# bcrypt cost ${COST}, ${CLIENTS} concurrent clients, ${SECONDS} s per run, ${os.cpus().length} cores`);

  // Floor: the same bcrypt, bare, as fast as the cores allow.
  const script = path.join(cluster.dir, 'bcrypt.sql');
  writeFileSync(script, `select extensions.crypt('bench-password', '${hash}') = '${hash}';\n`);
  const out = execFileSync(path.join(pgBinDir()!, 'pgbench'), ['-n', '-f', script, '-c', String(CLIENTS), '-j', '2', '-T', String(SECONDS), '-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', 'postgres'], { encoding: 'utf8' });
  const bareRate = Number(/tps = ([\d.]+)/.exec(out)![1]);

  const headers = { apikey: platform.keys.anonKey, 'content-type': 'application/json' };
  const load = async (spec: object) => {
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const { stdout } = await run(process.execPath, [path.join(import.meta.dirname, 'load.ts'), JSON.stringify(spec)], { maxBuffer: 1 << 20 });
    lag.disable();
    return { ...(JSON.parse(stdout) as { count: number; errors: number; statuses: Record<string, number>; p50: number; p99: number; seconds: number }), lagP99: lag.percentile(99) / 1e6, lagMax: lag.max / 1e6 };
  };

  const signIn = await load({
    url: `${platform.url}/auth/v1/token?grant_type=password`, method: 'POST', headers, concurrency: CLIENTS, seconds: SECONDS,
    bodies: Array.from({ length: USERS }, (_, i) => JSON.stringify({ email: `bench${i + 1}@example.com`, password: 'bench-password' })),
  });
  // Refresh: each client rotates its own session's token.
  const sessions: string[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const res = await fetch(`${platform.url}/auth/v1/token?grant_type=password`, { method: 'POST', headers, body: JSON.stringify({ email: `bench${i + 1}@example.com`, password: 'bench-password' }) });
    sessions.push(JSON.stringify({ refresh_token: ((await res.json()) as { refresh_token: string }).refresh_token }));
  }
  const refresh = await load({ url: `${platform.url}/auth/v1/token?grant_type=refresh_token`, method: 'POST', headers, concurrency: CLIENTS, seconds: SECONDS, bodies: sessions, chain: 'refresh_token' });

  const rate = (r: { count: number; seconds: number }) => r.count / r.seconds;
  const f = (n: number) => n.toFixed(1);
  console.log(`bare bcrypt verify (pgbench, crypt())  ${f(bareRate)}/s`);
  console.log(`password sign-in                       ${f(rate(signIn))}/s  = ${(rate(signIn) / bareRate).toFixed(2)} of bare bcrypt  p50 ${f(signIn.p50)} ms  p99 ${f(signIn.p99)} ms  event-loop lag p99 ${f(signIn.lagP99)} ms (max ${f(signIn.lagMax)})  statuses ${JSON.stringify(signIn.statuses)}`);
  console.log(`refresh                                ${f(rate(refresh))}/s  p50 ${f(refresh.p50)} ms  p99 ${f(refresh.p99)} ms  event-loop lag p99 ${f(refresh.lagP99)} ms  statuses ${JSON.stringify(refresh.statuses)}`);
} finally {
  await platform.stop();
  await cluster.stop();
}
