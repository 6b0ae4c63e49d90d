// The reranker: a model reads the query and the candidates and scores each
// from 0 to 10 (reported as 0 to 1); candidates it does not score keep 0. A
// model named rerank/<model> is a hosted rerank endpoint instead
// (RERANK_API_URL, through the router), whose relevance scores are kept.
import type { ModelRouter } from '../../providers/router.ts';
import type { UsageContext } from '../../usage/ledger.ts';

const PASSAGE_CHARS = 2000;

export async function rerank(models: ModelRouter, opts: { model: string; query: string; passages: string[]; usage: UsageContext; signal?: AbortSignal }): Promise<number[]> {
  if (opts.model.startsWith('rerank/')) {
    return models.rerank({ model: opts.model, query: opts.query, documents: opts.passages.map((p) => p.slice(0, PASSAGE_CHARS * 4)), context: { ...opts.usage, step: 'rerank' }, ...(opts.signal ? { signal: opts.signal } : {}) });
  }
  const listing = opts.passages.map((p, i) => `[${i}] ${p.slice(0, PASSAGE_CHARS).replace(/\s+/g, ' ')}`).join('\n\n');
  const r = await models.chat({
    model: opts.model, context: { ...opts.usage, step: 'rerank' }, settings: { temperature: 0 }, response_format: { type: 'json_object' },
    ...(opts.signal ? { signal: opts.signal } : {}),
    messages: [
      { role: 'system', content: 'You rank search results. Score how well each numbered passage answers the query, from 0 (unrelated) to 10 (answers it fully). Answer JSON {"scores": [s0, s1, ...]} with one number per passage, in order.' },
      { role: 'user', content: `Query: ${opts.query}\n\nPassages:\n${listing}` },
    ],
  });
  let scores: unknown;
  try {
    scores = (JSON.parse((r.content ?? '').replace(/^```(?:json)?\s*|\s*```$/g, '')) as { scores?: unknown }).scores;
  } catch {
    scores = null;
  }
  if (!Array.isArray(scores)) throw new Error(`The reranker ${opts.model} did not answer {"scores": [...]}`);
  return opts.passages.map((_, i) => {
    const s = Number(scores[i]);
    return Number.isFinite(s) ? Math.min(1, Math.max(0, s / 10)) : 0;
  });
}
