// /api/sources (spec 4.12): documents to extract, uploaded, imported from
// storage (read as the caller, so storage policies apply) or from URLs.
// Extraction runs in a graphile-worker job (job.ts); every answer here is
// immediate, with the source's status and progress. Errors are `{error}`.
import { jsonBody } from '../body.ts';
import Busboy from 'busboy';
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { InProcessStorage } from '../../storage/in-process.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, parse, queryChoice, queryInt } from '../parse.ts';
import { EXTENSIONS, sourceStore, sourceView, type NewSource } from './store.ts';
import { ImportUrlBody, type urlImporter } from './url-import.ts';

const STATUSES = ['pending', 'extracting', 'extracted', 'attention_required', 'failed', 'cancelled'] as const;
const DERIVATIVES = ['markdown', 'text', 'page_text', 'image'];
const Metadata = z.record(z.string(), z.unknown(), { error: 'metadata must be an object' });
export const SourcePatch = z.object({ name: z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty').max(500).optional(), metadata: Metadata.optional() });
export const FromStorageBody = z.object({
  bucket: z.string({ error: 'bucket is required' }).min(1, 'bucket is required'),
  path: z.string({ error: 'path is required' }).min(1, 'path is required'),
  name: z.string().trim().min(1).max(500).optional(),
  metadata: Metadata.optional(),
  extraction_model: z.string().optional(),
});
export const ReextractBody = z.object({ extraction_model: z.string({ error: 'extraction_model must be a string' }).optional() });

type Upload = { filename: string | null; bytes: Buffer | null; fields: Record<string, string> };

/** The multipart body, the file buffered up to the upload ceiling (fields may come before or after it). */
function readUpload(req: express.Request, limit: number): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      busboy = Busboy({ headers: req.headers, limits: { files: 1, fields: 20, fieldSize: 1024 * 1024, fileSize: limit } });
    } catch {
      return reject(aiErrors.validation('The body must be multipart/form-data with a file field'));
    }
    const out: Upload = { filename: null, bytes: null, fields: {} };
    let tooLarge = false;
    busboy.on('field', (name, value) => (out.fields[name] = value));
    busboy.on('file', (name, stream, info) => {
      if (name !== 'file') return void stream.resume();
      const chunks: Buffer[] = [];
      out.filename = info.filename ?? null;
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => (tooLarge = true));
      stream.on('end', () => (out.bytes = Buffer.concat(chunks)));
    });
    busboy.on('error', () => reject(aiErrors.validation('The multipart body is malformed')));
    busboy.on('close', () => (tooLarge ? reject(aiErrors.tooLarge(`The file is larger than the upload limit of ${limit} bytes`)) : resolve(out)));
    req.pipe(busboy);
  });
}

function extensionOf(filename: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase() ?? '';
  if (!(EXTENSIONS as readonly string[]).includes(ext)) throw aiErrors.validation(`Unsupported file type ${ext ? `.${ext}` : '(no extension)'}: use one of ${EXTENSIONS.map((e) => `.${e}`).join(', ')}`);
  return ext;
}

function metadataOf(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw === '') return {};
  try {
    const v = JSON.parse(raw) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // worded below
  }
  throw aiErrors.validation('metadata must be a JSON object (sent as a string)');
}

export const SourceListQuery = z.object({ status: queryChoice('status', STATUSES) });
export const PageTextsQuery = z.object({ page: queryInt('page', 1).optional() });
export const DerivativeQuery = z.object({ index: queryInt('index', 0).optional() });

