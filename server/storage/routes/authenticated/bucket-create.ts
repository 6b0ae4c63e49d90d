// POST /bucket: storage.create_bucket as the caller; the bucket trigger checks its settings.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { storageErrors } from '../../errors.ts';
import { parseSize, stringList } from '../../request.ts';

export const bucketCreate: StorageRoute = (r, s) => {
  r.post('/bucket', s.json, route(async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (typeof b.id !== 'string' && typeof b.name !== 'string') throw storageErrors.missingProperty('id');
    const rows = await s.call<{ id: string }>(req, 'select (storage.create_bucket($1, $2, $3, $4, $5, $6)).id', [
      b.id ?? b.name, b.name ?? b.id, b.public === true, parseSize(b.file_size_limit), stringList(b.allowed_mime_types), b.inline_active_content === true,
    ]);
    res.json({ name: rows[0]!.id });
  }));
};
