// POST /token?grant_type=id_token (supabase-js signInWithIdToken): a
// provider's ID token, as native Google and Apple sign-in hand it to an app.
// As GoTrue checks it: the signature against the provider's published keys
// (its JWKS, fetched and cached by jose), the issuer, the audience (the
// provider's client id or one of its additional client ids), the expiry, and
// the nonce (the token carries the SHA-256 of the raw nonce the app sends:
// both or neither). Then the identity signs its user in, links to a verified
// e-mail's user, or signs up (auth.oauth_sign_in, as the redirect flow).
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Config, OAuthProviderId } from '../config.ts';
import { OAUTH_PROVIDERS } from '../config.ts';
import { authErrors } from './errors.ts';
import { mapProfile, PROVIDER_DEFAULTS, resolveProvider, type Profile } from './providers.ts';

/** Published keys of the providers whose tokens apps hand over most, when none is configured. */
const DEFAULT_JWKS: Partial<Record<OAuthProviderId, string>> = {
  google: 'https://www.googleapis.com/oauth2/v3/certs',
  apple: 'https://appleid.apple.com/auth/keys',
};

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

export async function verifyIdToken(config: Config, provider: string, token: string, nonce: string | null): Promise<{ provider: OAuthProviderId; profile: Profile; claims: JWTPayload }> {
  const id = OAUTH_PROVIDERS.find((p) => p === provider);
  const configured = id ? config.oauth[id] : undefined;
  // A known provider that is off: GoTrue names its issuer ("Provider (issuer "…") is not enabled").
  if (id && !configured) throw authErrors.idTokenIssuerDisabled(PROVIDER_DEFAULTS[id].issuer || id);
  if (!id || !configured) throw authErrors.idTokenProviderDisabled(provider);
  const spec = resolveProvider(id, configured);
  const jwksUrl = configured.jwksUrl ?? DEFAULT_JWKS[id];
  if (!jwksUrl || !spec.issuer) throw authErrors.idTokenProviderDisabled(provider);
  let keys = keySets.get(jwksUrl);
  if (!keys) keySets.set(jwksUrl, (keys = createRemoteJWKSet(new URL(jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 })));
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, keys, { issuer: spec.issuer, audience: [configured.clientId, ...(configured.additionalClientIds ?? [])] }));
  } catch (err) {
    throw authErrors.badIdToken((err as Error).message);
  }
  const inToken = typeof claims.nonce === 'string' && claims.nonce !== '' ? claims.nonce : null;
  if ((inToken === null) !== (nonce === null)) throw authErrors.badIdToken('Passed nonce and nonce in id_token should either both exist or not.');
  if (inToken !== null && nonce !== null && createHash('sha256').update(nonce).digest('hex') !== inToken) throw authErrors.badIdToken('Nonces mismatch');
  const profile = mapProfile(claims as Record<string, unknown>);
  if (!profile) throw authErrors.badIdToken('the token names no subject');
  return { provider: id, profile, claims };
}
