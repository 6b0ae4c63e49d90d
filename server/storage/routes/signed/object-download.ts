// GET|HEAD /object/sign/{bucket}/{path}?token=: the object a download token was minted for.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { objectName } from '../../request.ts';

export const signedDownload: StorageRoute = (r, s) => {
  const read = route(async (req, res) => {
    const bucket = String(req.params.bucket);
    const name = objectName(req);
    await s.signed.verify('object', req.query.token, bucket, name);
    await s.sendObject(req, res, await s.findObject(req, bucket, name, true));
  });
  r.get('/object/sign/:bucket/*path', read);
  r.head('/object/sign/:bucket/*path', read);
};
