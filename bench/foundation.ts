// `npm run bench:foundation`: what the request path costs before any surface
// adds its own work. The same primary-key read under an RLS owner policy, three ways,
// in one process tree on one throwaway cluster:
//   pgbench        the floor: Postgres with a C client, prepared statements
//   bare pg pool   the floor for any Node server: one query, no transaction
//   asRole()       what every surface does: transaction + role + claims, then the query
// Figures are ratios to the floors, because these machines are noisy.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { asRole } from '../db/as-role.ts';
import { migrate } from '../db/migrate.ts';
import { withCredentials } from '../db/pool.ts';
import { pgBinDir, startCluster } from '../test/helpers/cluster.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const ROWS = 10_000;
const USERS = 100;

const cluster = await startCluster();
try {
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('create database bench');
  await admin.end();
  const url = cluster.url.replace(/\/postgres$/, '/bench');
  await migrate(url);
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query(`
    create table public.notes (id int primary key, owner uuid not null, body text not null);
    insert into public.notes select i, ('00000000-0000-4000-8000-' || lpad((i % ${USERS})::text, 12, '0'))::uuid, 'note ' || i from generate_series(1, ${ROWS}) i;
    alter table public.notes enable row level security;
    create policy own on public.notes for select to authenticated using (owner = auth.uid());
    analyze public.notes;`);
  await setup.end();
  const uid = (i: number) => `00000000-0000-4000-8000-${String(i % USERS).padStart(12, '0')}`;
  console.log(`# ${ROWS} rows, ${CLIENTS} clients, ${SECONDS} s per run, ${os.cpus().length} cores`);

  // 1. pgbench: same statement as postgres (RLS bypassed by the owner, as the floor).
  const script = path.join(cluster.dir, 'read.sql');
  writeFileSync(script, `\\set id random(1, ${ROWS})\nselect id, owner, body from public.notes where id = :id;\n`);
  const out = execFileSync(path.join(pgBinDir()!, 'pgbench'), ['-n', '-M', 'prepared', '-f', script, '-c', String(CLIENTS), '-j', '2', '-T', String(SECONDS), '-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', 'bench'], { encoding: 'utf8' });
  const pgbenchTps = Number(/tps = ([\d.]+)/.exec(out)![1]);

  // 2. bare pool, same statement.
  const bare = new pg.Pool({ connectionString: url, max: CLIENTS });
  const bareRate = await loop(CLIENTS, async (i) => {
    await bare.query({ name: 'read', text: 'select id, owner, body from public.notes where id = $1', values: [1 + (i % ROWS)] });
  });
  await bare.end();

  // 3. asRole as a signed-in user through the authenticator login: RLS applies.
  const requests = new pg.Pool({ connectionString: withCredentials(url, 'authenticator', 'unused-with-trust-auth'), max: CLIENTS });
  const asRoleRate = await loop(CLIENTS, async (i) => {
    const id = 1 + (i % ROWS);
    const rows = await asRole(requests, { role: 'authenticated', claims: { sub: uid(id), role: 'authenticated' }, method: 'GET', path: '/rest/v1/notes' }, async (c) => (await c.query({ name: 'read', text: 'select id, owner, body from public.notes where id = $1', values: [id] })).rows);
    if (rows.length !== 1) throw new Error('RLS hid the owner’s own row');
  });

  // 4. Candidate for the REST engine: one round trip. A function sets role and
  // claims transaction-locally (the statement's implicit transaction), then
  // runs the query with EXECUTE ... USING (values stay bound) and returns JSON.
  const ddl = new pg.Client({ connectionString: url });
  await ddl.connect();
  await ddl.query(`
    create function public.bench_run_as(role text, claims text, query text, arg int) returns json language plpgsql as $fn$
    declare result json;
    begin
      perform set_config('role', role, true), set_config('request.jwt.claims', claims, true);
      execute query into result using arg;
      return result;
    end $fn$;
    grant execute on function public.bench_run_as(text, text, text, int) to authenticator;`);
  await ddl.end();
  const oneTrip = await loop(CLIENTS, async (i) => {
    const id = 1 + (i % ROWS);
    const { rows } = await requests.query({
      name: 'run_as',
      text: 'select public.bench_run_as($1, $2, $3, $4) as body',
      values: ['authenticated', JSON.stringify({ sub: uid(id), role: 'authenticated' }), 'select coalesce(json_agg(t), $$[]$$) from (select id, owner, body from public.notes where id = $1) t', id],
    });
    if ((rows[0].body as unknown[]).length !== 1) throw new Error('RLS hid the owner’s own row');
  });
  await requests.end();

  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(`pgbench (prepared, C client)      ${fmt(pgbenchTps)} reads/s`);
  console.log(`bare pg pool                      ${fmt(bareRate)} reads/s   ${(bareRate / pgbenchTps).toFixed(2)} of pgbench`);
  console.log(`asRole (tx + role + claims + RLS) ${fmt(asRoleRate)} reads/s   ${(asRoleRate / bareRate).toFixed(2)} of bare pool, ${(asRoleRate / pgbenchTps).toFixed(2)} of pgbench`);
  console.log(`one-trip run_as function (candidate) ${fmt(oneTrip)} reads/s   ${(oneTrip / bareRate).toFixed(2)} of bare pool, ${(oneTrip / pgbenchTps).toFixed(2)} of pgbench`);
} finally {
  await cluster.stop();
}

/** Runs `op` from `clients` concurrent loops for SECONDS; returns operations per second. */
async function loop(clients: number, op: (i: number) => Promise<void>): Promise<number> {
  let count = 0;
  const end = Date.now() + SECONDS * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      let i = c * 7919;
      while (Date.now() < end) {
        await op(i++);
        count++;
      }
    }),
  );
  return count / (Number(process.hrtime.bigint() - t0) / 1e9);
}
