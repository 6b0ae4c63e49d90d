// A knowledge base's indexed sources (spec 4.13, 3.2): list, add (indexing
// starts in a job, or once the source is extracted), cancel, delete, reindex,
// the items indexing made, the BM25 build, and graph enrichment (graph_index). Every state change is one SQL
// function (sql/0041, 0042).
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, intParam, parse, UUID } from '../parse.ts';
import type { KbRow } from './routes.ts';

const STATUSES = ['pending', 'indexing', 'indexed', 'failed', 'cancelled'];
const Id = (what: string) => z.string({ error: `${what} must be an id` }).regex(UUID, `${what} must be an id`).transform((s) => s.toLowerCase());
const AddSource = z.object({ source_id: Id('source_id') });
const Reindex = z.object({ indexed_source_ids: z.array(Id('indexed_source_ids[]'), { error: 'indexed_source_ids must be an array of ids' }).optional(), failed_only: z.boolean({ error: 'failed_only must be a boolean' }).optional() });
const GraphRun = z.object({ indexed_source_id: Id('indexed_source_id').optional(), retry_failed: z.boolean({ error: 'retry_failed must be a boolean' }).optional() });
const Items = z.object({
  source_ids: z.array(Id('source_ids[]'), { error: 'source_ids is required: a non-empty array of source ids' }).min(1, 'source_ids must not be empty'),
  limit: z.number({ error: 'limit must be an integer from 1 to 10000' }).int('limit must be an integer from 1 to 10000').min(1, 'limit must be an integer from 1 to 10000').max(10000, 'limit must be at most 10000').optional(),
  offset: z.number({ error: 'offset must be an integer of 0 or more' }).int('offset must be an integer of 0 or more').min(0, 'offset must be an integer of 0 or more').optional(),
});

function choice(raw: unknown, what: string, allowed: string[]): string | null {
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string' || !allowed.includes(raw)) throw aiErrors.validation(`${what} must be one of ${allowed.join(', ')}`);
  return raw;
}

export function kbSourceRoutes(calls: AiCalls, kbOf: (req: express.Request, id: string) => Promise<KbRow>): Router {
  const r = express.Router({ mergeParams: true });
  const kbId = (req: express.Request) => idOf(req.params.id, 'Knowledge base');
  const entry = async (req: express.Request, kb: string, id: string) => {
    const [row] = await calls.call(req,
      `select k.id, k.source_id, k.index_status, k.indexed_at, k.stats, k.error_message, k.steps_done, k.steps_total, k.created_at,
              s.name as source_name, s.extension as file_type, s.created_at as source_created_at
         from ai.kb_sources k join ai.sources s on s.id = k.source_id where k.id = $1 and k.kb_id = $2`, [id, kb]);
    return row;
  };

  r.get('/sources', route(async (req, res) => {
    const id = kbId(req);
    await kbOf(req, id);
    const q = typeof req.query.q === 'string' && req.query.q !== '' ? req.query.q : null;
    const status = choice(req.query.status, 'status', STATUSES);
    const sort = choice(req.query.sort, 'sort', ['name', 'created_at']);
    const order = choice(req.query.order, 'order', ['asc', 'desc']) ?? 'desc';
    const limit = intParam(req.query.limit, 'limit', 1, 200, 50);
    const offset = intParam(req.query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
    const [row] = await calls.call<{ list: unknown }>(req, 'select ai.kb_source_list($1, $2, $3, $4, $5, $6, $7) as list', [id, q, status, sort, order, limit, offset]);
    res.json(row!.list);
  }));

  r.post('/sources', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(AddSource, req.body);
    const [row] = await calls.call<{ id: string }>(req, 'select (ai.add_kb_source($1, $2)).id', [id, body.source_id]);
    res.status(202).json(await entry(req, id, row!.id));
  }));

  r.post('/sources/:sid/cancel', route(async (req, res) => {
    const id = kbId(req);
    const sid = idOf(req.params.sid, 'Indexed source');
    await calls.call(req, 'select ai.cancel_kb_source($1, $2)', [id, sid]);
    res.json(await entry(req, id, sid));
  }));

  r.delete('/sources/:sid', route(async (req, res) => {
    const id = kbId(req);
    const sid = idOf(req.params.sid, 'Indexed source');
    await calls.call(req, 'select ai.remove_kb_source($1, $2)', [id, sid]);
    res.json({ message: 'Indexed source deleted', deleted_indexed_source_id: sid, kb_id: id });
  }));

  // Explicit ids win over failed_only; an empty body re-indexes every source.
  r.post('/reindex', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(Reindex, req.body ?? {});
    const [row] = await calls.call<{ n: number }>(req, 'select ai.reindex_kb_sources($1, $2, $3) as n', [id, body.indexed_source_ids ?? null, body.failed_only ?? false]);
    if (!row!.n) return void res.json({ status: 'noop', message: body.failed_only && !body.indexed_source_ids ? 'No failed sources to re-index' : 'No sources to re-index', knowledge_base_id: id });
    res.status(202).json({ status: 'queued', count: row!.n, knowledge_base_id: id });
  }));

  r.post('/build-bm25', route(async (req, res) => {
    const id = kbId(req);
    const [row] = await calls.call<{ task_id: string }>(req, 'select ai.request_bm25_build($1) as task_id', [id]);
    res.status(202).json({ task_id: row!.task_id, knowledge_base_id: id });
  }));

  // graph_index only (400 otherwise): the graph extracted again for one indexed source or all, every chunk or the failed ones.
  r.post('/graph-enrichment/run', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(GraphRun, req.body ?? {});
    const [row] = await calls.call<{ task_id: string }>(req, 'select ai.request_graph_enrichment($1, $2, $3)::text as task_id', [id, body.indexed_source_id ?? null, body.retry_failed ?? false]);
    res.status(202).json({ status: 'queued', task_id: row!.task_id, knowledge_base_id: id, indexed_source_id: body.indexed_source_id ?? null, retry_failed: body.retry_failed ?? false });
  }));

  r.get('/graph-enrichment/errors', route(async (req, res) => {
    const id = kbId(req);
    const [row] = await calls.call<{ out: unknown }>(req, 'select ai.graph_errors($1) as out', [id]);
    res.json({ knowledge_base_id: id, sources: row!.out });
  }));

  // Items of the given sources in source then position order, each with the strategy's extras spread in.
  r.post('/items', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(Items, req.body);
    await kbOf(req, id);
    const limit = body.limit ?? 1000;
    const offset = body.offset ?? 0;
    const rows = await calls.call<{ extras: Record<string, unknown> }>(req,
      `select i.id, i.source_id, i.text, i.meta, i.kind, i.position, i.token_count, i.extras, exists (select 1 from ai.kb_vectors v where v.item_id = i.id) as embedded
         from ai.kb_items i where i.kb_id = $1 and i.source_id = any ($2)
        order by i.source_id, i.position limit $3 offset $4`, [id, body.source_ids, limit, offset]);
    const [count] = await calls.call<{ n: string }>(req, 'select count(*) as n from ai.kb_items where kb_id = $1 and source_id = any ($2)', [id, body.source_ids]);
    res.json({ items: rows.map(({ extras, ...item }) => ({ ...extras, ...item })), total: Number(count!.n), limit, offset });
  }));

  return r;
}
