// /factors: TOTP enrollment, challenge, verification (aal2) and unenrollment,
// as GoTrue serves them to supabase-js auth.mfa.
import express, { type Request, type Router } from 'express';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { z } from 'zod';
import { route } from '../errors.ts';
import { authErrors } from './errors.ts';
import { currentUser, sessionBody, type SessionRow } from './session.ts';
import type { AuthDeps } from './deps.ts';

/** MFA acts on a session: the bearer token must carry one. */
function signedIn(req: Request): { id: string; sessionId: string; email: string } {
  const user = currentUser(req);
  if (!user.sessionId) throw authErrors.sessionRequired();
  return { ...user, sessionId: user.sessionId };
}

const factorId = z.string().uuid();

export function mfaRoutes({ config, keys, pool }: AuthDeps): Router {
  const router = express.Router();

  router.post(
    '/factors',
    route(async (req, res) => {
      const user = signedIn(req);
      const body = z
        .object({ factor_type: z.literal('totp'), friendly_name: z.string().max(255).nullish(), issuer: z.string().max(255).nullish() })
        .safeParse(req.body ?? {});
      if (!body.success) throw authErrors.factorNotEnabled((req.body as { factor_type?: unknown } | undefined)?.factor_type);
      const secret = new Secret({ size: 20 });
      const issuer = body.data.issuer || new URL(config.SITE_URL).hostname;
      const totp = new TOTP({ issuer, label: user.email || user.id, secret, algorithm: 'SHA1', digits: 6, period: 30 });
      const friendly = body.data.friendly_name ?? '';
      const { rows } = await pool.query<{ id: string }>('select auth.mfa_enroll($1, $2, $3) as id', [user.id, friendly, secret.base32]);
      const uri = totp.toString();
      const svg = await QRCode.toString(uri, { type: 'svg', margin: 1 });
      res.json({
        id: rows[0]!.id,
        type: 'totp',
        friendly_name: friendly,
        totp: { qr_code: svg, secret: secret.base32, uri }, // supabase-js adds the data: URI prefix itself
      });
    }),
  );

  router.post(
    '/factors/:id/challenge',
    route(async (req, res) => {
      const user = signedIn(req);
      const id = factorId.safeParse(req.params.id);
      if (!id.success) throw authErrors.factorNotFound();
      const { rows } = await pool.query<{ id: string; expires_at: string }>('select * from auth.mfa_challenge($1, $2, $3)', [user.id, id.data, req.ip ?? '']);
      res.json({ id: rows[0]!.id, type: 'totp', expires_at: Number(rows[0]!.expires_at) });
    }),
  );

  router.post(
    '/factors/:id/verify',
    route(async (req, res) => {
      const user = signedIn(req);
      const id = factorId.safeParse(req.params.id);
      const body = z.object({ challenge_id: z.string().uuid(), code: z.string().regex(/^\d{6}$/, 'a 6-digit code') }).safeParse(req.body ?? {});
      if (!id.success) throw authErrors.factorNotFound();
      if (!body.success) throw authErrors.challengeCodeRequired();
      const { rows } = await pool.query<{ secret: string }>('select auth.mfa_secret_for_challenge($1, $2, $3) as secret', [user.id, id.data, body.data.challenge_id]);
      // One period either side, for clocks a little apart.
      const delta = TOTP.validate({ token: body.data.code, secret: Secret.fromBase32(rows[0]!.secret), algorithm: 'SHA1', digits: 6, period: 30, window: 1 });
      if (delta === null) {
        await pool.query(`select auth.audit('verification_attempted', $1, null, jsonb_build_object('factor_id', $2::text, 'status', 'invalid'))`, [user.id, id.data]);
        throw authErrors.badTotp();
      }
      const verified = await pool.query<SessionRow>('select * from auth.mfa_verified($1, $2, $3, $4)', [user.id, id.data, body.data.challenge_id, user.sessionId]);
      res.json(await sessionBody(verified.rows[0]!, config, keys));
    }),
  );

  router.delete(
    '/factors/:id',
    route(async (req, res) => {
      const user = signedIn(req);
      const id = factorId.safeParse(req.params.id);
      if (!id.success) throw authErrors.factorNotFound();
      await pool.query('select auth.mfa_unenroll($1, $2, $3)', [user.id, id.data, user.sessionId]);
      res.json({ id: id.data });
    }),
  );

  return router;
}
