// GET /object/info/{authenticated,public}/{bucket}/{path}: an object's description (supabase-js info()).
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import type { ObjectMeta } from '../../object-meta.ts';
import { objectName } from '../../request.ts';

export const objectInfo: StorageRoute = (r, s) => {
  const info = route(async (req, res) => {
    const obj = await s.findObject(req, String(req.params.bucket), objectName(req));
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    res.json({
      id: obj.id, name: obj.name, version: obj.version, bucket_id: obj.bucket_id, size: meta.size ?? null, content_type: meta.mimetype ?? null,
      cache_control: meta.cacheControl ?? null, etag: meta.eTag ?? null, metadata: obj.user_metadata ?? {}, last_modified: meta.lastModified ?? obj.updated_at,
      created_at: obj.created_at,
    });
  });
  r.get('/object/info/authenticated/:bucket/*path', info);
  r.get('/object/info/public/:bucket/*path', info);
  r.get('/object/info/:bucket/*path', info);
};
