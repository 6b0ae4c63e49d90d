// Sources in SQL (sql/0037_ai_sources.sql) and their bytes in the private
// storage bucket ai-sources: the original at <id>/original.<ext>, derivatives
// under <id>/derivatives/. Rows are read and changed as the caller (the access
// model decides); bytes are written and read by the server as the service
// role once the caller's right to the source is established.
import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import { PROJECT_CALLER } from '../actor.ts';
import type { InProcessStorage } from '../../storage/in-process.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { ownedRows } from '../owned.ts';

export const SOURCE_BUCKET = 'ai-sources';
export const EXTENSIONS = ['pdf', 'txt', 'md', 'docx', 'xlsx', 'xls', 'pptx', 'png', 'jpg', 'jpeg', 'webp', 'gif', 'tiff'] as const;
export const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf', txt: 'text/plain; charset=utf-8', md: 'text/markdown; charset=utf-8', html: 'text/html; charset=utf-8',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', tiff: 'image/tiff',
};

export type SourceRow = {
  id: string; owner_id: string | null; name: string; metadata: Record<string, unknown>; origin: string; origin_detail: Record<string, unknown>;
  extension: string; content_type: string; size_bytes: string; object_path: string; extraction_model: string; extraction_status: string;
  extraction_run: number; extraction_message: string | null; extraction_engine: string | null; pages_total: number | null; pages_done: number;
  created_at: Date; updated_at: Date; extracted_at: Date | null;
};
export type NewSource = {
  name: string; metadata: Record<string, unknown>; origin: 'upload' | 'storage' | 'url'; origin_detail: Record<string, unknown>; extension: string; bytes: Buffer;
  extraction_model?: string | undefined;
  /** Files that came with the document (an imported page's images): stored beside the original, made image derivatives by extraction. */
  attachments?: Array<{ url: string; bytes: Buffer; contentType: string }>;
};

const SOURCE = `id, owner_id, name, metadata, origin, origin_detail, extension, content_type, size_bytes::float8 as size_bytes, extraction_model,
  extraction_status, extraction_message, extraction_engine, pages_total, pages_done, extraction_run, object_path, created_at, updated_at, extracted_at`;

/** A source as the API answers it: its progress together, no storage paths. */
export function sourceView(s: SourceRow) {
  const { object_path: _path, extraction_run: _run, pages_total, pages_done, ...rest } = s;
  return { ...rest, progress: { pages_done, pages_total } };
}

