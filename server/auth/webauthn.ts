// Passkey ceremonies of the MFA routes (issue 49, item 3), checked by
// @simplewebauthn/server: the options a challenge answers (registration for
// an unverified factor, authentication for a verified one, as GoTrue serves
// them to auth-js's mfa.webauthn), and the check of the authenticator's
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

const failed = (why: string) => apiError(422, 'mfa_verification_failed', `WebAuthn verification failed: ${why}`);

const transportsOf = (c: StoredCredential) => c.transports as NonNullable<WebAuthnCredential['transports']>;

/** The options for a challenge: `create` registers the factor's passkey, `request` asks for it. */
export async function ceremonyOptions(rp: RelyingParty, factor: { userId: string; userName: string; status: string; credential: StoredCredential | null; others: StoredCredential[] }): Promise<{ session: CeremonySession; options: object }> {
  const { generateAuthenticationOptions, generateRegistrationOptions } = await webauthn();
  if (factor.status !== 'verified') {
    const options = await generateRegistrationOptions({
      rpName: rp.name, rpID: rp.id, userName: factor.userName, userID: new TextEncoder().encode(factor.userId),
      attestationType: 'none', excludeCredentials: factor.others.map((c) => ({ id: c.id, transports: c.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' }, timeout: 300_000,
    });
    return { session: { type: 'create', challenge: options.challenge }, options };
  }
  if (!factor.credential) throw apiError(422, 'mfa_factor_not_found', 'This factor has no passkey registered');
  const options = await generateAuthenticationOptions({
    rpID: rp.id, allowCredentials: [{ id: factor.credential.id, transports: transportsOf(factor.credential) }], userVerification: 'preferred', timeout: 300_000,
  });
  return { session: { type: 'request', challenge: options.challenge }, options };
}

/** The authenticator's answer checked against its challenge: the credential to keep (new, or its counter moved on) and the authenticator's model id. */
export async function verifyCeremony(rp: RelyingParty, session: CeremonySession, stored: StoredCredential | null, type: string, response: unknown): Promise<{ credential: StoredCredential; aaguid: string | null }> {
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
