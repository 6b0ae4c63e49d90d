// POST /object/sign/{bucket}/{path}, /object/sign/{bucket} and /object/sign:
// signed download (or render) URLs, minted only for a caller who may read the
// object now; the token then stands in for them (signed-url.ts).
import type { Request, Response } from 'express';
import { ApiError, route } from '../../../errors.ts';
import type { StorageContext, StorageRoute } from '../../context.ts';
import { parseTransform } from '../../render.ts';
import { encodePath, expiresIn, objectName, stringsIn } from '../../request.ts';

async function mint(s: StorageContext, req: Request, bucket: string, name: string, seconds: number, transform?: unknown): Promise<string> {
  // A transform is checked now, so a bad one fails at signing rather than at every use.
  const transformations = transform && typeof transform === 'object' ? parseTransform(transform as Record<string, unknown>, s.images) : undefined;
  await s.findObject(req, bucket, name);
  const token = await s.signed.sign(transformations ? 'render' : 'object', { url: `${bucket}/${name}`, ...(transformations ? { transformations } : {}) }, seconds);
  return `/${transformations ? 'render/image' : 'object'}/sign/${encodePath(bucket)}/${encodePath(name)}?token=${token}`;
}

/** Batch signing: each path that cannot be read gets an error instead of a URL. */
async function signMany(s: StorageContext, req: Request, res: Response, targets: Array<{ path: string; bucket: string; name: string }>): Promise<void> {
  const seconds = expiresIn(req.body, 60);
  res.json(await Promise.all(targets.map(async (t) => {
    try {
      return { error: null, path: t.path, signedURL: await mint(s, req, t.bucket, t.name, seconds) };
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return { error: 'Either the object does not exist or you do not have access to it', path: t.path, signedURL: null };
      throw err;
    }
  })));
}

export const objectSign: StorageRoute = (r, s) => {
  // supabase-js's createSignedUrls: paths within the bucket of the URL.
  r.post('/object/sign/:bucket', s.json, route(async (req, res) => {
    await signMany(s, req, res, stringsIn(req.body, 'paths').map((p) => ({ path: p, bucket: String(req.params.bucket), name: p })));
  }));
  // The spec's batch form: each path is <bucket>/<path>.
  r.post('/object/sign', s.json, route(async (req, res) => {
    await signMany(s, req, res, stringsIn(req.body, 'paths').map((p) => ({ path: p, bucket: p.split('/')[0]!, name: p.split('/').slice(1).join('/') })));
  }));
  r.post('/object/sign/:bucket/*path', s.json, route(async (req, res) => {
    const seconds = expiresIn(req.body, 60);
    const transform = (req.body as { transform?: unknown } | undefined)?.transform;
    res.json({ signedURL: await mint(s, req, String(req.params.bucket), objectName(req), seconds, transform) });
  }));
};
