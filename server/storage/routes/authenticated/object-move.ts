// POST /object/move: a rename (also across buckets) in SQL; the bytes keep their key.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { moveBody } from '../../request.ts';

export const objectMove: StorageRoute = (r, s) => {
  r.post('/object/move', s.json, route(async (req, res) => {
    const m = moveBody(req);
    await s.call(req, 'select storage.move_object($1, $2, $3, $4)', [m.bucket, m.source, m.destBucket, m.dest]);
    res.json({ message: 'Successfully moved' });
  }));
};
