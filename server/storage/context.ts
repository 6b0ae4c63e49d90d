// What every storage route shares: the SQL calls as the caller or the service
// role, the object lookups, the upload path (bytes first, then the row), the
// download response, image rendering and signed-URL tokens. Routes (one per
// file under routes/) parse the request, make one domain call here, and shape
// the answer.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { jsonBody } from '../json-body.ts';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Locker } from '@tus/utils';
import { SERVICE, storageCalls, type CallAs, type Caller } from './calls.ts';
import { newVersion, type Backend } from './backend.ts';
import { storageErrors } from './errors.ts';
import { servedType, type ObjectMeta } from './object-meta.ts';
import { imageRenderer, type ImageLimits, type Transform } from './render.ts';
import { fileOf, objectName, parseRange, type IncomingFile } from './request.ts';
import type { ResumableStore } from './resumable.ts';
import { signedUrls, type SignedUrls } from './signed-url.ts';
import { sniff } from './sniff.ts';

export type StorageDeps = {
  pool: pg.Pool;
  backend: Backend;
  jwtSecret: string;
  /** Per-request ceiling for plain uploads, in bytes. */
  uploadLimit: number;
  resumable: { store: ResumableStore; locker: Locker; maxSize: number; expirySeconds: number };
  images: ImageLimits;
  trustProxy: boolean;
  log: Logger;
};

export type ObjectRow = {
  id: string; name: string; bucket_id: string; version: string; metadata: Record<string, unknown> | null; user_metadata: unknown;
  created_at: Date; updated_at: Date; last_accessed_at: Date; inline_active_content: boolean;
};
export type BucketRules = { id: string; public: boolean; file_size_limit: string | null; allowed_mime_types: string[] | null; inline_active_content: boolean; type_allowed: boolean };

const OBJECT_SELECT = `select o.id, o.name, o.bucket_id, o.version, o.metadata, o.user_metadata, o.created_at, o.updated_at, o.last_accessed_at,
  coalesce((select r.inline_active_content from storage.bucket_rules(o.bucket_id) r), false) as inline_active_content
  from storage.objects o where o.bucket_id = $1 and o.name = $2`;

export type StorageContext = ReturnType<typeof storageContext>;

