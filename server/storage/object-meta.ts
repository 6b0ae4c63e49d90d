// An object's `metadata` column as Supabase Storage writes it, and the one
// rule for the Cache-Control a client asks for (plain, multipart and
// resumable uploads alike).

export type ObjectMeta = { size?: number; mimetype?: string; cacheControl?: string; eTag?: string; lastModified?: string };

/** "3600", "max-age=3600" or nothing (an hour), as `max-age=N`. */
export function cacheControlOf(sent: string | undefined): string {
  const value = sent ?? '';
  return `max-age=${/max-age=(\d+)/.exec(value)?.[1] ?? (/^\d+$/.test(value) ? value : '3600')}`;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** One media type with optional parameters (RFC 9110): `image/png`, `text/plain; charset=utf-8`; never a list. */
const MEDIA_TYPE = new RegExp(`^(${TOKEN})/(${TOKEN})(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\r\\n]*"))*$`);

/**
 * Types a browser shows inline without running anything: images other than
 * SVG, audio, video, fonts, PDF, plain text and data formats. Everything else
 * (HTML, XML, XSL, SVG, unknown types) goes out as an attachment unless the
 * bucket opted in to inline active content.
 */
const INLINE_SAFE = /^(image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon|tiff|heic|heif)|audio\/[^/]+|video\/[^/]+|font\/[^/]+|application\/(pdf|json|octet-stream|javascript)|text\/(plain|csv|css|javascript|markdown))$/;

/**
 * The Content-Type an object is served with: its stored type when that is one
 * well-formed media type, else application/octet-stream (as an attachment);
 * and whether a browser may show it inline.
 */
export function servedType(stored: string | undefined): { header: string; inlineSafe: boolean } {
  const m = stored === undefined ? null : MEDIA_TYPE.exec(stored.trim());
  if (!m) return { header: 'application/octet-stream', inlineSafe: false };
  return { header: stored!.trim(), inlineSafe: INLINE_SAFE.test(`${m[1]}/${m[2]}`.toLowerCase()) };
}
