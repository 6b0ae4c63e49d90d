// Retrieval across several knowledge bases for one query, fitted to a token
// budget: each base searched with its own config and top_k (at most
// MAX_SEARCH_WORKERS at once), a failing base reported in `errors` without
// failing the others, the results ranked together by reciprocal rank (each
// base's scores are on its own scale: BM25, cosine, fused or reranked), then
// taken in that order while their tokens (gpt-tokenizer) fit
// max_context_tokens. Results that did not fit stay listed with
// included_in_context false and their text cut to DROPPED_ITEM_TEXT_LIMIT.
// Agents' knowledge-base tools use this too.
import type { RequestContext } from '../../../db/as-role.ts';
import { countTokens } from '../knowledge/chunking.ts';
import type { knowledgeSearch, ResultEntry } from '../knowledge/search.ts';
import type { Settings } from '../settings/accessor.ts';
import { pooled } from '../pooled.ts';

const RRF_K = 60;

export type ContextEntry = ResultEntry & { included_in_context: boolean; token_count: number };
export type ContextRequest = { query: string; knowledge_bases: Array<{ id: string; top_k?: number | undefined }>; max_context_tokens?: number | undefined };
export type ContextResult = {
  query: string;
  knowledge_base_configs: Array<Record<string, unknown>>;
  chunks: ContextEntry[];
  context: string;
  token_count: number;
  max_context_tokens: number;
  retrieval_diagnostics: Array<Record<string, unknown>>;
  metadata: { query_enrichment: { enabled: boolean; queries: string[]; by_knowledge_base: Array<{ knowledge_base_id: string; queries: string[] }> } };
  errors: Array<{ knowledge_base_id: string; error: string }>;
};

export function contextRetriever(opts: { search: ReturnType<typeof knowledgeSearch>; settings: Settings }) {
  return async (ctx: RequestContext, req: ContextRequest, feature = 'context_handler'): Promise<ContextResult> => {
    const budget = req.max_context_tokens ?? (await opts.settings.number('KB_DEFAULT_MAX_CONTEXT_TOKENS'));
    const workers = await opts.settings.number('MAX_SEARCH_WORKERS');
    const droppedChars = await opts.settings.number('DROPPED_ITEM_TEXT_LIMIT');
    const answers = await pooled(req.knowledge_bases, workers, async (kb) => {
      try {
        return { kb, answer: await opts.search(ctx, kb.id, { query: req.query, ...(kb.top_k !== undefined ? { top_k: kb.top_k } : {}) }, feature) };
      } catch (err) {
        return { kb, error: (err as Error).message };
      }
    });
    const errors = answers.flatMap((a) => ('error' in a ? [{ knowledge_base_id: a.kb.id, error: a.error! }] : []));
    const ranked = answers.flatMap((a) => ('answer' in a && a.answer ? a.answer.results.map((r, i) => ({ r, rrf: 1 / (RRF_K + i + 1) })) : []))
      .sort((x, y) => y.rrf - x.rrf || y.r.score - x.r.score);
    let used = 0;
    const chunks: ContextEntry[] = ranked.map(({ r }) => {
      const tokens = countTokens(r.text);
      const fits = used + tokens <= budget;
      if (fits) used += tokens;
      return { ...r, text: fits ? r.text : r.text.slice(0, droppedChars), included_in_context: fits, token_count: tokens };
    });
    const ok = answers.filter((a) => 'answer' in a && a.answer);
    const byKb = ok.map((a) => ({ knowledge_base_id: a.kb.id, queries: a.answer!.enrichment.queries }));
    return {
      query: req.query,
      knowledge_base_configs: req.knowledge_bases.map((kb) => {
        const a = ok.find((x) => x.kb.id === kb.id)?.answer;
        return { id: kb.id, top_k: kb.top_k ?? a?.config.top_k ?? null, ...(a ? { name: a.diagnostics.kb_name, indexing_strategy: a.diagnostics.indexing_strategy, retrieval_config: a.config } : {}) };
      }),
      chunks,
      context: chunks.filter((c) => c.included_in_context).map((c) => c.text).join('\n\n'),
      token_count: used,
      max_context_tokens: budget,
      retrieval_diagnostics: ok.map((a) => a.answer!.diagnostics),
      metadata: { query_enrichment: { enabled: ok.some((a) => a.answer!.enrichment.enabled), queries: [...new Set(byKb.flatMap((b) => b.queries))], by_knowledge_base: byKb } },
      errors,
    };
  };
}
