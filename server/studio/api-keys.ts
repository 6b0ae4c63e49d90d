// /api/platform/auth/{ref}/api-keys: the project's publishable and secret
// API keys (sql/0112), in the shapes of Supabase's Management API
// (`/v1/projects/{ref}/api-keys`). Listed with `reveal=true` they carry the
// keys themselves (the operator's to copy); otherwise their first
// characters. Each change goes to the audit log and is heard by every
// server at once (deleting a key revokes it).
//   GET    /api-keys[?reveal=true]     the keys, publishable first
//   POST   /api-keys                   {type: publishable | secret, name}: the new key, in full
//   DELETE /api-keys/{id}
import express, { type Router } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import { route } from '../errors.ts';
import { audit } from './audit.ts';
import { studioErrors } from './errors.ts';
import { parseBody } from './parse.ts';

export const NewApiKeyBody = z.object({
  type: z.enum(['publishable', 'secret'], { error: 'type must be publishable or secret' }),
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(100),
});
export const ApiKeysQuery = z.object({ reveal: z.enum(['true', 'false']).optional() });

export function apiKeyRoutes(opts: { pool: pg.Pool; masterKey: string; changed: () => Promise<void> }): Router {
  const { pool } = opts;
  const r = express.Router({ mergeParams: true });

  r.get('/api-keys', route(async (req, res) => {
    const q = parseBody(ApiKeysQuery, req.query);
    const { rows } = await pool.query('select * from auth.api_key_list($1)', [q.reveal === 'true' ? opts.masterKey : null]);
    res.json(rows);
  }));

  r.post('/api-keys', route(async (req, res) => {
    const body = parseBody(NewApiKeyBody, req.body);
    const { rows: [made] } = await pool.query<{ id: string; name: string; type: string }>('select * from auth.create_api_key($1, $2, $3)', [body.name, body.type, opts.masterKey]);
    await opts.changed();
    await audit(pool, req, req.operator!, 'create_api_key', made!.name, { id: made!.id, type: made!.type });
    res.status(201).json(made);
  }));

  r.delete('/api-keys/:id', route(async (req, res) => {
    const id = z.string().uuid().safeParse(req.params.id);
    if (!id.success) throw studioErrors.notFound('API key');
    const { rows: [gone] } = await pool.query<{ name: string }>('delete from auth.api_keys where id = $1 returning name', [id.data]);
    if (!gone) throw studioErrors.notFound('API key');
    await opts.changed();
    await audit(pool, req, req.operator!, 'delete_api_key', gone.name, { id: id.data });
    res.json({ id: id.data });
  }));

  return r;
}
