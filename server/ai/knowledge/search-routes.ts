// POST /api/knowledge-bases/{id}/search (the pipeline is search.ts) and our
// addition, POST .../evaluate (evaluate.ts): labelled queries in, nDCG@10,
// recall@k and MRR per method out, so users tune vector_weight on their own
// documents.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import { idOf, parse, UUID } from '../parse.ts';
import type { knowledgeSearch } from './search.ts';
import { EVALUATED, evaluateMethods } from './evaluate.ts';

const Reranker = z.object({ model: z.string().min(1).optional(), candidate_count: z.number().int().min(1).max(200).optional() }, { error: 'reranker must be an object {model, candidate_count} or null' }).nullable();
export const SearchBody = z.object({
  query: z.string({ error: 'query is required' }).trim().min(1, 'query is required'),
  top_k: z.number({ error: 'top_k must be an integer from 1 to 100' }).int('top_k must be an integer from 1 to 100').min(1, 'top_k must be an integer from 1 to 100').max(100, 'top_k must be an integer from 1 to 100').optional(),
  method: z.string({ error: 'method must be a string' }).optional(),
  vector_weight: z.number({ error: 'vector_weight must be a number from 0 to 1' }).min(0, 'vector_weight must be a number from 0 to 1').max(1, 'vector_weight must be a number from 0 to 1').optional(),
  fusion: z.enum(['weighted', 'rrf'], { error: 'fusion must be weighted or rrf' }).optional(),
  context_mode: z.enum(['text', 'image'], { error: 'context_mode must be text or image' }).optional(),
  ts_language: z.string({ error: 'ts_language must be a string' }).optional(),
  reranker: Reranker.optional(),
  reranker_model: z.string({ error: 'reranker_model must be a string' }).min(1).optional(),
  reranker_candidate_count: z.number({ error: 'reranker_candidate_count must be an integer from 1 to 200' }).int().min(1).max(200).optional(),
  score_threshold: z.number({ error: 'score_threshold must be a number' }).optional(),
  filter_metadata: z.record(z.string(), z.unknown(), { error: 'filter_metadata must be an object' }).optional(),
  query_enrichment: z.object({ enabled: z.boolean().optional(), model: z.string().optional() }, { error: 'query_enrichment must be an object {enabled, model}' }).optional(),
});
export type SearchRequest = z.infer<typeof SearchBody>;

/** The request's reranker fields as one `reranker` override (flat fields turn reranking on). */
export function overridesOf(body: SearchRequest): Record<string, unknown> & { query: string } {
  const { reranker_model, reranker_candidate_count, ...rest } = body;
  if (reranker_model === undefined && reranker_candidate_count === undefined) return rest;
  return { ...rest, reranker: { ...(body.reranker ?? {}), ...(reranker_model ? { model: reranker_model } : {}), ...(reranker_candidate_count ? { candidate_count: reranker_candidate_count } : {}) } };
}

export const EvaluateBody = z.object({
  queries: z.array(z.object({
    query: z.string({ error: 'each query needs query text' }).trim().min(1, 'each query needs query text'),
    relevant_source_ids: z.array(z.string().regex(UUID, 'relevant_source_ids must be source ids'), { error: 'each query needs relevant_source_ids' }).min(1, 'each query needs at least one relevant source id'),
  }), { error: 'queries is required: [{query, relevant_source_ids}]' }).min(1, 'queries must not be empty').max(500, 'at most 500 queries'),
  methods: z.array(z.enum(EVALUATED, { error: 'methods are full_text, vector_search or hybrid' })).min(1).optional(),
  k: z.number().int().min(1).max(100).optional(),
  vector_weight: z.number().min(0).max(1).optional(),
});

export function kbSearchRoutes(calls: AiCalls, search: ReturnType<typeof knowledgeSearch>): Router {
  const r = express.Router({ mergeParams: true });

  r.post('/search', route(async (req, res) => {
    const id = idOf(req.params.id, 'Knowledge base');
    const body = parse(SearchBody, req.body);
    const answer = await search(contextOf(req), id, overridesOf(body));
    res.json({ query: body.query, knowledge_base_id: id, results: [answer.diagnostics, ...answer.results], metadata: { query_enrichment: answer.enrichment } });
  }));

  r.post('/evaluate', route(async (req, res) => {
    const id = idOf(req.params.id, 'Knowledge base');
    const body = parse(EvaluateBody, req.body);
    res.json(await evaluateMethods(calls, search, contextOf(req), id, body));
  }));

  return r;
}
