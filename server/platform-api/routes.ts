// The control plane's project routes of spec 4.2 that are not the Studio's
// own (GET /auth/{ref}/users and POST /auth/{ref}/users live with the other
// user routes, server/studio/users.ts): a project's buckets, and an
// operator's upload. Mounted behind the control plane's gate and project
// check (server/studio/index.ts): an operator's session or a platform token.
import express, { type Router } from 'express';
import { route } from '../errors.ts';
import { platformErrors } from './errors.ts';
import { objectName } from '../storage/request.ts';
import type { StorageService } from '../storage/routes.ts';

export function platformRoutes({ storage }: { storage: StorageService }): Router {
  const router = express.Router({ mergeParams: true });

  router.get('/buckets', route(async (_req, res) => {
    res.json(await storage.buckets());
  }));

  // An operator's upload: multipart with the file in field `file`, written as the service role.
  router.post('/object/:bucket/*path', route(async (req, res) => {
    if (!String(req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data')) {
      throw platformErrors.invalid('Send the file as multipart/form-data in field file');
    }
    res.json(await storage.upload(req, String(req.params.bucket), objectName(req)));
  }));

  return router;
}
