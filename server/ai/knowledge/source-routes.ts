// A knowledge base's indexed sources (spec 4.13, 3.2): list, add (indexing
// starts in a job, or once the source is extracted), cancel, delete, reindex,
// the items indexing made, the BM25 build, and graph enrichment (graph_index). Every state change is one SQL
// function (sql/0042, 0043).
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import { idOf, parse, queryChoice, queryInt, UUID } from '../parse.ts';
import type { KbStore } from './store.ts';

const STATUSES = ['pending', 'indexing', 'indexed', 'failed', 'cancelled'] as const;
const Id = (what: string) => z.string({ error: `${what} must be an id` }).regex(UUID, `${what} must be an id`).transform((s) => s.toLowerCase());
export const AddSourceBody = z.object({ source_id: Id('source_id') });
export const ReindexBody = z.object({ indexed_source_ids: z.array(Id('indexed_source_ids[]'), { error: 'indexed_source_ids must be an array of ids' }).optional(), failed_only: z.boolean({ error: 'failed_only must be a boolean' }).optional() });
export const GraphRunBody = z.object({ indexed_source_id: Id('indexed_source_id').optional(), retry_failed: z.boolean({ error: 'retry_failed must be a boolean' }).optional() });
export const ItemsBody = z.object({
  source_ids: z.array(Id('source_ids[]'), { error: 'source_ids is required: a non-empty array of source ids' }).min(1, 'source_ids must not be empty'),
  limit: z.number({ error: 'limit must be an integer from 1 to 10000' }).int('limit must be an integer from 1 to 10000').min(1, 'limit must be an integer from 1 to 10000').max(10000, 'limit must be at most 10000').optional(),
  offset: z.number({ error: 'offset must be an integer of 0 or more' }).int('offset must be an integer of 0 or more').min(0, 'offset must be an integer of 0 or more').optional(),
});

export const IndexedSourceQuery = z.object({
  q: z.string().optional().meta({ description: 'Case-insensitive name substring' }),
  status: queryChoice('status', STATUSES),
  sort: queryChoice('sort', ['name', 'created_at']),
  order: queryChoice('order', ['asc', 'desc']),
  limit: queryInt('limit', 1, 200).default(50),
  offset: queryInt('offset', 0).default(0),
});

export function kbSourceRoutes(kbs: KbStore): Router {
  const r = express.Router({ mergeParams: true });
  const kbId = (req: express.Request) => idOf(req.params.id, 'Knowledge base');
  const entry = kbs.entry;

  r.get('/sources', route(async (req, res) => {
    const id = kbId(req);
    await kbs.get(req, id);
    const q = parse(IndexedSourceQuery, req.query);
    res.json(await kbs.sourceList(req, id, { q: q.q || null, status: q.status ?? null, sort: q.sort ?? null, order: q.order ?? 'desc', limit: q.limit, offset: q.offset }));
  }));

  r.post('/sources', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(AddSourceBody, req.body);
    res.status(202).json(await entry(req, id, await kbs.addSource(req, id, body.source_id)));
  }));

  r.post('/sources/:sid/cancel', route(async (req, res) => {
    const id = kbId(req);
    const sid = idOf(req.params.sid, 'Indexed source');
    await kbs.cancelSource(req, id, sid);
    res.json(await entry(req, id, sid));
  }));

  r.delete('/sources/:sid', route(async (req, res) => {
    const id = kbId(req);
    const sid = idOf(req.params.sid, 'Indexed source');
    await kbs.removeSource(req, id, sid);
    res.json({ message: 'Indexed source deleted', deleted_indexed_source_id: sid, kb_id: id });
  }));

  // Explicit ids win over failed_only; an empty body re-indexes every source.
  r.post('/reindex', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(ReindexBody, req.body ?? {});
    const count = await kbs.reindex(req, id, body.indexed_source_ids ?? null, body.failed_only ?? false);
    if (!count) return void res.json({ status: 'noop', message: body.failed_only && !body.indexed_source_ids ? 'No failed sources to re-index' : 'No sources to re-index', knowledge_base_id: id });
    res.status(202).json({ status: 'queued', count, knowledge_base_id: id });
  }));

  r.post('/build-bm25', route(async (req, res) => {
    const id = kbId(req);
    res.status(202).json({ task_id: await kbs.buildBm25(req, id), knowledge_base_id: id });
  }));

  // graph_index only (400 otherwise): the graph extracted again for one indexed source or all, every chunk or the failed ones.
  r.post('/graph-enrichment/run', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(GraphRunBody, req.body ?? {});
    const taskId = await kbs.runGraphEnrichment(req, id, body.indexed_source_id ?? null, body.retry_failed ?? false);
    res.status(202).json({ status: 'queued', task_id: taskId, knowledge_base_id: id, indexed_source_id: body.indexed_source_id ?? null, retry_failed: body.retry_failed ?? false });
  }));

  r.get('/graph-enrichment/errors', route(async (req, res) => {
    const id = kbId(req);
    res.json({ knowledge_base_id: id, sources: await kbs.graphErrors(req, id) });
  }));

  // ItemsBody of the given sources in source then position order, each with the strategy's extras spread in.
  r.post('/items', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(ItemsBody, req.body);
    await kbs.get(req, id);
    const limit = body.limit ?? 1000;
    const offset = body.offset ?? 0;
    const { rows, total } = await kbs.items(req, id, body.source_ids, limit, offset);
    res.json({ items: rows.map(({ extras, ...item }) => ({ ...extras, ...item })), total, limit, offset });
  }));

  return r;
}