export function sourceRoutes(opts: { calls: AiCalls; storage: InProcessStorage; uploadLimit: number; urls: ReturnType<typeof urlImporter> }): Router {
  const r = express.Router();
  const sources = sourceStore(opts.calls, opts.storage);
  const json = jsonBody({ limit: '1mb' });
  const created = async (req: express.Request, s: NewSource) => sourceView(await sources.create(req, s));

  r.get('/', route(async (req, res) => {
    const { status } = parse(SourceListQuery, req.query);
    res.json((await sources.list(req, status)).map(sourceView));
  }));

  r.post('/upload', route(async (req, res) => {
    if (!String(req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data')) throw aiErrors.validation('The body must be multipart/form-data with a file field');
    const up = await readUpload(req, opts.uploadLimit);
    if (!up.bytes) throw aiErrors.validation('file is required');
    if (!up.filename) throw aiErrors.validation('The file has no filename');
    const extension = extensionOf(up.filename);
    const metadata = metadataOf(up.fields.metadata);
    const name = up.fields.name?.trim() || up.filename;
    res.status(201).json(await created(req, { name, metadata, origin: 'upload', origin_detail: { filename: up.filename }, extension, bytes: up.bytes, extraction_model: up.fields.extraction_model || undefined }));
  }));

  r.post('/import-from-storage', json, route(async (req, res) => {
    const body = parse(FromStorageBody, req.body ?? {});
    const extension = extensionOf(body.path);
    let file;
    try {
      file = await opts.storage.read(contextOf(req), body.bucket, body.path, opts.uploadLimit + 1);
    } catch {
      throw aiErrors.notFound('Stored file');
    }
    if (file.truncated) throw aiErrors.tooLarge(`The file is larger than the upload limit of ${opts.uploadLimit} bytes`);
    const name = body.name ?? body.path.split('/').pop()!;
    res.status(201).json(await created(req, {
      name, metadata: body.metadata ?? {}, origin: 'storage', origin_detail: { bucket: body.bucket, path: body.path }, extension, bytes: file.bytes, extraction_model: body.extraction_model,
    }));
  }));

  // Our decision for "created sources": {sources, failed}, every page that could not be imported with its reason.
  r.post('/import-url', json, route(async (req, res) => {
    const body = parse(ImportUrlBody, req.body ?? {});
    const metadata = body.metadata ?? {};
    const found = await opts.urls.run(body);
    const made = [];
    for (const page of found.pages) {
      made.push(await created(req, { name: page.name, metadata, origin: 'url', origin_detail: { url: page.url, mode: body.mode }, extension: page.extension, bytes: page.bytes, attachments: page.images }));
    }
    res.status(201).json({ sources: made, failed: found.failed });
  }));

  r.get('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Source');
    const s = await sources.get(req, id);
    res.json({ ...sourceView(s), derivatives: await sources.derivatives(req, id) });
  }));

  // Text by page: ?page=n answers that page; without it, every page.
  r.get('/:id/page-texts', route(async (req, res) => {
    const id = idOf(req.params.id, 'Source');
    const { page } = parse(PageTextsQuery, req.query);
    const s = await sources.get(req, id);
    if (page !== undefined) {
      const d = await sources.derivative(req, id, 'page_text', page - 1, 10 * 1024 * 1024);
      return void res.json({ source_id: id, page, pages_total: s.pages_total, text: d.file.bytes.toString('utf8'), ...(await sources.pageLayout(req, id, page)) });
    }
    const pages = (await sources.derivatives(req, id)).filter((d) => d.kind === 'page_text');
    const texts = [];
    for (const d of pages) texts.push({ page: d.idx + 1, text: (await sources.derivative(req, id, 'page_text', d.idx, 10 * 1024 * 1024)).file.bytes.toString('utf8') });
    res.json({ source_id: id, pages_total: s.pages_total, pages: texts });
  }));

  r.patch('/:id', json, route(async (req, res) => {
    const id = idOf(req.params.id, 'Source');
    const body = parse(SourcePatch, req.body ?? {});
    if (body.name === undefined && body.metadata === undefined) throw aiErrors.validation('No fields to update: send name or metadata');
    res.json(sourceView(await sources.update(req, id, body)));
  }));

  r.post('/:id/reextract', json, route(async (req, res) => {
    const id = idOf(req.params.id, 'Source');
    const body = parse(ReextractBody, req.body ?? {});
    res.json(sourceView(await sources.reextract(req, id, body.extraction_model)));
  }));

  r.post('/:id/cancel', route(async (req, res) => {
    res.json(sourceView(await sources.cancel(req, idOf(req.params.id, 'Source'))));
  }));

  r.get('/:id/download', route(async (req, res) => {
    const { source, file } = await sources.original(req, idOf(req.params.id, 'Source'), 5 * 1024 ** 3);
    const filename = typeof source.origin_detail.filename === 'string' ? source.origin_detail.filename : `${source.name.replace(/[^\w.-]+/g, '_')}.${source.extension}`;
    res.setHeader('content-type', file.contentType);
    res.setHeader('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`);
    res.end(file.bytes);
  }));

  r.get('/:id/derivatives/:type/download', route(async (req, res) => {
    const id = idOf(req.params.id, 'Source');
    const type = String(req.params.type);
    if (!DERIVATIVES.includes(type)) throw aiErrors.validation(`type must be one of ${DERIVATIVES.join(', ')}`);
    const index = parse(DerivativeQuery, req.query).index ?? 0;
    const d = await sources.derivative(req, id, type, index, 1024 ** 3);
    res.setHeader('content-type', d.contentType);
    res.end(d.file.bytes);
  }));

  r.delete('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Source');
    await sources.remove(req, id);
    res.json({ message: 'Source deleted', id });
  }));

  return r;
}
