// vector_search without pgvector: the query's sign bits find the nearest
// codes by Hamming distance in SQL (ai.kb_vector_candidates), and those
// candidates are rescored exactly by cosine (dot products of unit vectors).
// Oversampling keeps recall@10 high; bench:vectors measures it.
import { aiErrors } from '../../errors.ts';
import type { AiCalls } from '../../calls.ts';
import { dot, signCode, vectorOf, type Embed } from '../embedder.ts';
import type { MethodRun, Retrieval } from './types.ts';

/** Candidates read per result wanted, and at least this many. */
const OVERSAMPLE = 20;
const MIN_CANDIDATES = 300;

export async function vectorSearch(calls: AiCalls, embed: Embed, r: Retrieval, signal?: AbortSignal): Promise<MethodRun> {
  if (!r.embeddingModel) throw aiErrors.validation('This knowledge base keeps no embeddings (indexing_config.embedding_model is null): search it with full_text');
  const started = performance.now();
  const [q] = await embed(r.embeddingModel, [r.query], { ...r.usage, step: 'query_embedding' }, signal);
  const embedded = performance.now();
  const items = await searchVectors(calls, r, q!);
  return { items: items.scored, diagnostics: { candidates: items.candidates, top_score: items.scored[0]?.score ?? null, model: r.embeddingModel, embed_ms: Math.round(embedded - started), ms: Math.round(performance.now() - started) } };
}

export async function searchVectors(calls: AiCalls, r: Pick<Retrieval, 'ctx' | 'kbId' | 'limit' | 'filter' | 'embeddingModel'>, q: Float32Array) {
  const want = Math.max(MIN_CANDIDATES, r.limit * OVERSAMPLE);
  const rows = await calls.as<{ item_id: string; embedding: Buffer }>(r.ctx,
    'select item_id, embedding from ai.kb_vector_candidates($1, $2, $3::bit varying, $4, $5)',
    [r.kbId, r.embeddingModel, signCode(q), want, r.filter]);
  const scored = rows.map((x) => ({ id: x.item_id, score: dot(q, vectorOf(x.embedding)) })).sort((a, b) => b.score - a.score).slice(0, r.limit);
  return { scored, candidates: rows.length };
}
