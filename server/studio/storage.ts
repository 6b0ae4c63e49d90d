// /api/platform/storage/{ref}/v1/*: the Storage API itself (Supabase's paths:
// /bucket, /object/list/{bucket}, /object/move, /object/sign/{bucket}/{path},
// /upload/resumable, ...), served to an operator as the service role. The
// Studio's file browser calls exactly what clients call, so every rule
// (bucket limits, MIME types, names) holds, and resumable uploads use the
// same TUS path; the browser never holds the service key. Emptying or
// deleting a bucket and deleting objects go to the audit log. An object's
// bytes are served sandboxed (no script, no sniffing): a user's HTML file
// cannot act as a page of the Studio.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type pg from 'pg';
import type { Keys } from '../keys.ts';
import { audit } from './audit.ts';

/** What the audit log records of a storage call, when it destroys something. */
function destructive(req: Request): { action: string; target: string } | null {
  const path = req.path;
  if (req.method === 'POST' && /^\/bucket\/[^/]+\/empty$/.test(path)) return { action: 'empty_bucket', target: decodeURIComponent(path.split('/')[2]!) };
  if (req.method === 'DELETE' && /^\/bucket\/[^/]+$/.test(path)) return { action: 'delete_bucket', target: decodeURIComponent(path.split('/')[2]!) };
  if (req.method === 'DELETE' && path.startsWith('/object/')) return { action: 'delete_objects', target: decodeURIComponent(path.slice('/object/'.length)) };
  return null;
}

export function storageProxy(opts: { storage: express.RequestHandler; keys: Keys; pool: pg.Pool }): Router {
  const r = express.Router({ mergeParams: true });
  r.use((req: Request, res: Response, next: NextFunction) => {
    // The gateway's verdict for the service key, as if the project API had checked it.
    req.auth = { role: 'service_role', claims: { role: 'service_role' }, apikey: { role: 'service_role' }, bearer: opts.keys.serviceRoleKey };
    // An object read here is a user's file on the Studio's origin. The Storage API serves every object
    // sandboxed (CSP sandbox), never sniffed, and as an attachment unless its type runs nothing, so an
    // HTML or SVG file never runs as a page of the Studio (test/studio/users-storage.test.ts holds it).
    const recorded = destructive(req);
    if (recorded) {
      res.once('finish', () => {
        if (res.statusCode < 300) void audit(opts.pool, req, req.operator!, recorded.action, recorded.target, { method: req.method, path: req.path, body: req.body ?? null }).catch(() => undefined);
      });
    }
    opts.storage(req, res, next);
  });
  return r;
}
