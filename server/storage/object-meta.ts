// An object's `metadata` column as Supabase Storage writes it, and the one
// rule for the Cache-Control a client asks for (plain, multipart and
// resumable uploads alike).

export type ObjectMeta = { size?: number; mimetype?: string; cacheControl?: string; eTag?: string; lastModified?: string };

/** "3600", "max-age=3600" or nothing (an hour), as `max-age=N`. */
export function cacheControlOf(sent: string | undefined): string {
  const value = sent ?? '';
  return `max-age=${/max-age=(\d+)/.exec(value)?.[1] ?? (/^\d+$/.test(value) ? value : '3600')}`;
}
