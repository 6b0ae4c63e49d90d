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
  };
}

export type KbStore = ReturnType<typeof kbStore>;
