// Passkeys as a first factor (issue 49, item 3), in GoTrue's paths as
// auth-js's `auth.passkey` calls them (registerPasskey, signInWithPasskey and
// their two steps): a signed-in user registers a discoverable credential
// (/passkeys/registration/options, /verify), anyone signs in with one
// (/passkeys/authentication/options, /verify: the authenticator names the
// credential, no e-mail is asked), and a user lists, renames and deletes
// theirs (/passkeys, and /admin/users/{id}/passkeys for the service role).
// The ceremonies are webauthn.ts's; what they change is sql/0116.
import express, { type Router } from 'express';
import { z } from 'zod';
import { apiError, route } from '../errors.ts';
import { requireAdmin } from './admin.ts';
import type { AuthDeps } from './deps.ts';
import { parse } from './parse.ts';
import { clientIp, userAgent } from './request.ts';
import { currentUser, sessionBody, type SessionRow } from './session.ts';
import { authenticationOptions, registrationOptions, relyingParty, verifyCeremony, type CeremonySession, type StoredCredential } from './webauthn.ts';

const uuid = z.string().uuid();
const ceremony = z.object({ challenge_id: z.string().max(64), credential: z.record(z.string(), z.unknown()) });

/** An unknown challenge id is GoTrue's not-found, whatever its shape. */
const challengeId = (value: string) => (uuid.safeParse(value).success ? value : '00000000-0000-0000-0000-000000000000');

export function passkeyRoutes({ config, keys, pool }: AuthDeps, limits: { signIn: express.RequestHandler; captcha: express.RequestHandler }): Router {
  const router = express.Router();
  const rp = () => relyingParty(config);
  router.use(['/passkeys', '/admin/users/:id/passkeys'], (_req, _res, next) => next(config.AUTH_PASSKEY_ENABLED ? undefined : apiError(422, 'passkey_disabled', 'Passkeys are disabled')));

  router.post('/passkeys/registration/options', route(async (req, res) => {
    const user = currentUser(req);
    const { rows: [who] } = await pool.query<{ user_name: string; credentials: StoredCredential[] }>('select * from auth.passkey_registrant($1)', [user.id]);
    const { session, options } = await registrationOptions(rp(), { id: user.id, name: who!.user_name }, who!.credentials, true);
    const { rows: [made] } = await pool.query<{ challenge_id: string; expires_at: string }>(`select * from auth.passkey_challenge($1, 'registration', $2)`, [user.id, JSON.stringify(session)]);
    res.json({ challenge_id: made!.challenge_id, expires_at: Number(made!.expires_at), options });
  }));

  router.post('/passkeys/registration/verify', route(async (req, res) => {
    const user = currentUser(req);
    const body = parse(ceremony, req.body);
    const { rows: [taken] } = await pool.query<{ session: CeremonySession }>(`select auth.passkey_take_challenge($1, 'registration', $2) as session`, [challengeId(body.challenge_id), user.id]);
    const checked = await verifyCeremony(rp(), taken!.session, null, 'create', body.credential, 'webauthn_verification_failed');
    const { rows: [made] } = await pool.query<{ passkey: unknown }>('select auth.passkey_register($1, $2, $3) as passkey', [user.id, JSON.stringify(checked.credential), checked.aaguid]);
    res.json(made!.passkey);
  }));

  // Sign-in: no session, the project key only, limited and captcha-checked as a password sign-in is.
  router.post('/passkeys/authentication/options', limits.signIn, limits.captcha, route(async (_req, res) => {
    const { session, options } = await authenticationOptions(rp(), []);
    const { rows: [made] } = await pool.query<{ challenge_id: string; expires_at: string }>(`select * from auth.passkey_challenge(null, 'authentication', $1)`, [JSON.stringify(session)]);
    res.json({ challenge_id: made!.challenge_id, expires_at: Number(made!.expires_at), options });
  }));

  router.post('/passkeys/authentication/verify', limits.signIn, route(async (req, res) => {
    const body = parse(ceremony, req.body);
    const { rows: [taken] } = await pool.query<{ session: CeremonySession }>(`select auth.passkey_take_challenge($1, 'authentication', null) as session`, [challengeId(body.challenge_id)]);
    const named = typeof body.credential.id === 'string' ? body.credential.id.slice(0, 1400) : '';
    const handle = (body.credential.response as { userHandle?: unknown } | undefined)?.userHandle;
    const { rows: [found] } = await pool.query<{ credential: StoredCredential }>('select auth.passkey_credential($1, $2) as credential', [named, typeof handle === 'string' ? handle.slice(0, 512) : null]);
    const stored = found!.credential;
    const checked = await verifyCeremony(rp(), taken!.session, stored, 'request', body.credential, 'webauthn_verification_failed');
    const { rows: [row] } = await pool.query<SessionRow>('select * from auth.passkey_signed_in($1, $2, $3, $4)', [stored.id, checked.credential.counter, userAgent(req), clientIp(req)]);
    res.json(await sessionBody(row!, config, keys));
  }));

  router.get('/passkeys', route(async (req, res) => {
    const { rows } = await pool.query<{ list: unknown }>('select auth.passkey_list($1) as list', [currentUser(req).id]);
    res.json(rows[0]!.list);
  }));
  router.patch('/passkeys/:id', route(async (req, res) => {
    const user = currentUser(req);
    const { friendly_name: name } = parse(z.object({ friendly_name: z.string().max(120) }), req.body);
    if (!uuid.safeParse(req.params.id).success) throw apiError(404, 'webauthn_credential_not_found', 'Passkey not found');
    const { rows } = await pool.query<{ passkey: unknown }>('select auth.passkey_rename($1, $2, $3) as passkey', [user.id, req.params.id, name]);
    res.json(rows[0]!.passkey);
  }));
  router.delete('/passkeys/:id', route(async (req, res) => {
    const user = currentUser(req);
    if (!uuid.safeParse(req.params.id).success) throw apiError(404, 'webauthn_credential_not_found', 'Passkey not found');
    await pool.query('select auth.passkey_delete($1, $2)', [user.id, req.params.id]);
    res.status(204).end();
  }));

  router.get('/admin/users/:id/passkeys', route(async (req, res) => {
    requireAdmin(req);
    const { rows } = await pool.query<{ list: unknown }>('select auth.passkey_list($1) as list', [parse(uuid, req.params.id)]);
    res.json(rows[0]!.list);
  }));
  router.delete('/admin/users/:id/passkeys/:passkeyId', route(async (req, res) => {
    requireAdmin(req);
    if (!uuid.safeParse(req.params.passkeyId).success) throw apiError(404, 'webauthn_credential_not_found', 'Passkey not found');
    await pool.query('select auth.passkey_delete($1, $2)', [parse(uuid, req.params.id), req.params.passkeyId]);
    res.status(204).end();
  }));
  return router;
}
