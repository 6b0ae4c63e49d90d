// Passkey ceremonies (issue 49, item 3), of the MFA routes (mfa.ts) and of
// first-factor passkeys (passkeys.ts), checked by @simplewebauthn/server:
// the options a challenge answers (registration, or authentication for one
// credential or, discoverable, for any), and the check of the authenticator's
// answer against the challenge stored with it (sql/0115): the client data's
// type, challenge and origin, the relying party's hash, the attestation
// (`none` accepted) or the signature with the stored public key and a
// signature counter that must move on. The relying party is the server's
// setting, never what the request says.
import type { AuthenticationResponseJSON, RegistrationResponseJSON, WebAuthnCredential } from '@simplewebauthn/server';
import type { Config } from '../config.ts';
import { apiError } from '../errors.ts';

/** A credential as sql/0115 keeps it (web_authn_credential): the public key in base64url. */
export type StoredCredential = { id: string; public_key: string; counter: number; transports: string[] };

/** What a challenge row keeps for its ceremony (web_authn_session_data). */
export type CeremonySession = { type: 'create' | 'request'; challenge: string };

export type RelyingParty = { id: string; origins: string[]; name: string };

export function relyingParty(config: Config): RelyingParty {
  const site = new URL(config.SITE_URL);
  const id = config.AUTH_WEBAUTHN_RP_ID ?? site.hostname;
  const origins = config.AUTH_WEBAUTHN_RP_ORIGINS ? config.AUTH_WEBAUTHN_RP_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean) : [site.origin];
  return { id, origins, name: config.AUTH_WEBAUTHN_RP_DISPLAY_NAME ?? id };
}

/** Loaded on the first ceremony: the library probes Web Crypto when loaded, which Node reports as experimental on every start otherwise. */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (library ??= import('@simplewebauthn/server'));

/** How a failed check is answered: MFA's code, or the passkey sign-in's. */
export type FailureCode = 'mfa_verification_failed' | 'webauthn_verification_failed';

const transportsOf = (c: StoredCredential) => c.transports as NonNullable<WebAuthnCredential['transports']>;

/** Registration options for a user: attestation none, their other credentials excluded; `discoverable` passkeys (first-factor sign-in) must be resident. */
export async function registrationOptions(rp: RelyingParty, user: { id: string; name: string }, exclude: StoredCredential[], discoverable: boolean): Promise<{ session: CeremonySession; options: object }> {
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: rp.name, rpID: rp.id, userName: user.name, userID: new TextEncoder().encode(user.id),
    attestationType: 'none', excludeCredentials: exclude.map((c) => ({ id: c.id, transports: c.transports })),
    authenticatorSelection: { residentKey: discoverable ? 'required' : 'preferred', userVerification: 'preferred' }, timeout: 300_000,
  });
  return { session: { type: 'create', challenge: options.challenge }, options };
}

/** Authentication options: for one credential (an MFA factor), or for any of the relying party's (a discoverable sign-in: none named). */
export async function authenticationOptions(rp: RelyingParty, allow: StoredCredential[]): Promise<{ session: CeremonySession; options: object }> {
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: rp.id, allowCredentials: allow.map((c) => ({ id: c.id, transports: transportsOf(c) })), userVerification: 'preferred', timeout: 300_000,
  });
  return { session: { type: 'request', challenge: options.challenge }, options };
}

/** An MFA factor's challenge: `create` registers its passkey, `request` asks for it. */
export async function ceremonyOptions(rp: RelyingParty, factor: { userId: string; userName: string; status: string; credential: StoredCredential | null; others: StoredCredential[] }): Promise<{ session: CeremonySession; options: object }> {
  if (factor.status !== 'verified') return registrationOptions(rp, { id: factor.userId, name: factor.userName }, factor.others, false);
  if (!factor.credential) throw apiError(422, 'mfa_factor_not_found', 'This factor has no passkey registered');
  return authenticationOptions(rp, [factor.credential]);
}

/** The authenticator's answer checked against its challenge: the credential to keep (new, or its counter moved on) and the authenticator's model id. */
export async function verifyCeremony(rp: RelyingParty, session: CeremonySession, stored: StoredCredential | null, type: string, response: unknown, code: FailureCode = 'mfa_verification_failed'): Promise<{ credential: StoredCredential; aaguid: string | null }> {
  const failed = (why: string) => apiError(code === 'mfa_verification_failed' ? 422 : 400, code, `WebAuthn verification failed: ${why}`);
  if (type !== session.type) throw apiError(400, 'validation_failed', `This challenge expects a WebAuthn "${session.type}" response`);
  const { verifyAuthenticationResponse, verifyRegistrationResponse } = await webauthn();
  try {
    if (session.type === 'create') {
      const result = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON, expectedChallenge: session.challenge, expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: false,
      });
      if (!result.verified) throw failed('the registration did not verify');
      const c = result.registrationInfo.credential;
      return {
        credential: { id: c.id, public_key: Buffer.from(c.publicKey).toString('base64url'), counter: c.counter, transports: c.transports ?? [] },
        aaguid: result.registrationInfo.aaguid === '00000000-0000-0000-0000-000000000000' ? null : result.registrationInfo.aaguid,
      };
    }
    if (!stored) throw failed('no passkey is registered for this factor');
    const result = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON, expectedChallenge: session.challenge, expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: false,
      credential: { id: stored.id, publicKey: new Uint8Array(Buffer.from(stored.public_key, 'base64url')), counter: stored.counter, transports: transportsOf(stored) },
    });
    if (!result.verified) throw failed('the signature did not verify');
    return { credential: { ...stored, counter: result.authenticationInfo.newCounter }, aaguid: null };
  } catch (err) {
    if (err instanceof Error && !('status' in err)) throw failed(err.message);
    throw err;
  }
}
