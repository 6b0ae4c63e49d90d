// Foreign keys at scale (sql/0093): what a key's index is worth where rows
// are found by it. 10,000 sessions of 5 agent runs, 8 messages each (400,000
// session messages); each operation timed with the platform's indexes, then
// in a transaction that drops the key's index first (as before 0093), rolled
// back. Figures: milliseconds, medians of rounds in turns on one connection.
//   - a run's messages, as GET of a run, a worker's answer and a resume read them;
//   - deleting a session with its 5 runs (each run's messages found by run_id
//     as the cascade deletes them).
// Usage: npm run -s bench:foreign-keys
import os from 'node:os';
import pg from 'pg';
import { migrate } from '../db/migrate.ts';
import { startCluster } from '../test/helpers/cluster.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const session = (n: number) => `('00000000-0000-4000-8000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;
const run = (n: number) => `('00000000-0000-4000-9000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;

const cluster = await startCluster();
await migrate(cluster.url);
const client = new pg.Client({ connectionString: cluster.url });
await client.connect();
try {
  await client.query(`
    insert into ai.agents (id, name) values ('00000000-0000-4000-8000-0000000000aa', 'bench');
    insert into ai.sessions (id, agent_id) select ('00000000-0000-4000-8000-' || lpad(to_hex(s), 12, '0'))::uuid, '00000000-0000-4000-8000-0000000000aa' from generate_series(1, 10000) s;
    insert into ai.agent_runs (id, session_id, agent_id, input, status)
      select ('00000000-0000-4000-9000-' || lpad(to_hex(s * 10 + r), 12, '0'))::uuid, ('00000000-0000-4000-8000-' || lpad(to_hex(s), 12, '0'))::uuid,
             '00000000-0000-4000-8000-0000000000aa', 'go', 'completed'
        from generate_series(1, 10000) s, generate_series(1, 5) r;
    insert into ai.session_messages (session_id, run_id, role, content)
      select ('00000000-0000-4000-8000-' || lpad(to_hex(s), 12, '0'))::uuid, ('00000000-0000-4000-9000-' || lpad(to_hex(s * 10 + r), 12, '0'))::uuid, 'assistant', repeat('x', 200)
        from generate_series(1, 10000) s, generate_series(1, 5) r, generate_series(1, 8) m;
    analyze;`);
  const workloads = [
    { name: 'a run\'s messages, of 400,000', sql: (i: number) => `select jsonb_agg(m.content order by m.id) from ai.session_messages m where m.run_id = ${run(5000 + i * 10 + 3)}` },
    { name: 'delete a session with its 5 runs', sql: (i: number) => `delete from ai.sessions where id = ${session(4000 + i)}` },
  ];
  const timed = async (sql: string, withIndex: boolean) => {
    await client.query('begin');
    if (!withIndex) await client.query('drop index ai.session_messages_run');
    const t0 = performance.now();
    await client.query(sql);
    const ms = performance.now() - t0;
    await client.query('rollback');
    return ms;
  };
  console.log(`# ${ROUNDS} rounds in turns, ${os.cpus().length} cores`);
  for (const w of workloads) {
    const indexed: number[] = [];
    const bare: number[] = [];
    await timed(w.sql(0), true);
    await timed(w.sql(0), false);
    for (let i = 1; i <= ROUNDS; i++) {
      indexed.push(await timed(w.sql(i), true));
      bare.push(await timed(w.sql(i), false));
    }
    console.log(`${w.name.padEnd(36)} with the key's index ${median(indexed).toFixed(2)} ms | without ${median(bare).toFixed(2)} ms | ${(median(bare) / median(indexed)).toFixed(0)}x`);
  }
} finally {
  await client.end();
  await cluster.stop();
}
