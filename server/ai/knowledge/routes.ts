// /api/knowledge-bases (spec 4.13): the knowledge base itself (this file),
// its indexed sources (source-routes.ts), search (search-routes.ts) and
// metadata enrichment (enrichment-routes.ts); their SQL is in store.ts.
// Configs are merged, checked and stored in SQL (ai.prepare_knowledge_base);
// errors are `{error}`.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, parse } from '../parse.ts';
import type { knowledgeSearch } from './search.ts';
import { kbSourceRoutes } from './source-routes.ts';
import { kbSearchRoutes } from './search-routes.ts';
import { kbEnrichmentRoutes } from './enrichment-routes.ts';
import { kbStore } from './store.ts';

const Config = (what: string) => z.record(z.string(), z.unknown(), { error: `${what} must be an object` });
export const KnowledgeBaseBody = z.object({
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(500),
  description: z.string({ error: 'description must be a string' }).max(10000).nullable().optional(),
  indexing_config: Config('indexing_config').optional(),
  retrieval_config: Config('retrieval_config').optional(),
});
export const KnowledgeBasePatch = KnowledgeBaseBody.partial().strict();

export function knowledgeBaseRoutes(calls: AiCalls, search: ReturnType<typeof knowledgeSearch>): Router {
  const r = express.Router();
  const kbs = kbStore(calls);

  r.get('/', route(async (req, res) => {
    res.json(await kbs.list(req));
  }));

  r.post('/', route(async (req, res) => {
    res.status(201).json(await kbs.create(req, parse(KnowledgeBaseBody, req.body)));
  }));

  // With its sources (the first page of the list of 4.13) and their status counts.
  r.get('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Knowledge base');
    const kb = await kbs.get(req, id);
    const list = await kbs.sourceList(req, id, { q: null, status: null, sort: null, order: 'desc', limit: 200, offset: 0 });
    res.json({ ...kb, sources: list.items, sources_total: list.total });
  }));

  r.patch('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Knowledge base');
    const body = parse(KnowledgeBasePatch, req.body);
    if (Object.keys(body).length === 0) throw aiErrors.validation('No fields to update: send name, description, indexing_config or retrieval_config');
    res.json(await kbs.update(req, id, body));
  }));

  // Everything derived goes with it (items, vectors, BM25 statistics, graph, metadata table); the sources stay.
  r.delete('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Knowledge base');
    await kbs.remove(req, id);
    res.json({ message: 'Knowledge base deleted', id });
  }));

  r.use('/:id', kbSourceRoutes(kbs));
  r.use('/:id', kbSearchRoutes(calls, search));
  r.use('/:id', kbEnrichmentRoutes(kbs));
  return r;
}
