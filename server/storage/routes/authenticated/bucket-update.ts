// PUT /bucket/{id}: the settings sent, and only those, through storage.update_bucket.
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { parseSize, stringList } from '../../request.ts';

export const bucketUpdate: StorageRoute = (r, s) => {
  r.put('/bucket/:id', s.json, route(async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const changes: Record<string, unknown> = {};
    if ('public' in b) changes.public = b.public === true;
    if ('file_size_limit' in b) changes.file_size_limit = parseSize(b.file_size_limit);
    if ('allowed_mime_types' in b) changes.allowed_mime_types = stringList(b.allowed_mime_types);
    if ('inline_active_content' in b) changes.inline_active_content = b.inline_active_content === true;
    await s.call(req, 'select storage.update_bucket($1, $2)', [req.params.id, JSON.stringify(changes)]);
    res.json({ message: 'Successfully updated' });
  }));
};
