// POST /api/knowledge-bases/{id}/evaluate (ours): labelled queries searched
// with each method (no reranker, no enrichment, so methods compare on their
// own), each answer's sources ranked and scored: nDCG@10, recall@k, MRR. A
// method the knowledge base cannot run (no embeddings, say) answers its error.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import type { knowledgeSearch } from './search.ts';

export const EVALUATED = ['full_text', 'vector_search', 'hybrid'] as const;
export type Evaluation = { queries: Array<{ query: string; relevant_source_ids: string[] }>; methods?: string[] | undefined; k?: number | undefined; vector_weight?: number | undefined };

/** nDCG@10, recall@k and reciprocal rank of a ranked list of source ids against the relevant ones (binary relevance). */
export function scoreRanking(ranked: string[], relevant: Set<string>, k: number) {
  const dcg = ranked.slice(0, 10).reduce((s, id, i) => s + (relevant.has(id) ? 1 / Math.log2(i + 2) : 0), 0);
  const ideal = [...Array(Math.min(10, relevant.size)).keys()].reduce((s, i) => s + 1 / Math.log2(i + 2), 0);
  const hits = ranked.slice(0, k).filter((id) => relevant.has(id)).length;
  const first = ranked.findIndex((id) => relevant.has(id));
  return { ndcg: ideal ? dcg / ideal : 0, recall: hits / relevant.size, rr: first >= 0 ? 1 / (first + 1) : 0 };
}

export async function evaluateMethods(calls: AiCalls, search: ReturnType<typeof knowledgeSearch>, ctx: RequestContext, kbId: string, e: Evaluation) {
  const k = e.k ?? 10;
  const [kb] = await calls.as<{ config: { method: string } }>(ctx, 'select ai.kb_retrieval_config(id) as config from ai.knowledge_bases where id = $1', [kbId]);
  if (!kb) throw aiErrors.notFound('Knowledge base');
  const methods = e.methods ?? [...new Set([kb.config.method, ...EVALUATED])].filter((m) => (EVALUATED as readonly string[]).includes(m));
  const out: Record<string, unknown> = {};
  for (const method of methods) {
    const started = performance.now();
    let ndcg = 0, recall = 0, mrr = 0;
    try {
      for (const q of e.queries) {
        const answer = await search(ctx, kbId, { query: q.query, method, top_k: Math.max(k, 10), reranker: null, query_enrichment: { enabled: false }, ...(e.vector_weight !== undefined ? { vector_weight: e.vector_weight } : {}) }, 'evaluation');
        const s = scoreRanking([...new Set(answer.results.map((x) => x.source_id))], new Set(q.relevant_source_ids.map((x) => x.toLowerCase())), k);
        ndcg += s.ndcg;
        recall += s.recall;
        mrr += s.rr;
      }
    } catch (err) {
      out[method] = { error: (err as Error).message };
      continue;
    }
    const n = e.queries.length;
    out[method] = { ndcg_at_10: ndcg / n, [`recall_at_${k}`]: recall / n, mrr: mrr / n, queries: n, ms: Math.round(performance.now() - started) };
  }
  return { knowledge_base_id: kbId, k, methods: out };
}
