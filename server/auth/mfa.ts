// /factors: TOTP and passkey (WebAuthn) enrollment, challenge, verification
// (aal2) and unenrollment, as GoTrue serves them to supabase-js auth.mfa and
// auth.mfa.webauthn. A passkey's ceremonies are webauthn.ts's.
import express, { type Request, type Router } from 'express';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { z } from 'zod';
import { route } from '../errors.ts';
import { authErrors } from './errors.ts';
import { currentUser, sessionBody, type SessionRow } from './session.ts';
import type { AuthDeps } from './deps.ts';
import { ceremonyOptions, relyingParty, verifyCeremony, type CeremonySession, type StoredCredential } from './webauthn.ts';

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
      const type = (req.body as { factor_type?: unknown } | undefined)?.factor_type;
      if (type === 'webauthn' && config.AUTH_MFA_WEBAUTHN_ENABLED) {
        const named = z.object({ friendly_name: z.string().max(255).nullish() }).safeParse(req.body ?? {});
        if (!named.success) throw authErrors.validation('friendly_name must be a string of at most 255 characters');
        const friendly = named.data.friendly_name ?? '';
        const { rows } = await pool.query<{ id: string }>(`select auth.mfa_enroll($1, $2, null, 'webauthn') as id`, [user.id, friendly]);
        res.json({ id: rows[0]!.id, type: 'webauthn', friendly_name: friendly });
        return;
      }
      const body = z
        .object({ factor_type: z.literal('totp'), friendly_name: z.string().max(255).nullish(), issuer: z.string().max(255).nullish() })
        .safeParse(req.body ?? {});
      if (!body.success) throw authErrors.factorNotEnabled(type);
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
      const { rows: [factor] } = await pool.query<{ factor_type: string; status: string; credential: StoredCredential | null; other_credentials: StoredCredential[]; user_name: string }>(
        'select * from auth.mfa_factor_for_challenge($1, $2)', [user.id, id.data]);
      if (factor!.factor_type === 'webauthn') {
        if (!config.AUTH_MFA_WEBAUTHN_ENABLED) throw authErrors.webauthnVerifyDisabled();
        const { session, options } = await ceremonyOptions(relyingParty(config), { userId: user.id, userName: factor!.user_name, status: factor!.status, credential: factor!.credential, others: factor!.other_credentials });
        const { rows: [made] } = await pool.query<{ id: string; expires_at: string }>('select * from auth.mfa_webauthn_challenge($1, $2, $3, $4)', [user.id, id.data, req.ip ?? '', JSON.stringify(session)]);
        res.json({ id: made!.id, type: 'webauthn', expires_at: Number(made!.expires_at), webauthn: { type: session.type, credential_options: { publicKey: options } } });
        return;
      }
      const { rows } = await pool.query<{ id: string; expires_at: string }>('select * from auth.mfa_challenge($1, $2, $3)', [user.id, id.data, req.ip ?? '']);
      res.json({ id: rows[0]!.id, type: 'totp', expires_at: Number(rows[0]!.expires_at) });
    }),
  );

  router.post(
    '/factors/:id/verify',
    route(async (req, res) => {
      const user = signedIn(req);
      const id = factorId.safeParse(req.params.id);
      if (!id.success) throw authErrors.factorNotFound();
      const passkey = z.object({ challenge_id: z.string().uuid(), webauthn: z.object({ type: z.enum(['create', 'request']), credential_response: z.record(z.string(), z.unknown()) }).passthrough() }).safeParse(req.body ?? {});
      if ((req.body as { webauthn?: unknown } | undefined)?.webauthn !== undefined) {
        if (!passkey.success) throw authErrors.validation('challenge_id and webauthn {type: create or request, credential_response} are required');
        if (!config.AUTH_MFA_WEBAUTHN_ENABLED) throw authErrors.webauthnVerifyDisabled();
        const { challenge_id: challengeId, webauthn } = passkey.data;
        const { rows: [expected] } = await pool.query<{ session_data: CeremonySession; credential: StoredCredential | null }>('select * from auth.mfa_webauthn_for_challenge($1, $2, $3)', [user.id, id.data, challengeId]);
        const checked = await verifyCeremony(relyingParty(config), expected!.session_data, expected!.credential, webauthn.type, webauthn.credential_response).catch(async (err: unknown) => {
          await pool.query(`select auth.audit('verification_attempted', $1, null, jsonb_build_object('factor_id', $2::text, 'status', 'invalid'))`, [user.id, id.data]);
          throw err;
        });
        const verified = await pool.query<SessionRow>('select * from auth.mfa_webauthn_verified($1, $2, $3, $4, $5, $6)', [user.id, id.data, challengeId, user.sessionId, JSON.stringify(checked.credential), checked.aaguid]);
        res.json(await sessionBody(verified.rows[0]!, config, keys));
        return;
      }
      const body = z.object({ challenge_id: z.string().uuid(), code: z.string().regex(/^\d{6}$/, 'a 6-digit code') }).safeParse(req.body ?? {});
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
