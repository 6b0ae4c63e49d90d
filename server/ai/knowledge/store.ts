// The SQL the knowledge-base routes make as the caller: rows and views read
// under RLS, every state change one SQL function (sql/0041–0047).
import type { Request } from 'express';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { ownedRows } from '../owned.ts';

const COLUMNS = `k.id, k.owner_id, k.name, k.description, k.strategy, k.indexing_config, k.retrieval_config, k.needs_reindex,
                 k.bm25_status, k.bm25_language, k.bm25_message, k.bm25_built_at, k.created_at, k.updated_at, ai.kb_status(k.id) as status`;
const ENTRY = `k.id, k.source_id, k.index_status, k.indexed_at, k.stats, k.error_message, k.steps_done, k.steps_total, k.created_at,
               s.name as source_name, s.extension as file_type, s.created_at as source_created_at`;

export type KbRow = { id: string; owner_id: string | null; name: string; strategy: string; indexing_config: Record<string, unknown>; retrieval_config: Record<string, unknown> };
export type KbFields = { name?: string | undefined; description?: string | null | undefined; indexing_config?: Record<string, unknown> | undefined; retrieval_config?: Record<string, unknown> | undefined };
export type SourceListQuery = { q: string | null; status: string | null; sort: string | null; order: string; limit: number; offset: number };

