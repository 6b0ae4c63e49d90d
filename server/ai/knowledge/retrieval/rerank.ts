// The reranker: a model reads the query and the candidates and scores each
// from 0 to 10 (reported as 0 to 1). A model named rerank/<model> is a
// hosted rerank endpoint instead (RERANK_API_URL, through the router), whose
// relevance scores are kept.
//
// A reranker that answers badly never fails the search (decided once, for
// every model-driven step of retrieval: see docs/ai/knowledge-bases.md): the
// scores are asked for as structured output (a JSON schema where the
// provider takes one, JSON mode otherwise); a short list scores the
// passages it covers, a long one is cut; a passage left without a score
// keeps `reranker_score` null. When no score at all can be read, or the
// vendor fails, the search keeps its retrieval order and its diagnostics
// name the reranker's failure (search.ts).
import type { ModelRouter } from '../../providers/router.ts';
import { routeModel } from '../../providers/vendors.ts';
import type { UsageContext } from '../../usage/ledger.ts';
import { parseModelJson } from '../model-json.ts';

const PASSAGE_CHARS = 2000;

export type Reranked = { scores: Array<number | null>; scored: number };

/** The scores schema, strict as OpenAI's structured outputs want it. */
const SCORES_FORMAT = {
  type: 'json_schema' as const,
  json_schema: {
    name: 'passage_scores', strict: true,
    schema: { type: 'object', properties: { scores: { type: 'array', items: { type: 'number' } } }, required: ['scores'], additionalProperties: false },
  },
};

/** Scores read from a model's answer: one per passage, in order; null where the answer has none. */
export function scoresFrom(content: string | null, passages: number): Reranked {
  let raw: unknown;
  try {
    raw = (parseModelJson(content) as { scores?: unknown }).scores;
  } catch {
    raw = null;
  }
  const list = Array.isArray(raw) ? raw : [];
  const scores = Array.from({ length: passages }, (_, i) => {
    const s = typeof list[i] === 'number' || typeof list[i] === 'string' ? Number(list[i]) : NaN;
    return Number.isFinite(s) ? Math.min(1, Math.max(0, s / 10)) : null;
  });
  return { scores, scored: scores.filter((s) => s !== null).length };
}

export async function rerank(models: ModelRouter, opts: { model: string; query: string; passages: string[]; usage: UsageContext; signal?: AbortSignal }): Promise<Reranked> {
  if (opts.model.startsWith('rerank/')) {
    const scores = await models.rerank({ model: opts.model, query: opts.query, documents: opts.passages.map((p) => p.slice(0, PASSAGE_CHARS * 4)), context: { ...opts.usage, step: 'rerank' }, ...(opts.signal ? { signal: opts.signal } : {}) });
    return { scores, scored: scores.length };
  }
  const listing = opts.passages.map((p, i) => `[${i}] ${p.slice(0, PASSAGE_CHARS).replace(/\s+/g, ' ')}`).join('\n\n');
  // Anthropic's OpenAI-compatible endpoint takes no JSON schema: JSON mode there.
  const structured = routeModel(opts.model)?.provider !== 'anthropic';
  const r = await models.chat({
    model: opts.model, context: { ...opts.usage, step: 'rerank' }, settings: { temperature: 0 },
    response_format: structured ? SCORES_FORMAT : { type: 'json_object' },
    ...(opts.signal ? { signal: opts.signal } : {}),
    messages: [
      { role: 'system', content: 'You rank search results. Score how well each numbered passage answers the query, from 0 (unrelated) to 10 (answers it fully). Answer JSON {"scores": [s0, s1, ...]} with one number per passage, in order.' },
      { role: 'user', content: `Query: ${opts.query}\n\nPassages:\n${listing}` },
    ],
  });
  return scoresFrom(r.content, opts.passages.length);
}
