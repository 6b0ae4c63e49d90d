// `npm run bench:retrieval`: nDCG@10 on SciFact (BEIR test split,
// ../shared/datasets/scifact: 5,183 abstracts, 300 claims) for `full_text`,
// every abstract uploaded as a source and indexed through the API and the
// worker (chunk_size 2048, so an abstract is one item, as BEIR scores whole
// documents), every query sent to POST /search. Beside it, the bare baseline
// in the same database: Postgres `ts_rank` over the same items (an OR of the
// query's lexemes), which the literature puts at 0.57. Also: indexing
// throughput and search latency. Hybrid and vector figures need an embedding
// endpoint: EMBEDDINGS_BASE_URL (OpenAI-compatible), EMBEDDINGS_API_KEY,
// EMBEDDINGS_MODEL; without it they are skipped, with a line saying so.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/log.ts';
import { startPlatform } from '../server/start.ts';
import { scoreRanking } from '../server/ai/knowledge/evaluate.ts';
import { startCluster } from '../test/helpers/cluster.ts';

const DATA = path.resolve(import.meta.dirname, '../../shared/datasets/scifact');
const LIMIT_DOCS = Number(process.env.BENCH_DOCS ?? Infinity);
const UPLOADS_AT_ONCE = 16;
const embeddings = process.env.EMBEDDINGS_BASE_URL ? { base: process.env.EMBEDDINGS_BASE_URL, key: process.env.EMBEDDINGS_API_KEY ?? 'none', model: process.env.EMBEDDINGS_MODEL ?? 'text-embedding-3-small' } : null;

