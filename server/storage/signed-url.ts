// Signed-URL tokens (download, render, upload). They are capabilities for one
// operation on one object, never API credentials: signed with a key derived
// from JWT_SECRET (so the gateway, realtime and auth, which verify with
// JWT_SECRET itself, refuse them), carrying no `role` claim, and bound to
// bucket, path and operation through their audience. An upload token has a
// `jti` that storage.put_signed_object spends once.
import { createHmac, randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { storageErrors } from './errors.ts';

/** The route a token was minted for; a token works on that route only. */
export type SignedOperation = 'object' | 'render' | 'upload';

export type SignedClaims = {
  url: string;
  transformations?: Record<string, unknown>;
  /** Upload tokens: who signed, recorded as the object's owner and whose policies apply. */
  upsert?: boolean;
  owner?: string | null;
  signer_role?: string;
  jti?: string;
  exp?: number;
};

const ALGORITHM = 'HS256';
const audience = (op: SignedOperation) => `storage:${op}`;

export type SignedUrls = {
  sign: (op: SignedOperation, claims: Omit<SignedClaims, 'jti' | 'exp'>, seconds: number) => Promise<string>;
  /** The claims of a token minted for `op` on exactly `bucket/name`; 400 otherwise. */
  verify: (op: SignedOperation, token: unknown, bucket: string, name: string) => Promise<SignedClaims>;
};

export function signedUrls(jwtSecret: string): SignedUrls {
  const key = createHmac('sha256', jwtSecret).update('pgbase:storage-signed-url').digest();
  return {
    sign: async (op, claims, seconds) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ ...claims, ...(op === 'upload' ? { jti: randomUUID() } : {}) })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setAudience(audience(op))
        .setIssuedAt(now)
        .setExpirationTime(now + seconds)
        .sign(key);
    },
    verify: async (op, token, bucket, name) => {
      if (typeof token !== 'string' || !token) throw storageErrors.missingToken();
      let claims: SignedClaims;
      try {
        claims = (await jwtVerify(token, key, { algorithms: [ALGORITHM], audience: audience(op) })).payload as unknown as SignedClaims;
      } catch (err) {
        throw storageErrors.badToken(err instanceof joseErrors.JWTExpired);
      }
      if (claims.url !== `${bucket}/${name}`) throw storageErrors.tokenForOtherObject();
      return claims;
    },
  };
}
