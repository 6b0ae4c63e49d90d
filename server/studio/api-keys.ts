// /api/platform/auth/{ref}/api-keys: the project's publishable and secret
// API keys (sql/0112), in the shapes of Supabase's Management API
// (`/v1/projects/{ref}/api-keys`). Listed with `reveal=true` they carry the
// keys themselves (the operator's to copy); otherwise their first
// characters. Each change goes to the audit log and is heard by every
// server at once (deleting a key revokes it).
//   GET    /api-keys[?reveal=true]     the keys, publishable first
//   POST   /api-keys                   {type: publishable | secret, name}: the new key, in full
//   DELETE /api-keys/{id}              not the last of its kind while the legacy keys are off
//   GET    /api-keys/legacy            {enabled}: whether the legacy JWT anon and service_role keys work
//   PUT    /api-keys/legacy            {enabled}: turning them off needs a publishable and a secret key (sql/0113)
import express, { type Router } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import { route } from '../errors.ts';
import { audit } from './audit.ts';
import { idParam, parseBody } from './parse.ts';

export const NewApiKeyBody = z.object({
  type: z.enum(['publishable', 'secret'], { error: 'type must be publishable or secret' }),
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(100),
});
export const ApiKeysQuery = z.object({ reveal: z.enum(['true', 'false']).optional() });
export const LegacyKeysBody = z.object({ enabled: z.boolean({ error: 'enabled must be true or false' }) });

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

  r.get('/api-keys/legacy', route(async (_req, res) => {
    const { rows: [s] } = await pool.query<{ enabled: boolean }>('select legacy_api_keys as enabled from auth.api_key_settings');
    res.json({ enabled: s?.enabled ?? true });
  }));

  r.put('/api-keys/legacy', route(async (req, res) => {
    const body = parseBody(LegacyKeysBody, req.body);
    const { rows: [s] } = await pool.query<{ enabled: boolean }>('select auth.set_legacy_api_keys($1) as enabled', [body.enabled]);
    await opts.changed();
    await audit(pool, req, req.operator!, body.enabled ? 'enable_legacy_api_keys' : 'disable_legacy_api_keys', null, {});
    res.json({ enabled: s!.enabled });
  }));

  r.delete('/api-keys/:id', route(async (req, res) => {
    const id = idParam(req.params.id, 'API key');
    const { rows: [gone] } = await pool.query<{ name: string }>('select auth.delete_api_key($1) as name', [id]);
    await opts.changed();
    await audit(pool, req, req.operator!, 'delete_api_key', gone!.name, { id });
    res.json({ id });
  }));

  return r;
}
