// GET /bucket: the buckets the caller's policies let them see.
import { route } from '../../../errors.ts';
import { bucketJson, type StorageRoute } from '../../context.ts';

export const bucketList: StorageRoute = (r, s) => {
  r.get('/bucket', route(async (req, res) => {
    const rows = await s.call<Record<string, unknown>>(req, 'select * from storage.buckets order by name', []);
    res.json(rows.map(bucketJson));
  }));
};
