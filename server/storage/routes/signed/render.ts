// GET|HEAD /render/image/sign/{bucket}/{path}?token=: a render token's image,
// with the options in the token; the URL may repeat them, never change them.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { storageErrors } from '../../errors.ts';
import { parseTransform } from '../../render.ts';
import { objectName } from '../../request.ts';

const TRANSFORM_KEYS = ['width', 'height', 'resize', 'quality', 'format'] as const;

export const signedRender: StorageRoute = (r, s) => {
  const handler = route(async (req, res) => {
    const bucket = String(req.params.bucket);
    const name = objectName(req);
    const claims = await s.signed.verify('render', req.query.token, bucket, name);
    const t = parseTransform((claims.transformations ?? {}) as Record<string, unknown>, s.images);
    const asked = TRANSFORM_KEYS.filter((k) => k in req.query);
    if (asked.length > 0) {
      const repeated = parseTransform({ ...t, ...Object.fromEntries(asked.map((k) => [k, req.query[k]])) }, s.images);
      if (JSON.stringify(repeated) !== JSON.stringify(t)) throw storageErrors.transformNotSigned();
    }
    await s.renderObject(req, res, await s.findObject(req, bucket, name, true), t);
  });
  r.get('/render/image/sign/:bucket/*path', handler);
  r.head('/render/image/sign/:bucket/*path', handler);
};
