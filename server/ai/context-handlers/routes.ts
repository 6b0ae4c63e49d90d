// /api/context-handlers (spec 4.15): POST retrieves across knowledge bases
// (retrieve.ts) and stores the answer; GET lists the caller's (limit 50 up
// to 200, offset) and reads one. 500 only when every knowledge base failed.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, parse, queryInt, UUID } from '../parse.ts';
import type { contextRetriever } from './retrieve.ts';
import { contextHandlerStore } from './store.ts';

export const ContextRequestBody = z.object({
  query: z.string({ error: 'query is required' }).trim().min(1, 'query is required'),
  knowledge_bases: z.array(z.object({
    id: z.string({ error: 'each knowledge base needs an id' }).regex(UUID, 'each knowledge base id must be a UUID').transform((s) => s.toLowerCase()),
    top_k: z.number({ error: 'top_k must be an integer from 1 to 100' }).int('top_k must be an integer from 1 to 100').min(1, 'top_k must be an integer from 1 to 100').max(100, 'top_k must be an integer from 1 to 100').optional(),
  }, { error: 'each knowledge base is {id, top_k}' }), { error: 'knowledge_bases is required: [{id, top_k}]' }).min(1, 'knowledge_bases must not be empty').max(50, 'at most 50 knowledge bases'),
  max_context_tokens: z.number({ error: 'max_context_tokens must be an integer of 1 or more' }).int('max_context_tokens must be an integer of 1 or more').min(1, 'max_context_tokens must be an integer of 1 or more').max(2_000_000).optional(),
});

export const ContextListQuery = z.object({ limit: queryInt('limit', 1, 200).default(50), offset: queryInt('offset', 0).default(0) });

export function contextHandlerRoutes(calls: AiCalls, retrieve: ReturnType<typeof contextRetriever>): Router {
  const r = express.Router();
  const handlers = contextHandlerStore(calls);

  r.get('/', route(async (req, res) => {
    const { limit, offset } = parse(ContextListQuery, req.query);
    res.json({ ...(await handlers.list(req, limit, offset)), limit, offset });
  }));

  r.post('/', route(async (req, res) => {
    const body = parse(ContextRequestBody, req.body);
    const result = await retrieve(contextOf(req), body);
    if (result.errors.length === body.knowledge_bases.length) {
      throw aiErrors.retrievalFailed(`Retrieval failed for every knowledge base: ${result.errors.map((e) => `${e.knowledge_base_id}: ${e.error}`).join('; ')}`);
    }
    const row = await handlers.create(req, body.query, body, result);
    res.status(201).json({ id: row.id, ...result, created_at: row.created_at });
  }));

  r.get('/:id', route(async (req, res) => {
    const row = await handlers.get(req, idOf(req.params.id, 'Context handler'));
    res.json({ id: row.id, ...row.result, created_at: row.created_at });
  }));

  return r;
}