export function sourceStore(calls: AiCalls, storage: InProcessStorage) {
  const { requireOwn } = ownedRows(calls, 'ai.sources', 'sources', () => aiErrors.notFound('Source'));
  const get = async (req: Request, id: string): Promise<SourceRow> => {
    const [row] = await calls.call<SourceRow>(req, `select ${SOURCE} from ai.sources where id = $1`, [id]);
    if (!row) throw aiErrors.notFound('Source');
    return row;
  };
  /** Every stored object of a source (original and derivatives). */
  const objectsOf = async (id: string) =>
    (await calls.asService<{ name: string }>(`select name from storage.objects where bucket_id = $1 and name like $2`, [SOURCE_BUCKET, `${id}/%`])).map((r) => r.name);

  const store = {
    get,
    requireOwn,
    list: (req: Request, status: string | undefined) =>
      calls.call<SourceRow>(req, `select ${SOURCE} from ai.sources where $1::text is null or extraction_status = $1 order by created_at desc, id limit 1000`, [status ?? null]),
    /** Records the source as the caller, stores its bytes, and queues its extraction. */
    create: async (req: Request, s: NewSource): Promise<SourceRow> => {
      const id = randomUUID();
      const path = `${id}/original.${s.extension}`;
      const attachments = (s.attachments ?? []).map((a, i) => ({ ...a, path: `${id}/attachments/${i}.${a.contentType.split('/')[1]?.replace('jpeg', 'jpg').replace(/[^a-z0-9]/g, '') || 'bin'}` }));
      const detail = attachments.length > 0 ? { ...s.origin_detail, images: attachments.map((a) => ({ url: a.url, path: a.path, content_type: a.contentType })) } : s.origin_detail;
      await calls.call(req, 'select ai.check_extraction_model($1)', [s.extraction_model ?? null]);
      await calls.call(req, `insert into ai.sources (id, name, metadata, origin, origin_detail, extension, content_type, size_bytes, object_path, extraction_model)
        values ($1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce($10, 'auto'))`,
        [id, s.name, JSON.stringify(s.metadata), s.origin, JSON.stringify(detail), s.extension, CONTENT_TYPES[s.extension] ?? 'application/octet-stream', s.bytes.length, path, s.extraction_model ?? null]);
      try {
        await calls.asService('select ai.ensure_source_bucket()', []);
        await storage.write(PROJECT_CALLER, SOURCE_BUCKET, path, s.bytes, CONTENT_TYPES[s.extension] ?? 'application/octet-stream', true);
        for (const a of attachments) await storage.write(PROJECT_CALLER, SOURCE_BUCKET, a.path, a.bytes, a.contentType, true);
      } catch (err) {
        await calls.asService('delete from ai.sources where id = $1', [id]);
        throw err;
      }
      await calls.call(req, 'select ai.queue_extraction($1, null)', [id]);
      return get(req, id);
    },
    update: async (req: Request, id: string, change: { name?: string | undefined; metadata?: Record<string, unknown> | undefined }) => {
      await get(req, id);
      await requireOwn(req, id);
      const [row] = await calls.call<SourceRow>(req, `update ai.sources set name = coalesce($2, name), metadata = coalesce($3::jsonb, metadata) where id = $1 returning ${SOURCE}`,
        [id, change.name ?? null, change.metadata === undefined ? null : JSON.stringify(change.metadata)]);
      return row!;
    },
    reextract: async (req: Request, id: string, model: string | undefined) => {
      await get(req, id);
      await requireOwn(req, id);
      await calls.call(req, 'select ai.queue_extraction($1, $2)', [id, model ?? null]);
      return get(req, id);
    },
    cancel: async (req: Request, id: string) => {
      await get(req, id);
      await requireOwn(req, id);
      const [row] = await calls.call<SourceRow>(req, `select ${SOURCE} from ai.cancel_source($1)`, [id]);
      return row!;
    },
    /** The row (as the caller), then every stored byte of it. */
    remove: async (req: Request, id: string) => {
      await get(req, id);
      await requireOwn(req, id);
      await calls.call(req, 'delete from ai.sources where id = $1', [id]);
      await storage.remove(PROJECT_CALLER, SOURCE_BUCKET, await objectsOf(id));
    },
    original: async (req: Request, id: string, limit: number) => {
      const s = await get(req, id);
      try {
        return { source: s, file: await storage.read(PROJECT_CALLER, SOURCE_BUCKET, s.object_path, limit) };
      } catch {
        throw aiErrors.notFound('Stored file');
      }
    },
    derivatives: (req: Request, id: string) =>
      calls.call<{ kind: string; idx: number; page: number | null; content_type: string; size_bytes: number }>(req,
        'select kind, idx, page, content_type, size_bytes::float8 as size_bytes from ai.source_derivatives where source_id = $1 order by kind, idx', [id]),
    derivative: async (req: Request, id: string, kind: string, idx: number, limit: number) => {
      await get(req, id);
      const [d] = await calls.call<{ object_path: string; content_type: string }>(req, 'select object_path, content_type from ai.source_derivatives where source_id = $1 and kind = $2 and idx = $3', [id, kind, idx]);
      if (!d) throw aiErrors.notFound(kind === 'page_text' ? 'Page' : 'Derivative');
      try {
        return { contentType: d.content_type, file: await storage.read(PROJECT_CALLER, SOURCE_BUCKET, d.object_path, limit) };
      } catch {
        throw aiErrors.notFound('Stored file');
      }
    },
  };
  return {
    ...store,
    /** One page's text blocks with their boxes, and the page's size they are measured in (PDF points), from the elements derivative. */
    pageLayout: async (req: Request, id: string, page: number) => {
      let layout: { elements?: Array<{ page: number; type: string; text: string; bbox?: number[] }>; page_sizes?: Array<[number, number]> };
      try {
        layout = JSON.parse((await store.derivative(req, id, 'elements', 0, 50 * 1024 * 1024)).file.bytes.toString('utf8')) as typeof layout;
      } catch {
        return { blocks: [], size: null }; // extracted before elements were kept, or too large to read here
      }
      const size = layout.page_sizes?.[page - 1];
      return {
        blocks: (layout.elements ?? []).filter((e) => e.page === page).map((e) => ({ type: e.type, text: e.text, bbox: e.bbox ?? null })),
        size: size ? { width: size[0], height: size[1] } : null,
      };
    },
  };
}

export type SourceStore = ReturnType<typeof sourceStore>;
