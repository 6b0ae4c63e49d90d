// GET|HEAD /render/image/authenticated/{bucket}/{path}: an image the caller may read, transformed.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { parseTransform } from '../../render.ts';
import { objectName } from '../../request.ts';

export const renderAuthenticated: StorageRoute = (r, s) => {
  const handler = route(async (req, res) => {
    const t = parseTransform(req.query as Record<string, unknown>, s.images);
    await s.renderObject(req, res, await s.findObject(req, String(req.params.bucket), objectName(req)), t);
  });
  r.get('/render/image/authenticated/:bucket/*path', handler);
  r.head('/render/image/authenticated/:bucket/*path', handler);
};
