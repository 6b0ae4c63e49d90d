// Row policies at scale: what a policy built on the platform's helpers
// costs a signed-in user's read, against the same read with the policy's
// condition written out by hand and no policy in the way (the service role,
// which bypasses row security). 1.0 means the policy costs nothing.
//   - agents: a user lists the newest 20 of the agents it may read
//     (`ai.can_read`: its own and the project's) among 20,000;
//   - storage: a user counts its PNGs among 20,000 objects under the policy
//     Supabase's docs show (`storage.foldername(name))[1] = auth.uid()::text`
//     and `storage.extension(name) = 'png'`).
// Rounds in turns on one connection; medians. Usage: npm run -s bench:policies
import os from 'node:os';
import pg from 'pg';
import { contextValues, SET_CONTEXT, type RequestContext } from '../db/as-role.ts';
import { migrate } from '../db/migrate.ts';
import { startCluster } from '../test/helpers/cluster.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROWS = 20_000;
const USER = '00000000-0000-4000-8000-000000000007';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cluster = await startCluster();
await migrate(cluster.url);
const client = new pg.Client({ connectionString: cluster.url });
await client.connect();
try {
  await client.query(`
    insert into auth.users (id, email) select ('00000000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid, 'u' || n || '@example.com' from generate_series(1, 200) n;
    insert into ai.agents (name, owner_id)
      select 'agent ' || n, case when n % 201 = 0 then null else ('00000000-0000-4000-8000-' || lpad((n % 200 + 1)::text, 12, '0'))::uuid end
        from generate_series(1, ${ROWS}) n;
    insert into storage.buckets (id, name) values ('photos', 'photos');
    insert into storage.objects (bucket_id, name)
      select 'photos', (case when n % 200 = 7 then '${USER}' else gen_random_uuid()::text end) || '/photo-' || n || case when n % 3 = 0 then '.txt' else '.png' end
        from generate_series(1, ${ROWS}) n;
    create policy own_pngs on storage.objects for select to authenticated
      using ((storage.foldername(name))[1] = auth.uid()::text and storage.extension(name) = 'png');
    analyze ai.agents; analyze storage.objects;`);

  // Each read in its own transaction with the request context the request path sets (db/as-role.ts).
  type Read = { ctx: RequestContext; sql: string };
  const asUser: RequestContext = { role: 'authenticated', claims: { sub: USER, role: 'authenticated' } };
  const asService: RequestContext = { role: 'service_role', claims: { role: 'service_role' } };
  const workloads: Array<{ name: string; policy: Read; bare: Read }> = [
    {
      name: 'agents: newest 20 a user may read, of 20,000',
      policy: { ctx: asUser, sql: 'select id, name from ai.agents order by created_at desc limit 20' },
      bare: { ctx: asService, sql: `select id, name from ai.agents where owner_id is null or owner_id = '${USER}' order by created_at desc limit 20` },
    },
    {
      name: 'storage: a user\'s PNGs under a foldername policy, of 20,000',
      policy: { ctx: asUser, sql: 'select count(*) from storage.objects' },
      bare: { ctx: asService, sql: `select count(*) from storage.objects where split_part(name, '/', 1) = '${USER}' and name like '%.png'` },
    },
  ];
  const read = async ({ ctx, sql }: Read) => {
    await client.query('begin');
    await client.query(SET_CONTEXT, contextValues(ctx));
    const { rows } = await client.query(sql);
    await client.query('commit');
    return JSON.stringify(rows);
  };
  /** Milliseconds per read, over `n` reads. */
  const time = async (r: Read, n: number) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) await read(r);
    return (performance.now() - t) / n;
  };
  console.log(`# ${ROUNDS} rounds in turns, ${os.availableParallelism()} cores; each figure the median of its rounds`);
  for (const w of workloads) {
    if ((await read(w.policy)) !== (await read(w.bare))) throw new Error(`${w.name}: the policy and the hand-written condition disagree`);
    const n = Math.max(5, Math.round(200 / Math.max(1, await time(w.policy, 3))));
    const rounds: Array<{ policy: number; bare: number }> = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push({ policy: await time(w.policy, n), bare: await time(w.bare, n) });
    const policy = median(rounds.map((r) => r.policy));
    const bare = median(rounds.map((r) => r.bare));
    console.log(`${w.name.padEnd(62)} under the policy ${policy.toFixed(2)} ms | condition by hand ${bare.toFixed(2)} ms | ratio ${(bare / policy).toFixed(2)}`);
  }
} finally {
  await client.end();
  await cluster.stop();
}
