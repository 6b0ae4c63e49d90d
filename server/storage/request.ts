// What a storage request carries, parsed: the object name of a `*path`
// route, JSON body fields, sizes, ranges, and the file of an upload (raw body
// or the file part of a multipart form). Malformed input is a 400 here.
import Busboy from 'busboy';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { storageErrors } from './errors.ts';
import { cacheControlOf } from './object-meta.ts';

export const SIGNED_URL_MAX = 604_800;

/** The object name of a route ending in `*path`. */
export function objectName(req: Request): string {
  const p = req.params.path as unknown;
  return Array.isArray(p) ? p.join('/') : String(p ?? '');
}

export function encodePath(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}

/** `expiresIn` of a signing request, in seconds. */
export function expiresIn(body: unknown, fallback: number): number {
  const raw = (body as { expiresIn?: unknown } | undefined)?.expiresIn;
  if (raw === undefined || raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw storageErrors.expiresIn();
  if (n > SIGNED_URL_MAX) throw storageErrors.expiresInTooLong(SIGNED_URL_MAX);
  return n;
}

export function intOr(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n)) throw storageErrors.wholeNumbers();
  return n;
}

/** A body field that must be an array of strings. */
export function stringsIn(body: unknown, field: string): string[] {
  const v = (body as Record<string, unknown> | undefined)?.[field];
  if (!Array.isArray(v) || v.some((p) => typeof p !== 'string')) throw storageErrors.notStringArray(field);
  return v as string[];
}

/** file_size_limit as supabase-js sends it: bytes, or a string like '5MB' in decimal units (20mb = 20,000,000 bytes), as Supabase Storage reads it. */
export function parseSize(v: unknown): number | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  const m = typeof v === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(v) : null;
  if (!m) throw storageErrors.sizeLimit();
  const unit = { b: 1, kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.round(Number(m[1]) * unit);
}

/** A list of strings or null; what each string may be is the bucket trigger's rule. */
export function stringList(v: unknown): string[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw storageErrors.mimeTypes();
  return v as string[];
}

/** The body of copy and move. */
export function moveBody(req: Request): { bucket: string; source: string; destBucket: string; dest: string } {
  const b = (req.body ?? {}) as Record<string, unknown>;
  for (const k of ['bucketId', 'sourceKey', 'destinationKey']) {
    if (typeof b[k] !== 'string' || !b[k]) throw storageErrors.missingProperty(k);
  }
  return { bucket: b.bucketId as string, source: b.sourceKey as string, destBucket: typeof b.destinationBucket === 'string' && b.destinationBucket ? b.destinationBucket : (b.bucketId as string), dest: b.destinationKey as string };
}

/** One byte range of a `Range` header; null for none (or several: the whole object is sent). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return 'unsatisfiable';
  return { start, end };
}

export type IncomingFile = { stream: Readable; contentType: string; cacheControl: string; userMetadata: string | undefined };

/** The file in a request: the raw body, or the file part of a multipart form (supabase-js sends Blobs that way). */
export function fileOf(req: Request): Promise<IncomingFile> {
  const type = String(req.headers['content-type'] ?? '');
  const cacheControl = cacheControlOf(req.headers['cache-control']);
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    const meta = req.headers['x-metadata'];
    return Promise.resolve({
      stream: req,
      contentType: type || 'application/octet-stream',
      cacheControl,
      userMetadata: typeof meta === 'string' ? validJson(Buffer.from(meta, 'base64').toString('utf8')) : undefined,
    });
  }
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      busboy = Busboy({ headers: req.headers, limits: { files: 1, fields: 10, fieldSize: 64 * 1024 } });
    } catch {
      return reject(storageErrors.malformedMultipart());
    }
    const fields: Record<string, string> = {};
    let found = false;
    busboy.on('field', (name, value) => {
      fields[name] = value;
    });
    busboy.on('file', (_name, stream, info) => {
      found = true;
      resolve({
        stream,
        contentType: fields.contentType || info.mimeType || 'application/octet-stream',
        cacheControl: /^\d+$/.test(fields.cacheControl ?? '') ? cacheControlOf(fields.cacheControl) : cacheControl,
        userMetadata: fields.metadata ? validJson(fields.metadata) : undefined,
      });
    });
    busboy.on('error', () => reject(storageErrors.malformedMultipart()));
    busboy.on('close', () => {
      if (!found) reject(storageErrors.noFile());
    });
    req.pipe(busboy);
  });
}

function validJson(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    throw storageErrors.metadataNotJson();
  }
}
