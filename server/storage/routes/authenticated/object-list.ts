// POST /object/list/{bucket}: one level of a bucket, folders included, in SQL (storage.list_objects).
// POST /object/list-v2/{bucket}: supabase-js listV2(): {hasNext, nextCursor, folders, objects}, with
// delimiter folders, cursor paging and sortBy name, created_at or updated_at (storage.list_objects_v2).
import { route } from '../../../errors.ts';
import type { StorageRoute } from '../../context.ts';
import { intOr } from '../../request.ts';

export const objectList: StorageRoute = (r, s) => {
  r.post('/object/list/:bucket', s.json, route(async (req, res) => {
    const b = (req.body ?? {}) as { prefix?: unknown; limit?: unknown; offset?: unknown; search?: unknown; sortBy?: { column?: unknown; order?: unknown } };
    const rows = await s.call(req, 'select * from storage.list_objects($1, $2, $3, $4, $5, $6, $7)', [
      req.params.bucket, typeof b.prefix === 'string' ? b.prefix : '', intOr(b.limit, 100), intOr(b.offset, 0), typeof b.search === 'string' ? b.search : '',
      typeof b.sortBy?.column === 'string' ? b.sortBy.column : 'name', typeof b.sortBy?.order === 'string' ? b.sortBy.order : 'asc',
    ]);
    res.json(rows);
  }));
  r.post('/object/list-v2/:bucket', s.json, route(async (req, res) => {
    const b = (req.body ?? {}) as { prefix?: unknown; limit?: unknown; cursor?: unknown; with_delimiter?: unknown; sortBy?: { column?: unknown; order?: unknown } };
    const [row] = await s.call<{ page: unknown }>(req, 'select storage.list_objects_v2($1, $2, $3, $4, $5, $6, $7) as page', [
      req.params.bucket, typeof b.prefix === 'string' ? b.prefix : '', intOr(b.limit, 1000), typeof b.cursor === 'string' ? b.cursor : null, b.with_delimiter === true,
      typeof b.sortBy?.column === 'string' ? b.sortBy.column : 'name', typeof b.sortBy?.order === 'string' ? b.sortBy.order : 'asc',
    ]);
    res.json(row!.page);
  }));
};
