// POST /object/{bucket}/{path} (409 Duplicate unless x-upsert) and PUT (overwrite):
// raw bytes or a multipart form, recorded as the caller.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { objectName } from '../../request.ts';

export const objectUpload: StorageRoute = (r, s) => {
  const upload = (upsertAlways: boolean) =>
    route(async (req, res) => {
      const upsert = upsertAlways || String(req.headers['x-upsert'] ?? '') === 'true';
      const result = await s.upload(req, String(req.params.bucket), objectName(req), { upsert, recordAs: s.caller(req) });
      res.json({ Id: result.id, Key: result.key });
    });
  r.post('/object/:bucket/*path', upload(false));
  r.put('/object/:bucket/*path', upload(true));
};