const corpus = gunzipSync(readFileSync(path.join(DATA, 'corpus.jsonl.gz'))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as { _id: string; title: string; text: string }).slice(0, LIMIT_DOCS);
const queries = new Map(readFileSync(path.join(DATA, 'queries.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { _id: string; text: string }).map((q) => [q._id, q.text]));
const qrels = new Map<string, Set<string>>();
for (const line of readFileSync(path.join(DATA, 'qrels/test.tsv'), 'utf8').trim().split('\n').slice(1)) {
  const [q, doc, score] = line.split('\t');
  if (Number(score) > 0) qrels.set(q!, (qrels.get(q!) ?? new Set()).add(doc!));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cluster = await startCluster();
const platform = await startPlatform(loadConfig({
  DATABASE_URL: cluster.url, PORT: '0', PLATFORM_PORT: '0', HOST: '127.0.0.1', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn',
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pgbase-bench-retrieval-')), WORKER: 'in-process', WORKER_CONCURRENCY: '8',
  ...(embeddings ? { OPENAI_BASE_URL: embeddings.base } : {}),
}), { log: createLogger('warn') });
const key = platform.keys.serviceRoleKey;
const auth = { apikey: key, authorization: `Bearer ${key}` };
const api = async <T>(p: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${platform.url}/api${p}`, body === undefined ? { headers: auth } : { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

try {
  if (embeddings) {
    await platform.adminPool.query(`insert into ai.provider_keys (provider, encrypted_key, masked_key, is_valid) values ('openai', ai.encrypt($1, $2), ai.mask($1), true)`, [embeddings.key, platform.keys.aiMasterKey]);
  }
  const kb = await api<{ id: string }>('/knowledge-bases', {
    name: 'SciFact', indexing_config: { chunk_size: 2048, overlap: 0, embedding_model: embeddings?.model ?? null }, retrieval_config: { method: 'full_text' },
  });

  // Index: upload every abstract, add it at once (indexing waits for its extraction).
  const started = performance.now();
  const docOf = new Map<string, string>();
  let next = 0;
  await Promise.all(Array.from({ length: UPLOADS_AT_ONCE }, async () => {
    while (next < corpus.length) {
      const doc = corpus[next++]!;
      const form = new FormData();
      form.append('file', new Blob([`${doc.title}\n\n${doc.text}`]), `${doc._id}.txt`);
      const res = await fetch(`${platform.url}/api/sources/upload`, { method: 'POST', headers: auth, body: form });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      docOf.set(id, doc._id);
      await api(`/knowledge-bases/${kb.id}/sources`, { source_id: id });
    }
  }));
  for (;;) {
    const done = await api<{ total: number }>(`/knowledge-bases/${kb.id}/sources?status=indexed&limit=1`);
    const failed = await api<{ total: number; items: Array<{ error_message: string }> }>(`/knowledge-bases/${kb.id}/sources?status=failed&limit=1`);
    if (failed.total) throw new Error(`${failed.total} sources failed: ${failed.items[0]!.error_message}`);
    if (done.total === corpus.length) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const indexSeconds = (performance.now() - started) / 1000;

  // The explicit rebuild of the statistics (POST build-bm25), timed to `ready`: one grouped pass (sql/0057).
  const buildStarted = performance.now();
  await api(`/knowledge-bases/${kb.id}/build-bm25`, {});
  for (;;) {
    const state = await api<{ bm25_status: string; bm25_message: string | null }>(`/knowledge-bases/${kb.id}`);
    if (state.bm25_status === 'ready') break;
    if (state.bm25_status === 'failed') throw new Error(`build-bm25 failed: ${state.bm25_message}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const buildSeconds = (performance.now() - buildStarted) / 1000;

  // Search every test query through the API; the ts_rank baseline over the same items in SQL.
  const evaluate = async (rank: (q: string) => Promise<string[]>) => {
    let ndcg = 0;
    const ms: number[] = [];
    for (const [qid, relevant] of qrels) {
      const t0 = performance.now();
      const ranked = await rank(queries.get(qid)!);
      ms.push(performance.now() - t0);
      ndcg += scoreRanking(ranked, relevant, 10).ndcg;
    }
    return { ndcg: ndcg / qrels.size, p50: median(ms) };
  };
  const viaApi = (method: string) => (q: string) => api<{ results: Array<{ source_id?: string }> }>(`/knowledge-bases/${kb.id}/search`, { query: q, method, top_k: 10 })
    .then((r) => r.results.slice(1).map((x) => docOf.get(x.source_id!)!));
  const bm25 = await evaluate(viaApi('full_text'));
  const tsRank = await evaluate(async (q) => (await platform.adminPool.query<{ source_id: string }>(
    `with q as (select to_tsquery('english', string_agg(quote_literal(l.lexeme), ' | ')) as q from unnest(to_tsvector('english', $2)) l)
     select i.source_id from ai.kb_items i, q where i.kb_id = $1 and to_tsvector('english', i.text) @@ q.q
      order by ts_rank(to_tsvector('english', i.text), q.q) desc limit 10`, [kb.id, q])).rows.map((r) => docOf.get(r.source_id)!));

  console.log(`SciFact: ${corpus.length} abstracts, ${qrels.size} test queries`);
  console.log(`indexing through the API and worker   ${(corpus.length / indexSeconds).toFixed(0)} documents/s (upload, extraction, chunking, BM25 statistics)`);
  console.log(`build-bm25 (all ${corpus.length} items)       ${buildSeconds.toFixed(1)} s from the request to ready`);
  console.log(`full_text (BM25 in SQL)               nDCG@10 ${bm25.ndcg.toFixed(3)} | search p50 ${bm25.p50.toFixed(1)} ms through the API`);
  console.log(`ts_rank baseline (same items, SQL)    nDCG@10 ${tsRank.ndcg.toFixed(3)} | p50 ${tsRank.p50.toFixed(1)} ms | ratio ${(bm25.ndcg / tsRank.ndcg).toFixed(2)}`);
  if (embeddings) {
    const vector = await evaluate(viaApi('vector_search'));
    const hybrid = await evaluate(viaApi('hybrid'));
    console.log(`vector_search (${embeddings.model})   nDCG@10 ${vector.ndcg.toFixed(3)} | p50 ${vector.p50.toFixed(1)} ms`);
    console.log(`hybrid (weighted 0.5)                 nDCG@10 ${hybrid.ndcg.toFixed(3)} | p50 ${hybrid.p50.toFixed(1)} ms`);
  } else {
    console.log('vector_search and hybrid: skipped (no embedding endpoint: set EMBEDDINGS_BASE_URL, EMBEDDINGS_API_KEY, EMBEDDINGS_MODEL)');
  }
} finally {
  await platform.stop();
  await cluster.stop();
}
