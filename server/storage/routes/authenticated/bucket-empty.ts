// POST /bucket/{id}/empty: the rows go in SQL (as the caller), then their bytes.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';

export const bucketEmpty: StorageRoute = (r, s) => {
  r.post('/bucket/:id/empty', route(async (req, res) => {
    const rows = await s.call<{ version: string | null }>(req, 'select v as version from storage.empty_bucket($1) v', [req.params.id]);
    await s.backend.remove(rows.flatMap((row) => (row.version ? [row.version] : [])));
    res.json({ message: 'Successfully emptied' });
  }));
};
