// `npm run bench:vectors`: vector search without pgvector at 100,000 chunks
// of 1,536 dimensions. The vectors are stored through ai.store_kb_items, the
// statement the indexing job uses (throughput in chunks per second), then
// each query runs the production search (searchVectors: sign-bit candidates
// by Hamming distance in SQL, exact cosine rescoring) beside the bare
// baseline in this process: an exact scan of every vector (Float32Array dot
// products). Reported: p50 and p95 latency of both, their ratio, and
// recall@10 against the exact scan.
//
// The vectors are synthetic but shaped like text embeddings
// (synthetic-vectors.ts); queries are drawn the same way, not copied from the
// data. On a database with pgvector, `npm run bench:pgvector` measures that path.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/log.ts';
import { startPlatform } from '../server/start.ts';
import { aiCalls } from '../server/ai/calls.ts';
import { signCode, vectorBytes, dot } from '../server/ai/knowledge/embedder.ts';
import { searchVectors } from '../server/ai/knowledge/retrieval/vector.ts';
import { startCluster } from '../test/helpers/cluster.ts';
import { percentile, syntheticVectors } from './synthetic-vectors.ts';

const N = Number(process.env.BENCH_VECTORS ?? 100_000);
const DIMS = Number(process.env.BENCH_DIMS ?? 1536);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 100);
const BATCH = 256;
// Noise per component beside a signal of 1: higher makes neighbours harder to tell apart.
const NOISE = Number(process.env.BENCH_NOISE ?? 1.5);
const draw = syntheticVectors(DIMS, NOISE);
const pct = percentile;

const cluster = await startCluster();
const platform = await startPlatform(loadConfig({
  DATABASE_URL: cluster.url, PORT: '0', PLATFORM_PORT: '0', HOST: '127.0.0.1', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn',
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-bench-vectors-')), WORKER: 'in-process',
}), { log: createLogger('warn') });
const calls = aiCalls(platform.adminPool);
const service = { role: 'service_role', claims: { role: 'service_role' } };

try {
  const db = platform.adminPool;
  const { rows: [kb] } = await db.query(`insert into ai.knowledge_bases (name, indexing_config, retrieval_config, strategy) values ('vectors', '{"embedding_model": "bench"}', '{"method": "vector_search"}', 'chunk_embed') returning id`);
  const { rows: [src] } = await db.query(`insert into ai.sources (name, origin, extension, content_type, size_bytes, object_path, extraction_status) values ('bench', 'upload', 'txt', 'text/plain', 0, 'none', 'extracted') returning id`);
  const { rows: [entry] } = await db.query(`insert into ai.kb_sources (kb_id, source_id, index_status) values ($1, $2, 'indexing') returning id`, [kb.id, src.id]);

  // Store, as the indexing job does.
  const data: Float32Array[] = [];
  const started = performance.now();
  let generating = 0;
  for (let i = 0; i < N; i += BATCH) {
    const g0 = performance.now();
    const batch = Array.from({ length: Math.min(BATCH, N - i) }, draw);
    generating += performance.now() - g0;
    data.push(...batch);
    const rows = batch.map((v, j) => ({ position: i + j, kind: 'chunk', text: `chunk ${i + j}`, meta: {}, token_count: 2, embedding_model: 'bench', code: signCode(v), embedding: vectorBytes(v).toString('base64') }));
    await calls.asService('select ai.store_kb_items($1, 1, $2::jsonb)', [entry.id, JSON.stringify(rows)]);
  }
  const storeSeconds = (performance.now() - started - generating) / 1000;
  await db.query('analyze ai.kb_vectors');

  const ids = (await db.query<{ id: string; position: number }>('select id, position from ai.kb_items where kb_id = $1', [kb.id])).rows;
  const idAt = new Map(ids.map((r) => [r.position, r.id]));
  const ours: number[] = [];
  const exact: number[] = [];
  let recall = 0;
  for (let q = 0; q < QUERIES + 3; q++) {
    const query = draw();
    const t0 = performance.now();
    const truth = data.map((v, i) => ({ i, s: dot(query, v) })).sort((a, b) => b.s - a.s).slice(0, 10).map((x) => idAt.get(x.i)!);
    const t1 = performance.now();
    const found = await searchVectors(calls, { ctx: service, kbId: kb.id, limit: 10, filter: null, embeddingModel: 'bench' }, query);
    const t2 = performance.now();
    if (q < 3) continue; // warm-up
    exact.push(t1 - t0);
    ours.push(t2 - t1);
    const got = new Set(found.scored.map((s) => s.id));
    recall += truth.filter((id) => got.has(id)).length / 10;
  }
  console.log(`${N} chunks of ${DIMS} dimensions, ${QUERIES} queries, no pgvector`);
  console.log(`storing through ai.store_kb_items   ${(N / storeSeconds).toFixed(0)} chunks/s`);
  console.log(`search (sign bits + exact rescoring)  p50 ${pct(ours, 0.5).toFixed(1)} ms | p95 ${pct(ours, 0.95).toFixed(1)} ms | recall@10 ${(recall / QUERIES).toFixed(3)}`);
  console.log(`exact scan in process (baseline)      p50 ${pct(exact, 0.5).toFixed(1)} ms | p95 ${pct(exact, 0.95).toFixed(1)} ms | ratio ${(pct(exact, 0.5) / pct(ours, 0.5)).toFixed(2)}`);
} finally {
  await platform.stop();
  await cluster.stop();
}
