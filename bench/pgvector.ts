// `npm run bench:pgvector`: vector_search through pgvector's HNSW index
// (sql/0049) against the sign-bit path on the same database, and an exact
// scan in this process as the bare baseline. Vectors are stored through
// ai.store_kb_items (the trigger fills `ann`, the index grows row by row),
// queries go through searchVectors, the production search; then
// ai.pgvector_disable() turns the same database back to sign bits and the
// same queries run again. Reported: storing rate, p50/p95 and recall@10 of
// both paths, and their ratio.
//
// The database is PGlite (PostgreSQL 18 in WebAssembly with pgvector 0.8),
// the only pgvector these machines have, so absolute times are WebAssembly's:
// read the ratio. BENCH_DATABASE_URL runs the same on a real PostgreSQL with
// the extension (it is migrated first; the knowledge base is left behind).
import pg from 'pg';
import { migrate } from '../db/migrate.ts';
import { aiCalls } from '../server/ai/calls.ts';
import { dot, signCode, vectorBytes } from '../server/ai/knowledge/embedder.ts';
import { searchVectors } from '../server/ai/knowledge/retrieval/vector.ts';
import { PLANS_AS_NOTICES, startPgvectorDatabase } from '../test/helpers/pglite.ts';
import { percentile, syntheticVectors } from './synthetic-vectors.ts';

const N = Number(process.env.BENCH_VECTORS ?? 20_000);
const DIMS = Number(process.env.BENCH_DIMS ?? 768);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 50);
const NOISE = Number(process.env.BENCH_NOISE ?? 1.5);
const BATCH = 200;
const draw = syntheticVectors(DIMS, NOISE);

let stopDatabase = async () => {};
let url = process.env.BENCH_DATABASE_URL;
if (!url) {
  const database = await startPgvectorDatabase();
  url = database.url;
  stopDatabase = database.stop;
}
await migrate(url);
const pool = new pg.Pool({ connectionString: url, max: 1 });
let hnswPlans = 0;
pool.on('connect', (client) => client.on('notice', (n) => { if (/Index Scan using kb_vectors_hnsw_/.test(n.message ?? '')) hnswPlans++; }));
const calls = aiCalls(pool);
const service = { role: 'service_role', claims: { role: 'service_role' } };

try {
  const { rows: [info] } = await pool.query(`select ai.pgvector_in_use() as on, (select extversion from pg_extension where extname = 'vector') as version, version() as server`);
  if (!info.on) throw new Error('This database has no pgvector (ai.pgvector_enable() answered false)');
  const { rows: [kb] } = await pool.query(`insert into ai.knowledge_bases (name, indexing_config, retrieval_config, strategy) values ('pgvector bench', '{"embedding_model": "bench"}', '{"method": "vector_search"}', 'chunk_embed') returning id`);
  const { rows: [src] } = await pool.query(`insert into ai.sources (name, origin, extension, content_type, size_bytes, object_path, extraction_status) values ('bench', 'upload', 'txt', 'text/plain', 0, 'none', 'extracted') returning id`);
  const { rows: [entry] } = await pool.query(`insert into ai.kb_sources (kb_id, source_id, index_status) values ($1, $2, 'indexing') returning id`, [kb.id, src.id]);

  const data: Float32Array[] = [];
  let storing = 0;
  for (let i = 0; i < N; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, N - i) }, draw);
    data.push(...batch);
    const rows = batch.map((v, j) => ({ position: i + j, kind: 'chunk', text: `chunk ${i + j}`, meta: {}, token_count: 2, embedding_model: 'bench', code: signCode(v), embedding: vectorBytes(v).toString('base64') }));
    const t0 = performance.now();
    await calls.asService('select ai.store_kb_items($1, 1, $2::jsonb)', [entry.id, JSON.stringify(rows)]);
    storing += performance.now() - t0;
  }
  await pool.query('analyze ai.kb_vectors');
  const ids = (await pool.query<{ id: string; position: number }>('select id, position from ai.kb_items where kb_id = $1', [kb.id])).rows;
  const idAt = new Map(ids.map((r) => [r.position, r.id]));

  const queries = Array.from({ length: QUERIES + 3 }, draw);
  const exactMs: number[] = [];
  const truths = queries.map((q, n) => {
    const t0 = performance.now();
    const top = data.map((v, i) => ({ i, s: dot(q, v) })).sort((a, b) => b.s - a.s).slice(0, 10).map((x) => idAt.get(x.i)!);
    if (n >= 3) exactMs.push(performance.now() - t0);
    return top;
  });
  const run = async () => {
    const ms: number[] = [];
    let recall = 0;
    const via = new Set<string | null>();
    for (let n = 0; n < queries.length; n++) {
      const t0 = performance.now();
      const found = await searchVectors(calls, { ctx: service, kbId: kb.id, limit: 10, filter: null, embeddingModel: 'bench' }, queries[n]!);
      if (n < 3) continue; // warm-up
      ms.push(performance.now() - t0);
      via.add(found.via);
      const got = new Set(found.scored.map((s) => s.id));
      recall += truths[n]!.filter((id) => got.has(id)).length / 10;
    }
    return { p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), recall: recall / QUERIES, via: [...via].join(',') };
  };
  // Which plan each search ran (auto_explain, where this role may load it).
  const explained = await pool.query(PLANS_AS_NOTICES).then(() => true, () => false);
  hnswPlans = 0;
  const hnsw = await run();
  const plansSeen = hnswPlans;
  await pool.query('select ai.pgvector_disable()');
  const bits = await run();

  const line = (name: string, r: { p50: number; p95: number; recall: number }) =>
    console.log(`${name.padEnd(44)} p50 ${r.p50.toFixed(1)} ms | p95 ${r.p95.toFixed(1)} ms | recall@10 ${r.recall.toFixed(3)}`);
  console.log(`${N} chunks of ${DIMS} dimensions, ${QUERIES} queries, pgvector ${info.version} on ${String(info.server).split(' (')[0]}${process.env.BENCH_DATABASE_URL ? '' : ' (PGlite, WebAssembly)'}`);
  console.log(`storing through ai.store_kb_items (ann + HNSW)  ${(N / (storing / 1000)).toFixed(0)} chunks/s`);
  line(`pgvector, scored in SQL (${hnsw.via})`, hnsw);
  if (explained) console.log(`  the HNSW index served ${plansSeen} of ${queries.length} searches (the rest: an exact scan the planner found cheaper)`);
  line(`sign bits + exact rescoring (${bits.via})`, bits);
  line('exact scan in process (baseline)', { p50: percentile(exactMs, 0.5), p95: percentile(exactMs, 0.95), recall: 1 });
  console.log(`ratio sign bits / pgvector p50: ${(bits.p50 / hnsw.p50).toFixed(2)}; baseline / pgvector p50: ${(percentile(exactMs, 0.5) / hnsw.p50).toFixed(2)}`);
} finally {
  await pool.end();
  await stopDatabase();
}
