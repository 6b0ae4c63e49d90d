// DELETE /bucket/{id}: only an empty bucket (409 not_empty otherwise), in SQL.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';

export const bucketDelete: StorageRoute = (r, s) => {
  r.delete('/bucket/:id', route(async (req, res) => {
    await s.call(req, 'select storage.delete_bucket($1)', [req.params.id]);
    res.json({ message: 'Successfully deleted' });
  }));
};