export function storageContext(deps: StorageDeps) {
  const { pool, backend, uploadLimit, images } = deps;
  const callAs: CallAs = storageCalls(pool);
  const caller = (req: Request): Caller => ({ role: req.auth!.role, claims: req.auth!.claims, method: req.method, path: req.path });
  /** One SQL call as the request's caller: their policies decide. */
  const call = <R>(req: Request, sql: string, values: unknown[]) => callAs<R>(caller(req), sql, values);
  /** One SQL call as the service role: public reads, signed URLs (their token already decided), the control plane. */
  const callAsService = <R>(sql: string, values: unknown[]) => callAs<R>(SERVICE, sql, values);

  /** An object as the caller may see it (or as the service role); 404 otherwise. */
  const findObject = async (req: Request, bucket: string, name: string, asService = false): Promise<ObjectRow> => {
    const rows = asService ? await callAsService<ObjectRow>(OBJECT_SELECT, [bucket, name]) : await call<ObjectRow>(req, OBJECT_SELECT, [bucket, name]);
    if (!rows[0]) throw storageErrors.objectNotFound();
    return rows[0];
  };

  /** An object of a public bucket, for anyone; 400 for a bucket that is not public, as Supabase answers. */
  const publicObject = async (req: Request): Promise<ObjectRow> => {
    const bucket = String(req.params.bucket);
    const [rules] = await callAsService<BucketRules>('select * from storage.bucket_rules($1)', [bucket]);
    if (!rules?.public) throw storageErrors.bucketNotPublic();
    return findObject(req, bucket, objectName(req), true);
  };

  /**
   * Stores a file under a new byte key, within the upload ceiling and the
   * bucket's limit, then records it with storage.put_object as `recordAs`
   * (storage.put_signed_object when a signed upload token is spent with it).
   * Bytes are written before their row and removed if the row is refused;
   * replaced bytes go after the row commits. `declared` is the length the
   * sender announced, checked before any byte is read; `drain` discards what
   * is left of the sender's stream after a refusal.
   */
  const store = async (file: IncomingFile, declared: number | undefined, drain: () => void, bucket: string, name: string,
    opts: { upsert: boolean; recordAs: Caller; spend?: { jti: string; exp: number } }) => {
    const mimetype = file.contentType || 'application/octet-stream';
    // The rules first, so nothing is stored for a write they refuse.
    const [rules] = await callAsService<BucketRules>('select r.*, storage.mime_allowed(r.allowed_mime_types, $2) as type_allowed from storage.bucket_rules($1) r', [bucket, mimetype]);
    if (!rules || !rules.type_allowed) {
      drain();
      throw rules ? storageErrors.mimeType(mimetype) : storageErrors.bucketNotFound();
    }
    const limit = Math.min(uploadLimit, rules.file_size_limit === null ? Infinity : Number(rules.file_size_limit));
    if (declared !== undefined && Number.isFinite(declared) && declared > limit) {
      drain();
      throw storageErrors.tooLarge();
    }
    const version = newVersion();
    const sniffer = sniff(file.stream);
    let written;
    try {
      written = await backend.write(version, sniffer.stream, limit);
    } catch (err) {
      drain();
      throw err;
    }
    let recorded;
    try {
      const metadata = {
        eTag: written.etag, size: written.size, mimetype, cacheControl: file.cacheControl, lastModified: new Date().toISOString(),
        contentLength: written.size, httpStatusCode: 200,
      };
      const args = [bucket, name, version, JSON.stringify(metadata), opts.upsert, file.userMetadata ?? null, sniffer.detected() ?? null];
      [recorded] = await callAs<{ object_id: string; replaced_version: string | null }>(opts.recordAs, opts.spend
        ? 'select * from storage.put_signed_object($8, to_timestamp($9), $1, $2, $3, $4, $5, $6, $7)'
        : 'select * from storage.put_object($1, $2, $3, $4, $5, $6, $7)', opts.spend ? [...args, opts.spend.jti, opts.spend.exp] : args);
    } catch (err) {
      await backend.remove([version]);
      throw err;
    }
    if (recorded!.replaced_version) await backend.remove([recorded!.replaced_version]);
    return { id: recorded!.object_id, key: `${bucket}/${name}` };
  };

  /** The request's file (raw body, or the file part of a multipart form), stored as `store` does. */
  const upload = async (req: Request, bucket: string, name: string, opts: { upsert: boolean; recordAs: Caller; spend?: { jti: string; exp: number } }) => {
    const file = await fileOf(req);
    const declared = file.stream === req ? Number(req.headers['content-length']) : undefined;
    return store(file, declared, () => void req.resume(), bucket, name, opts);
  };

  /** An object as a given caller may see it; 404 otherwise. */
  const findObjectAs = async (caller: Caller, bucket: string, name: string): Promise<ObjectRow> => {
    const [row] = await callAs<ObjectRow>(caller, OBJECT_SELECT, [bucket, name]);
    if (!row) throw storageErrors.objectNotFound();
    return row;
  };

  /**
   * An object's bytes with its validators: ETag/304, Range/206, nosniff and a
   * sandbox CSP always, inline only for types a browser shows without running
   * anything (or when the bucket opted in to active content).
   */
  const sendObject = async (req: Request, res: Response, obj: ObjectRow) => {
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    const size = Number(meta.size ?? 0);
    const etag = meta.eTag ?? `"${obj.version}"`;
    const type = servedType(meta.mimetype);
    res.setHeader('Content-Type', type.header);
    res.setHeader('Cache-Control', meta.cacheControl ?? 'max-age=3600');
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', new Date(obj.updated_at).toUTCString());
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', 'sandbox');
    const fileName = obj.name.split('/').pop() ?? 'download';
    const download = typeof req.query.download === 'string' ? req.query.download || fileName : undefined;
    if (download !== undefined || (!type.inlineSafe && !obj.inline_active_content)) {
      res.setHeader('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(download ?? fileName)}`);
    }
    const match = req.headers['if-none-match'];
    if (match && match.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
      res.status(304).end();
      return;
    }
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${size}`);
      throw storageErrors.range();
    }
    if (range) {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
      res.setHeader('Content-Length', range.end - range.start + 1);
    } else res.setHeader('Content-Length', size);
    if (req.method === 'HEAD') return void res.end();
    const stream = backend.read(obj.version, range ?? undefined);
    stream.on('error', (err) => res.destroy(err));
    res.on('close', () => stream.destroy());
    stream.pipe(res);
  };

  const renderer = imageRenderer(backend, images);
  /** An object rendered with a transform (cached by byte version and options). */
  const renderObject = (req: Request, res: Response, obj: ObjectRow, t: Transform) => {
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    return renderer(req, res, { version: obj.version, size: Number(meta.size ?? 0), cacheControl: meta.cacheControl ?? 'max-age=3600', updatedAt: new Date(obj.updated_at) }, t);
  };

  const signed: SignedUrls = signedUrls(deps.jwtSecret);
  const json: RequestHandler = jsonBody({ limit: '1mb' });

  return { deps, backend, images, json, callAs, caller, call, callAsService, findObject, findObjectAs, publicObject, store, upload, sendObject, renderObject, signed };
}

/** One route (or a few for one resource and access mode) of the storage API. */
export type StorageRoute = (router: express.Router, s: StorageContext) => void;

/**
 * A bucket as Supabase Storage answers it (its fields, `type` STANDARD: the
 * only kind here); `inline_active_content`, ours, only on a bucket that set it.
 */
export const bucketJson = (b: Record<string, unknown>) => ({
  id: b.id, name: b.name, owner: b.owner_id ?? b.owner ?? '', public: b.public, type: 'STANDARD', file_size_limit: b.file_size_limit === null ? null : Number(b.file_size_limit),
  allowed_mime_types: b.allowed_mime_types, created_at: b.created_at, updated_at: b.updated_at, ...(b.inline_active_content === true ? { inline_active_content: true } : {}),
});
