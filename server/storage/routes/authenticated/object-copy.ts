// POST /object/copy: the row written and the bytes copied in one transaction, then it commits.
import { asRole } from '../../../../db/as-role.ts';
import { route } from '../../../errors.ts';
import { newVersion } from '../../backend.ts';
import { storageError } from '../../calls.ts';
import type { StorageRoute } from '../../context.ts';
import { moveBody } from '../../request.ts';

export const objectCopy: StorageRoute = (r, s) => {
  r.post('/object/copy', s.json, route(async (req, res) => {
    const m = moveBody(req);
    const version = newVersion();
    const upsert = String(req.headers['x-upsert'] ?? '') === 'true';
    let copied: { object_id: string; replaced_version: string | null };
    try {
      copied = await asRole(s.deps.pool, s.caller(req), async (c) => {
        const { rows } = await c.query<{ object_id: string; source_version: string; replaced_version: string | null }>('select * from storage.copy_object($1, $2, $3, $4, $5, $6)', [m.bucket, m.source, m.destBucket, m.dest, version, upsert]);
        await s.backend.copy(rows[0]!.source_version, version);
        return rows[0]!;
      });
    } catch (err) {
      await s.backend.remove([version]);
      throw storageError(err, req.auth!.role);
    }
    if (copied.replaced_version) await s.backend.remove([copied.replaced_version]);
    res.json({ Id: copied.object_id, Key: `${m.destBucket}/${m.dest}` });
  }));
};
