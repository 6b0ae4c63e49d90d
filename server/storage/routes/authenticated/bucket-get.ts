// GET /bucket/{id}: one bucket, if the caller may see it.
import { route } from '../../../errors.ts';
import { bucketJson, type StorageRoute } from '../../context.ts';
import { storageErrors } from '../../errors.ts';

export const bucketGet: StorageRoute = (r, s) => {
  r.get('/bucket/:id', route(async (req, res) => {
    const rows = await s.call<Record<string, unknown>>(req, 'select * from storage.buckets where id = $1', [req.params.id]);
    if (!rows[0]) throw storageErrors.bucketNotFound();
    res.json(bucketJson(rows[0]));
  }));
};
