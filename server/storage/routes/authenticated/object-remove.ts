// DELETE /object/{bucket} (many, by `prefixes`) and DELETE /object/{bucket}/{path}:
// the rows go in SQL as the caller, then their bytes.
import { route } from '../../../errors.ts';
import type { ObjectRow, StorageRoute } from '../../context.ts';
import { storageErrors } from '../../errors.ts';
import { objectName, stringsIn } from '../../request.ts';

export const objectRemove: StorageRoute = (r, s) => {
  r.delete('/object/:bucket', s.json, route(async (req, res) => {
    const rows = await s.call<ObjectRow>(req, 'select * from storage.remove_objects($1, $2)', [req.params.bucket, stringsIn(req.body, 'prefixes')]);
    await s.backend.remove(rows.map((row) => row.version));
    res.json(rows.map(({ version: _v, ...row }) => row));
  }));
  r.delete('/object/:bucket/*path', route(async (req, res) => {
    const rows = await s.call<ObjectRow>(req, 'select * from storage.remove_objects($1, array[$2])', [req.params.bucket, objectName(req)]);
    if (!rows[0]) throw storageErrors.objectNotFound();
    await s.backend.remove([rows[0].version]);
    res.json({ message: 'Successfully deleted' });
  }));
};