export function kbStore(calls: AiCalls) {
  const owned = ownedRows(calls, 'ai.knowledge_bases', 'knowledge bases', () => aiErrors.notFound('Knowledge base'));
  const get = async (req: Request, id: string): Promise<KbRow> => {
    const [kb] = await calls.call<KbRow>(req, `select ${COLUMNS} from ai.knowledge_bases k where k.id = $1`, [id]);
    if (!kb) throw aiErrors.notFound('Knowledge base');
    return kb;
  };
  const sourceList = async (req: Request, id: string, q: SourceListQuery) => {
    const [row] = await calls.call<{ list: { items: unknown[]; total: number; limit: number; offset: number } }>(req,
      'select ai.kb_source_list($1, $2, $3, $4, $5, $6, $7) as list', [id, q.q, q.status, q.sort, q.order, q.limit, q.offset]);
    return row!.list;
  };
  return {
    get,
    list: (req: Request) => calls.call<KbRow>(req, `select ${COLUMNS} from ai.knowledge_bases k order by k.created_at desc, k.id`, []),
    /** The strategy comes from indexing_config.strategy (the trigger reads it; chunk_embed otherwise). */
    create: async (req: Request, f: KbFields): Promise<KbRow> => {
      const [row] = await calls.call<{ id: string }>(req,
        'insert into ai.knowledge_bases (name, description, strategy, indexing_config, retrieval_config) values ($1, $2, $3, $4, $5) returning id',
        [f.name, f.description ?? null, 'chunk_embed', f.indexing_config ?? {}, f.retrieval_config ?? {}]);
      return get(req, row!.id);
    },
    update: async (req: Request, id: string, f: KbFields): Promise<KbRow> => {
      const sets: string[] = [];
      const values: unknown[] = [id];
      for (const key of ['name', 'description', 'indexing_config', 'retrieval_config'] as const) {
        if (f[key] === undefined) continue;
        values.push(f[key]);
        sets.push(`${key} = $${values.length}`);
      }
      const changed = await calls.call(req, `update ai.knowledge_bases set ${sets.join(', ')} where id = $1 returning id`, values);
      if (!changed.length) await owned.refuse(req, id);
      return get(req, id);
    },
    remove: async (req: Request, id: string): Promise<void> => {
      const gone = await calls.call(req, 'delete from ai.knowledge_bases where id = $1 returning id', [id]);
      if (!gone.length) await owned.refuse(req, id);
    },
    sourceList,
    /** One indexed-source entry as the list shows it. */
    entry: async (req: Request, kb: string, id: string) =>
      (await calls.call(req, `select ${ENTRY} from ai.kb_sources k join ai.sources s on s.id = k.source_id where k.id = $1 and k.kb_id = $2`, [id, kb]))[0],
    /** Items of the given sources in source then position order, and how many there are in all. */
    items: async (req: Request, kb: string, sourceIds: string[], limit: number, offset: number) => {
      const rows = await calls.call<{ extras: Record<string, unknown> }>(req,
        `select i.id, i.source_id, i.text, ai.item_meta(i.meta, (select s.metadata from ai.sources s where s.id = i.source_id)) as meta, i.kind, i.position, i.token_count, i.extras,
                exists (select 1 from ai.kb_vectors v where v.item_id = i.id) as embedded
           from ai.kb_items i where i.kb_id = $1 and i.source_id = any ($2)
          order by i.source_id, i.position limit $3 offset $4`, [kb, sourceIds, limit, offset]);
      const [count] = await calls.call<{ n: string }>(req, 'select count(*) as n from ai.kb_items where kb_id = $1 and source_id = any ($2)', [kb, sourceIds]);
      return { rows, total: Number(count!.n) };
    },

    // Indexed sources' state changes, each one SQL function (sql/0042, 0043, 0047, 0063).
    addSource: async (req: Request, kb: string, sourceId: string) =>
      (await calls.call<{ id: string }>(req, 'select (ai.add_kb_source($1, $2)).id', [kb, sourceId]))[0]!.id,
    cancelSource: (req: Request, kb: string, id: string) => calls.call(req, 'select ai.cancel_kb_source($1, $2)', [kb, id]),
    removeSource: (req: Request, kb: string, id: string) => calls.call(req, 'select ai.remove_kb_source($1, $2)', [kb, id]),
    /** How many sources were queued again (explicit ids win over failedOnly; neither: all). */
    reindex: async (req: Request, kb: string, ids: string[] | null, failedOnly: boolean) =>
      (await calls.call<{ n: number }>(req, 'select ai.reindex_kb_sources($1, $2, $3) as n', [kb, ids, failedOnly]))[0]!.n,
    buildBm25: async (req: Request, kb: string) =>
      (await calls.call<{ task_id: string }>(req, 'select ai.request_bm25_build($1) as task_id', [kb]))[0]!.task_id,
    runGraphEnrichment: async (req: Request, kb: string, indexedSourceId: string | null, retryFailed: boolean) =>
      (await calls.call<{ task_id: string }>(req, 'select ai.request_graph_enrichment($1, $2, $3)::text as task_id', [kb, indexedSourceId, retryFailed]))[0]!.task_id,
    graphErrors: async (req: Request, kb: string) => (await calls.call<{ out: unknown }>(req, 'select ai.graph_errors($1) as out', [kb]))[0]!.out,

    // Metadata enrichment (sql/0045, 0063).
    putEnrichment: async (req: Request, kb: string, e: { fields: unknown[]; llm_model?: string | undefined; max_tokens?: number | undefined; use_multimodal?: boolean | undefined }) =>
      (await calls.call<{ out: unknown }>(req, 'select ai.put_enrichment($1, $2, $3, $4, $5) as out', [kb, JSON.stringify(e.fields), e.llm_model ?? null, e.max_tokens ?? null, e.use_multimodal ?? null]))[0]!.out,
    enrichment: async (req: Request, kb: string) => (await calls.call<{ config: unknown }>(req, 'select ai.enrichment_view($1) as config', [kb]))[0]!.config,
    deleteEnrichment: (req: Request, kb: string) => calls.call(req, 'select ai.delete_enrichment($1)', [kb]),
    runEnrichment: async (req: Request, kb: string, incremental: boolean, retryFailed: boolean) =>
      (await calls.call<{ out: unknown }>(req, 'select ai.request_enrichment($1, $2, $3) as out', [kb, incremental, retryFailed]))[0]!.out,
    enrichmentResults: async (req: Request, kb: string, itemIds: string[]) =>
      (await calls.call<{ out: unknown }>(req, 'select ai.enrichment_results($1, $2) as out', [kb, itemIds]))[0]!.out,
  };
}

export type KbStore = ReturnType<typeof kbStore>;
