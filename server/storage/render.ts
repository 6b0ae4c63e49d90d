// Image transformation with sharp: /render/image/{public,authenticated,sign}/
// {bucket}/{path}, with Supabase's options (width, height, resize, quality,
// format). Access is decided exactly as for the object itself. Rendered
// variants are cached in memory by byte version and options: a version never
// changes, so a cached variant is never stale (an overwrite is a new version).
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import sharp, { type Metadata } from 'sharp';
import { storageErrors } from './errors.ts';
import type { Backend } from './backend.ts';

export type ImageLimits = {
  /** Largest source image decoded, in pixels (width x height). */
  maxInputPixels: number;
  /** Largest width or height asked for. */
  maxDimension: number;
  /** Largest rendered image, in bytes. */
  maxOutputBytes: number;
  /** Memory for cached variants, in bytes (0: no cache). */
  cacheBytes: number;
};

export type Transform = { width?: number; height?: number; resize: 'cover' | 'contain' | 'fill'; quality: number; format: 'origin' | 'webp' | 'png' | 'jpeg' };

/** Sources larger than this are not read into memory to be transformed. */
const MAX_SOURCE_BYTES = 64 * 1024 * 1024;
/** Supabase Storage's X-Transformations: what was applied, in imgproxy's words (cover is fill, contain fit, fill force). */
export function transformationsHeader(t: Transform): string {
  const resizing = { cover: 'fill', contain: 'fit', fill: 'force' }[t.resize];
  return [
    ...(t.height ? [`height:${t.height}`] : []), ...(t.width ? [`width:${t.width}`] : []), `resizing_type:${resizing}`, `quality:${t.quality}`,
    ...(t.format !== 'origin' ? [`format:${t.format}`] : []),
  ].join(',');
}

/** Raster formats a transform reads; others (SVG, PDF, ...) are refused rather than rasterised. */
const INPUT_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'tiff', 'heif']);
const TYPES: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };

const bad = storageErrors.transform;

/**
 * Transform options from a query string or a signed token's `transformations`
 * claim: numbers may arrive as strings. Unknown values are a 400, not ignored.
 */
export function parseTransform(input: Record<string, unknown>, limits: ImageLimits): Transform {
  const dimension = (key: 'width' | 'height'): number | undefined => {
    const raw = input[key];
    if (raw === undefined || raw === null || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw bad(`${key} must be a positive whole number of pixels`);
    if (n > limits.maxDimension) throw bad(`${key} must be at most ${limits.maxDimension} pixels`);
    return n;
  };
  const resize = input.resize === undefined || input.resize === '' ? 'cover' : input.resize;
  if (resize !== 'cover' && resize !== 'contain' && resize !== 'fill') throw bad('resize must be cover, contain or fill');
  const q = input.quality === undefined || input.quality === '' ? 80 : Number(input.quality);
  if (!Number.isInteger(q) || q < 0 || q > 100) throw bad('quality must be a whole number from 0 to 100');
  const format = input.format === undefined || input.format === '' ? 'origin' : input.format;
  if (format !== 'origin' && format !== 'webp' && format !== 'png' && format !== 'jpeg') throw bad('format must be origin, webp, png or jpeg');
  const width = dimension('width');
  const height = dimension('height');
  return { ...(width ? { width } : {}), ...(height ? { height } : {}), resize, quality: q, format };
}

/** Rendered variants by key, least recently used first out, bounded by total bytes. */
class VariantCache {
  private readonly entries = new Map<string, { body: Buffer; type: string }>();
  private bytes = 0;
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  get(key: string) {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }
  set(key: string, value: { body: Buffer; type: string }): void {
    if (value.body.length > this.limit / 4) return; // one variant never crowds out the rest
    // Two requests that missed together both store the variant: count it once.
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.body.length;
    }
    this.entries.set(key, value);
    this.bytes += value.body.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.limit) break;
      this.entries.delete(k);
      this.bytes -= v.body.length;
    }
  }
}

