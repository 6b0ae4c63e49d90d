// PUT /object/upload/sign/{bucket}/{path}?token=: the one upload a token allows,
// recorded as its signer (their role and sub, so owner and policies are
// theirs); the token is spent in the same transaction as the write.
import { route } from '../../../errors.ts';
import type { Caller } from '../../calls.ts';
import type { StorageRoute } from '../../context.ts';
import { objectName } from '../../request.ts';

export const signedUpload: StorageRoute = (r, s) => {
  r.put('/object/upload/sign/:bucket/*path', route(async (req, res) => {
    const bucket = String(req.params.bucket);
    const name = objectName(req);
    const claims = await s.signed.verify('upload', req.query.token, bucket, name);
    const role = claims.signer_role ?? 'anon';
    const signer: Caller = { role, claims: { role, ...(typeof claims.owner === 'string' ? { sub: claims.owner } : {}) } };
    const result = await s.upload(req, bucket, name, { upsert: claims.upsert === true, recordAs: signer, spend: { jti: claims.jti!, exp: claims.exp! } });
    res.json({ Id: result.id, Key: result.key });
  }));
};
