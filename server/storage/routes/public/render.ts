// GET|HEAD /render/image/public/{bucket}/{path}: an image of a public bucket, transformed.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { parseTransform } from '../../render.ts';

export const publicRender: StorageRoute = (r, s) => {
  const handler = route(async (req, res) => {
    const t = parseTransform(req.query as Record<string, unknown>, s.images);
    await s.renderObject(req, res, await s.publicObject(req), t);
  });
  r.get('/render/image/public/:bucket/*path', handler);
  r.head('/render/image/public/:bucket/*path', handler);
};
