// POST /object/upload/sign/{bucket}/{path}: a signed upload URL, minted only
// for a caller who may write the name now (the write is tried and undone);
// the token records them as the signer and is spent by its one upload.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { encodePath, expiresIn, objectName } from '../../request.ts';

export const uploadSign: StorageRoute = (r, s) => {
  r.post('/object/upload/sign/:bucket/*path', s.json, route(async (req, res) => {
    const bucket = String(req.params.bucket);
    const name = objectName(req);
    const upsert = String(req.headers['x-upsert'] ?? '') === 'true';
    await s.call(req, 'select storage.can_upload($1, $2, $3)', [bucket, name, upsert]);
    const token = await s.signed.sign('upload', { url: `${bucket}/${name}`, upsert, owner: req.auth!.claims.sub ?? null, signer_role: req.auth!.role }, expiresIn(req.body, 7200));
    res.json({ url: `/object/upload/sign/${encodePath(bucket)}/${encodePath(name)}?token=${token}`, token });
  }));
};
