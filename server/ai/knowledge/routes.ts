// /api/knowledge-bases (spec 4.13): the knowledge base itself (this file),
// its indexed sources (source-routes.ts) and search (search-routes.ts).
// Configs are merged, checked and stored in SQL (ai.prepare_knowledge_base);
// errors are `{error}`.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { ownedRows } from '../owned.ts';
import { idOf, parse } from '../parse.ts';
import type { knowledgeSearch } from './search.ts';
import { kbSourceRoutes } from './source-routes.ts';
import { kbSearchRoutes } from './search-routes.ts';
import { kbEnrichmentRoutes } from './enrichment-routes.ts';

const Config = (what: string) => z.record(z.string(), z.unknown(), { error: `${what} must be an object` });
const KbBody = z.object({
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(500),
  description: z.string({ error: 'description must be a string' }).max(10000).nullable().optional(),
  indexing_config: Config('indexing_config').optional(),
  retrieval_config: Config('retrieval_config').optional(),
});
const KbPatch = KbBody.partial().strict();

const COLUMNS = `k.id, k.owner_id, k.name, k.description, k.strategy, k.indexing_config, k.retrieval_config, k.needs_reindex,
                 k.bm25_status, k.bm25_language, k.bm25_message, k.bm25_built_at, k.created_at, k.updated_at, ai.kb_status(k.id) as status`;

export type KbRow = { id: string; owner_id: string | null; name: string; strategy: string; indexing_config: Record<string, unknown>; retrieval_config: Record<string, unknown> };

export function knowledgeBaseRoutes(calls: AiCalls, search: ReturnType<typeof knowledgeSearch>): Router {
  const r = express.Router();
  const owned = ownedRows(calls, 'ai.knowledge_bases', 'knowledge bases', () => aiErrors.notFound('Knowledge base'));
  const get = async (req: express.Request, id: string) => {
    const [kb] = await calls.call<KbRow>(req, `select ${COLUMNS} from ai.knowledge_bases k where k.id = $1`, [id]);
    if (!kb) throw aiErrors.notFound('Knowledge base');
    return kb;
  };

  r.get('/', route(async (req, res) => {
    res.json(await calls.call(req, `select ${COLUMNS} from ai.knowledge_bases k order by k.created_at desc, k.id`, []));
  }));

  r.post('/', route(async (req, res) => {
    const body = parse(KbBody, req.body);
    const [row] = await calls.call<{ id: string }>(req,
      'insert into ai.knowledge_bases (name, description, strategy, indexing_config, retrieval_config) values ($1, $2, $3, $4, $5) returning id',
      [body.name, body.description ?? null, 'chunk_embed', body.indexing_config ?? {}, body.retrieval_config ?? {}]);
    res.status(201).json(await get(req, row!.id));
  }));

  // With its sources (the first page of the list of 4.13) and their status counts.
  r.get('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Knowledge base');
    const kb = await get(req, id);
    const [list] = await calls.call<{ list: { items: unknown[]; total: number } }>(req, 'select ai.kb_source_list($1, null, null, null, null, 200, 0) as list', [id]);
    res.json({ ...kb, sources: list!.list.items, sources_total: list!.list.total });
  }));

  r.patch('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Knowledge base');
    const body = parse(KbPatch, req.body);
    if (Object.keys(body).length === 0) throw aiErrors.validation('No fields to update: send name, description, indexing_config or retrieval_config');
    const sets: string[] = [];
    const values: unknown[] = [id];
    for (const key of ['name', 'description', 'indexing_config', 'retrieval_config'] as const) {
      if (body[key] === undefined) continue;
      values.push(body[key]);
      sets.push(`${key} = $${values.length}`);
    }
    const changed = await calls.call(req, `update ai.knowledge_bases set ${sets.join(', ')} where id = $1 returning id`, values);
    if (!changed.length) await owned.refuse(req, id);
    res.json(await get(req, id));
  }));

  // Everything derived goes with it (items, vectors, BM25 statistics, by cascade); the sources stay.
  r.delete('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Knowledge base');
    const gone = await calls.call(req, 'delete from ai.knowledge_bases where id = $1 returning id', [id]);
    if (!gone.length) await owned.refuse(req, id);
    res.json({ message: 'Knowledge base deleted', id });
  }));

  r.use('/:id', kbSourceRoutes(calls, get));
  r.use('/:id', kbSearchRoutes(calls, search));
  r.use('/:id', kbEnrichmentRoutes(calls, get));
  return r;
}
