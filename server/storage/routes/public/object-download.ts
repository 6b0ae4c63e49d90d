// GET|HEAD /object/public/{bucket}/{path}: an object of a public bucket, for anyone (no key needed).
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';

export const publicDownload: StorageRoute = (r, s) => {
  const read = route(async (req, res) => {
    await s.sendObject(req, res, await s.publicObject(req));
  });
  r.get('/object/public/:bucket/*path', read);
  r.head('/object/public/:bucket/*path', read);
};
