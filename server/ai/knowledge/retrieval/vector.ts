// vector_search: SQL picks the candidates (ai.kb_nearest_vectors): pgvector's
// HNSW index where the database has the extension (sql/0049), scored there by
// cosine, else the query's sign bits against stored codes by Hamming
// distance, rescored here exactly (dot products of unit vectors).
// Oversampling keeps recall@10 high; bench:vectors measures it.
import { aiErrors } from '../../errors.ts';
import type { AiCalls } from '../../calls.ts';
import { dot, signCode, vectorBytes, vectorOf, type Embed } from '../embedder.ts';
import type { MethodRun, Retrieval } from './types.ts';

/** Candidates read per result wanted, and at least this many. */
const OVERSAMPLE = 20;
const MIN_CANDIDATES = 300;

export async function vectorSearch(calls: AiCalls, embed: Embed, r: Retrieval, signal?: AbortSignal): Promise<MethodRun> {
  if (!r.embeddingModel) throw aiErrors.validation('This knowledge base keeps no embeddings (indexing_config.embedding_model is null): search it with full_text');
  // Indexed while its method needed no vectors: say how to get them, rather than answer nothing.
  const [lacking] = await calls.as<{ lacks: boolean }>(r.ctx, 'select ai.kb_lacks_vectors($1, $2) as lacks', [r.kbId, r.embeddingModel]);
  if (lacking?.lacks) {
    throw aiErrors.validation(`This knowledge base's chunks have no embeddings from ${r.embeddingModel} (they were indexed for a method that needs none): POST /api/knowledge-bases/${r.kbId}/reindex to embed them`);
  }
  const started = performance.now();
  const [q] = await embed(r.embeddingModel, [r.query], { ...r.usage, step: 'query_embedding' }, signal);
  const embedded = performance.now();
  const items = await searchVectors(calls, r, q!);
  return { items: items.scored, diagnostics: { candidates: items.candidates, via: items.via, top_score: items.scored[0]?.score ?? null, model: r.embeddingModel, embed_ms: Math.round(embedded - started), ms: Math.round(performance.now() - started) } };
}

export async function searchVectors(calls: AiCalls, r: Pick<Retrieval, 'ctx' | 'kbId' | 'limit' | 'filter' | 'embeddingModel'>, q: Float32Array) {
  const want = Math.max(MIN_CANDIDATES, r.limit * OVERSAMPLE);
  // pgvector's candidates come scored; sign-bit ones with their embeddings.
  const rows = await calls.as<{ item_id: string; embedding: Buffer | null; score: number | null; via: 'pgvector' | 'sign_bits' }>(r.ctx,
    'select item_id, embedding, score, via from ai.kb_nearest_vectors($1, $2, $3::bit varying, $4, $5, $6)',
    [r.kbId, r.embeddingModel, signCode(q), vectorBytes(q), want, r.filter]);
  const scored = rows.map((x) => ({ id: x.item_id, score: x.score ?? dot(q, vectorOf(x.embedding!)) })).sort((a, b) => b.score - a.score).slice(0, r.limit);
  return { scored, candidates: rows.length, via: rows[0]?.via ?? null };
}
