// full_text: Okapi BM25 computed in SQL (ai.bm25_search) over the lexemes of
// the request's ts_language, with k1 and b from the retrieval config.
import type { AiCalls } from '../../calls.ts';
import type { MethodRun, Retrieval } from './types.ts';

export async function fullText(calls: AiCalls, r: Retrieval): Promise<MethodRun> {
  const bm25 = (r.config.bm25 ?? {}) as { k1?: number; b?: number };
  const k1 = bm25.k1 ?? 0.9;
  const b = bm25.b ?? 0.4;
  const language = String(r.config.ts_language ?? 'english');
  const started = performance.now();
  const rows = await calls.as<{ item_id: string; score: number; ready: boolean }>(r.ctx,
    `select s.item_id, s.score, k.bm25_status = 'ready' and k.bm25_language = $3 as ready
       from ai.bm25_search($1, $2, $3, $4, $5, $6, $7) s cross join ai.knowledge_bases k where k.id = $1`,
    [r.kbId, r.query, language, k1, b, r.limit, r.filter]);
  return {
    items: rows.map((x) => ({ id: x.item_id, score: x.score })),
    diagnostics: { candidates: rows.length, top_score: rows[0]?.score ?? null, k1, b, ts_language: language, statistics: rows.length === 0 || rows[0]!.ready ? 'index' : 'computed', ms: Math.round(performance.now() - started) },
  };
}
