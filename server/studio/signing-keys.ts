// /api/platform/auth/{ref}/signing-keys: the project's signing keys, in the
// shapes of Supabase's Management API (config/auth/signing-keys). Each move
// is one SQL call (sql/0111's state machine) and goes to the audit log:
//   GET    /signing-keys          {keys: [...]}: in use first, then standby, previously used, revoked
//   POST   /signing-keys          {algorithm: ES256 | RS256} or {private_jwk}: a new (or imported) standby key (published, signing nothing)
//   PATCH  /signing-keys/{id}     {status: in_use | revoked}
//   DELETE /signing-keys/{id}     a standby or revoked key
// The private halves never leave the server.
import express, { type Router } from 'express';
import type pg from 'pg';
import type { JWK } from 'jose';
import { z } from 'zod';
import { route } from '../errors.ts';
import { signingKeys } from '../key-ring.ts';
import { audit } from './audit.ts';
import { idParam, parseBody } from './parse.ts';

export const NewSigningKeyBody = z.object({
  algorithm: z.enum(['ES256', 'RS256'], { error: 'algorithm must be ES256 or RS256' }).default('ES256'),
  private_jwk: z.record(z.string(), z.unknown()).optional().describe('an existing private key to import (EC P-256 or RSA ≥ 2048 bits); its kid is kept when it is a UUID, its algorithm follows the key'),
});
export const SigningKeyStatusBody = z.object({ status: z.enum(['in_use', 'revoked'], { error: 'status must be in_use or revoked' }) });

export function signingKeyRoutes(opts: { pool: pg.Pool; masterKey: string; /** This process's key set read again before the answer: a revocation holds at once here (other processes hear by NOTIFY). */ changed: () => Promise<void> }): Router {
  const { pool } = opts;
  const keys = signingKeys(pool, opts.masterKey);
  const r = express.Router({ mergeParams: true });

  r.get('/signing-keys', route(async (_req, res) => {
    res.json({ keys: await keys.list() });
  }));

  r.post('/signing-keys', route(async (req, res) => {
    const body = parseBody(NewSigningKeyBody, req.body ?? {});
    const made = body.private_jwk ? await keys.import(body.private_jwk as JWK) : await keys.add(body.algorithm);
    await opts.changed();
    await audit(pool, req, req.operator!, body.private_jwk ? 'import_signing_key' : 'add_signing_key', made.id, { algorithm: made.algorithm });
    res.status(201).json(made);
  }));

  r.patch('/signing-keys/:id', route(async (req, res) => {
    const id = idParam(req.params.id, 'Signing key');
    const body = parseBody(SigningKeyStatusBody, req.body);
    const moved = await keys.setStatus(id, body.status);
    await opts.changed();
    await audit(pool, req, req.operator!, body.status === 'in_use' ? 'use_signing_key' : 'revoke_signing_key', id, { algorithm: moved.algorithm });
    res.json(moved);
  }));

  r.delete('/signing-keys/:id', route(async (req, res) => {
    const id = idParam(req.params.id, 'Signing key');
    await keys.remove(id);
    await opts.changed();
    await audit(pool, req, req.operator!, 'delete_signing_key', id, {});
    res.json({ id });
  }));

  return r;
}
