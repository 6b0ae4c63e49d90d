// The control plane (PLATFORM_PORT, /api/platform/*): operator endpoints over a
// project's auth users (and, with the storage surface, its buckets). Authorised
// by a platform token (npm run platform-token) listing the project refs it may
// touch; project keys, the service-role key included, are refused with 401.
import express, { type Request, type Router } from 'express';
import { jsonBody } from '../json-body.ts';
import type pg from 'pg';
import { z } from 'zod';
import { createUser, listUsers } from '../auth/admin.ts';
import type { Config } from '../config.ts';
import { route } from '../errors.ts';
import { platformErrors } from './errors.ts';
import { bearerOf } from '../gateway.ts';
import { verifyPlatformToken, type Keys } from '../keys.ts';
import { objectName } from '../storage/request.ts';
import type { StorageService } from '../storage/routes.ts';

export function platformRoutes({ config, keys, pool, storage }: { config: Config; keys: Keys; pool: pg.Pool; storage: StorageService }): Router {
  const router = express.Router();
  router.use(jsonBody({ limit: '100kb' }));

  // Every route names a project: the token must list it, and this server must serve it.
  const project = async (req: Request): Promise<void> => {
    const token = bearerOf(req);
    const claims = token ? await verifyPlatformToken(keys.platformSecret, token) : null;
    if (!claims) throw platformErrors.tokenRequired();
    const ref = String(req.params.ref);
    if (!claims.refs.includes(ref)) throw platformErrors.projectNotGranted(ref);
    if (ref !== config.PROJECT_REF) throw platformErrors.noProject(ref);
  };

  router.get(
    '/auth/:ref/users',
    route(async (req, res) => {
      await project(req);
      const page = Math.max(1, Number.parseInt(String(req.query.page ?? '1'), 10) || 1);
      const perPage = Math.min(1000, Math.max(1, Number.parseInt(String(req.query.per_page ?? '50'), 10) || 50));
      const { users, total } = await listUsers(pool, page, perPage);
      res.json({ users, total, page, per_page: perPage });
    }),
  );

  router.post(
    '/auth/:ref/users',
    route(async (req, res) => {
      await project(req);
      const body = z.object({ email: z.string().trim().min(1).max(255), password: z.string().min(config.AUTH_PASSWORD_MIN_LENGTH).max(72) }).safeParse(req.body ?? {});
      if (!body.success) throw platformErrors.invalid(`${body.error.issues[0]!.path.join('.')}: ${body.error.issues[0]!.message}`);
      // An operator creating a user vouches for the address, as Supabase Studio's default does.
      res.status(201).json(await createUser(pool, config, { email: body.data.email, password: body.data.password, email_confirm: true }));
    }),
  );

  router.get(
    '/storage/:ref/buckets',
    route(async (req, res) => {
      await project(req);
      res.json(await storage.buckets());
    }),
  );

  // An operator's upload: multipart with the file in field `file`, written as the service role.
  router.post(
    '/storage/:ref/object/:bucket/*path',
    route(async (req, res) => {
      await project(req);
      if (!String(req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data')) {
        throw platformErrors.invalid('Send the file as multipart/form-data in field file');
      }
      res.json(await storage.upload(req, String(req.params.bucket), objectName(req)));
    }),
  );

  return router;
}
