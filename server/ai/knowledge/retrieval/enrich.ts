// Query enrichment: a model rewrites the query and adds up to three other
// phrasings; every one is searched and each item keeps its best score. When
// the model fails the original query is searched alone and the error reported.
import type { ModelRouter } from '../../providers/router.ts';
import type { UsageContext } from '../../usage/ledger.ts';
import { parseModelJson } from '../model-json.ts';

const MAX_EXTRA = 3;

export type Enrichment = { enabled: boolean; model: string | null; queries: string[]; error?: string };

export async function enrichQuery(models: ModelRouter, opts: { model: string; temperature: number; query: string; usage: UsageContext; signal?: AbortSignal }): Promise<Enrichment> {
  try {
    const r = await models.chat({
      model: opts.model, context: { ...opts.usage, step: 'query_enrichment' }, settings: { temperature: opts.temperature }, response_format: { type: 'json_object' },
      ...(opts.signal ? { signal: opts.signal } : {}),
      messages: [
        { role: 'system', content: `Improve a search query for a document search. Answer JSON {"queries": [...]}: first the query rewritten to be clear and specific, then up to ${MAX_EXTRA} different phrasings or expansions (synonyms, the terms a document would use).` },
        { role: 'user', content: opts.query },
      ],
    });
    const parsed = parseModelJson(r.content) as { queries?: unknown };
    const extra = Array.isArray(parsed.queries) ? parsed.queries.filter((q): q is string => typeof q === 'string' && q.trim() !== '').map((q) => q.trim()) : [];
    const queries = [...new Set([opts.query, ...extra.slice(0, MAX_EXTRA + 1)])];
    return { enabled: true, model: opts.model, queries };
  } catch (err) {
    return { enabled: true, model: opts.model, queries: [opts.query], error: (err as Error).message };
  }
}