export type RenderSource = { version: string; size: number; cacheControl: string; updatedAt: Date };

export function imageRenderer(backend: Backend, limits: ImageLimits) {
  const cache = limits.cacheBytes > 0 ? new VariantCache(limits.cacheBytes) : undefined;

  const render = async (source: RenderSource, t: Transform): Promise<{ body: Buffer; type: string }> => {
    if (source.size > MAX_SOURCE_BYTES) throw storageErrors.sourceTooLarge(MAX_SOURCE_BYTES / 1024 / 1024);
    // A local file is handed to sharp by path (libvips reads it directly, as fast
    // as from memory); other backends' bytes are read into memory first.
    let input: Buffer | string;
    if (backend.localFile) input = backend.localFile(source.version);
    else {
      const chunks: Buffer[] = [];
      for await (const chunk of backend.read(source.version)) chunks.push(chunk as Buffer);
      input = Buffer.concat(chunks);
    }
    let meta: Metadata;
    try {
      meta = await sharp(input).metadata();
    } catch {
      throw storageErrors.notAnImage();
    }
    if (!meta.format || !INPUT_FORMATS.has(meta.format)) throw storageErrors.formatNotTransformed(meta.format ?? 'unknown');
    if ((meta.width ?? 0) * (meta.height ?? 0) > limits.maxInputPixels) {
      throw storageErrors.tooManyPixels(limits.maxInputPixels);
    }
    // `origin` keeps the source's format where browsers show it; TIFF becomes PNG, HEIF/AVIF WebP.
    const outFormat = t.format !== 'origin' ? t.format : meta.format === 'jpeg' || meta.format === 'png' || meta.format === 'webp' || meta.format === 'gif' ? meta.format : meta.format === 'heif' ? 'webp' : 'png';
    let img = sharp(input, { limitInputPixels: limits.maxInputPixels, animated: false }).rotate();
    if (t.width || t.height) {
      img = img.resize({ ...(t.width ? { width: t.width } : {}), ...(t.height ? { height: t.height } : {}), fit: t.resize === 'contain' ? 'inside' : t.resize });
    }
    // Quality 0 is as low as each encoder goes.
    const quality = Math.max(1, t.quality);
    if (outFormat === 'jpeg') img = img.jpeg({ quality, mozjpeg: false });
    else if (outFormat === 'webp') img = img.webp({ quality });
    else if (outFormat === 'gif') img = img.gif();
    else img = img.png();
    let body: Buffer;
    try {
      body = await img.toBuffer();
    } catch (err) {
      throw storageErrors.transformFailed((err as Error).message);
    }
    if (body.length > limits.maxOutputBytes) {
      throw storageErrors.renderTooLarge(limits.maxOutputBytes);
    }
    return { body, type: TYPES[outFormat]! };
  };

  /** Answers a render request for a source the caller may read. */
  return async (req: Request, res: Response, source: RenderSource, t: Transform): Promise<void> => {
    const key = `${source.version}|${t.width ?? ''}|${t.height ?? ''}|${t.resize}|${t.quality}|${t.format}`;
    const etag = `"${createHash('md5').update(key).digest('hex')}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', source.cacheControl);
    res.setHeader('Last-Modified', source.updatedAt.toUTCString());
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Transformations', transformationsHeader(t));
    const match = req.headers['if-none-match'];
    if (match && match.split(',').some((v) => v.trim() === etag || v.trim() === '*')) return void res.status(304).end();
    let variant = cache?.get(key);
    res.setHeader('X-Render-Cache', variant ? 'hit' : 'miss');
    if (!variant) {
      variant = await render(source, t);
      cache?.set(key, variant);
    }
    res.setHeader('Content-Type', variant.type);
    res.setHeader('Content-Length', variant.body.length);
    res.end(req.method === 'HEAD' ? undefined : variant.body);
  };
}
