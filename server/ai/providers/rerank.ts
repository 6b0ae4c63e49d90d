// Reranking through a hosted rerank endpoint (RERANK_API_URL) for models
// named rerank/<model>: Cohere, Jina and text-embeddings-inference shapes; one
// usage-ledger entry per call.
import type { Config } from '../../config.ts';
import { aiErrors } from '../errors.ts';
import type { Ledger } from '../usage/ledger.ts';
import type { RerankRequest } from './types.ts';

export function reranker(config: Config, ledger: Ledger) {
  return async (req: RerankRequest): Promise<number[]> => {
    if (!config.RERANK_API_URL) throw aiErrors.validation(`The reranker ${req.model} needs a hosted rerank endpoint: set RERANK_API_URL`);
    await ledger.checkCredits();
    const started = Date.now();
    let tokens = 0;
    let ok = false;
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(config.AI_PROVIDER_TIMEOUT_MS), ...(req.signal ? [req.signal] : [])]);
      const res = await fetch(`${config.RERANK_API_URL.replace(/\/$/, '')}/rerank`, {
        method: 'POST', signal,
        headers: { 'content-type': 'application/json', ...(config.RERANK_API_KEY ? { authorization: `Bearer ${config.RERANK_API_KEY}` } : {}) },
        body: JSON.stringify({ model: req.model.replace(/^rerank\//, ''), query: req.query, documents: req.documents, top_n: req.documents.length }),
      }).catch((err: Error) => {
        throw req.signal?.aborted ? aiErrors.cancelled() : err.name === 'TimeoutError' ? aiErrors.providerTimeout('rerank') : aiErrors.providerFailed('rerank', 'connection failed');
      });
      const text = await res.text();
      if (!res.ok) throw aiErrors.providerFailed('rerank', `${res.status} ${text.slice(0, 200)}`, res.status);
      // Cohere and Jina answer {results: [{index, relevance_score}]}; text-embeddings-inference [{index, score}].
      const body = JSON.parse(text) as { results?: unknown[]; usage?: { total_tokens?: number } } | unknown[];
      const list = (Array.isArray(body) ? body : body.results ?? []) as Array<{ index?: number; relevance_score?: number; score?: number }>;
      const scores = req.documents.map(() => 0);
      for (const r of list) if (typeof r.index === 'number' && r.index >= 0 && r.index < scores.length) scores[r.index] = Number(r.relevance_score ?? r.score ?? 0);
      tokens = Array.isArray(body) ? 0 : body.usage?.total_tokens ?? 0;
      ok = true;
      return scores;
    } finally {
      await ledger.record({ ...req.context, model: req.model, provider: 'rerank', kind: 'rerank', tokensIn: tokens, tokensOut: 0, latencyMs: Date.now() - started, ok });
    }
  };
}
