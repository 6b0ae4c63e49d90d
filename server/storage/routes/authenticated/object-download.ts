// GET|HEAD /object/authenticated/{bucket}/{path} and /object/{bucket}/{path}
// (supabase-js's download() and exists()): an object the caller may read.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { objectName } from '../../request.ts';

export const objectDownload: StorageRoute = (r, s) => {
  const read = route(async (req, res) => {
    await s.sendObject(req, res, await s.findObject(req, String(req.params.bucket), objectName(req)));
  });
  r.get('/object/authenticated/:bucket/*path', read);
  r.head('/object/authenticated/:bucket/*path', read);
  r.get('/object/:bucket/*path', read);
  r.head('/object/:bucket/*path', read);
};
