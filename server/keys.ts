// Project keys: the JWT secret, and the anon and service-role keys signed with it.
// Every token the platform accepts is verified here, with the algorithm pinned.
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Config } from './config.ts';

export type Keys = {
  jwtSecret: string;
  /** Signs platform tokens for the control plane; unrelated to JWT_SECRET. */
  platformSecret: string;
  /** Encrypts AI provider keys and secret settings at rest (never stored in the database). */
  aiMasterKey: string;
  anonKey: string;
  serviceRoleKey: string;
  /** Verifies a project token: by the key set once the server started (key-ring.ts), by JWT_SECRET alone before. */
  verify: TokenVerifier;
  /** Signs a project token with the key in use (JWT_SECRET alone before the key set is read). */
  sign: (claims: Claims, expiresInSeconds: number) => Promise<string>;
  /** The public keys at /auth/v1/.well-known/jwks.json (none before the key set is read). */
  jwks: () => Promise<{ keys: object[] }>;
  /** Reads the signing and API keys again now (a change made in this process; others hear of it by NOTIFY). */
  reloadKeys: () => Promise<void>;
};

export type TokenVerifier = (token: string) => Promise<Verdict>;

export type Claims = JWTPayload & { role?: string; [claim: string]: unknown };

const ALGORITHM = 'HS256';

/**
 * Local secrets kept in DATA_DIR when not configured: created once with an
 * exclusive write, so two processes starting together agree on one value.
 */
export type LocalSecrets = { jwt_secret: string; db_password: string; platform_jwt_secret: string; ai_master_key: string; /** Made by this start (a new data directory); never written. */ created?: boolean };

const SECRET_FIELDS = ['jwt_secret', 'db_password', 'platform_jwt_secret', 'ai_master_key'] as const;

function freshSecret(field: (typeof SECRET_FIELDS)[number]): string {
  return randomBytes(field === 'db_password' ? 24 : 32).toString('base64url');
}

/** Whether any secret the server needs is left to DATA_DIR/secrets.json. */
export function needsLocalSecrets(config: Config): boolean {
  return !config.JWT_SECRET || !config.DATABASE_URL || !config.PLATFORM_JWT_SECRET || !config.AI_MASTER_KEY;
}

export async function loadLocalSecrets(dataDir: string): Promise<LocalSecrets> {
  const file = path.join(dataDir, 'secrets.json');
  // DATA_DIR holds secrets: private to the user running the server.
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const fresh = Object.fromEntries(SECRET_FIELDS.map((f) => [f, freshSecret(f)])) as unknown as LocalSecrets;
  try {
    await fs.writeFile(file, JSON.stringify(fresh, null, 2) + '\n', { flag: 'wx', mode: 0o600 });
    return { ...fresh, created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // Another process may be writing it right now: wait until it parses.
  for (let attempt = 0; ; attempt++) {
    try {
      const stored = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<LocalSecrets>;
      if (typeof stored.jwt_secret === 'string' && stored.jwt_secret.length >= 32 && typeof stored.db_password === 'string') {
        const missing = SECRET_FIELDS.filter((f) => typeof stored[f] !== 'string');
        if (missing.length === 0) return stored as LocalSecrets;
        // A file from before a secret existed: add it, atomically. Two processes
        // upgrading at once: the last rename wins, and both read it back.
        const upgraded = { ...stored, ...Object.fromEntries(missing.map((f) => [f, freshSecret(f)])) } as LocalSecrets;
        const tmp = `${file}.${process.pid}.tmp`;
        await fs.writeFile(tmp, JSON.stringify(upgraded, null, 2) + '\n', { mode: 0o600 });
        await fs.rename(tmp, file);
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      if (attempt > 50) throw new Error(`${file} is not a valid secrets file; remove it to generate new secrets`);
    } catch (err) {
      if (attempt > 50) throw err;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function secretKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** Signs a long-lived API key for a role. Deterministic for a given secret, ref and role. */
export async function signApiKey(secret: string, ref: string, role: 'anon' | 'service_role'): Promise<string> {
  // No iat/exp: API keys are revoked by rotating JWT_SECRET, as Supabase's are.
  return new SignJWT({ iss: 'pgbase', ref, role }).setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' }).sign(secretKey(secret));
}

/** Signs any token with the project secret (used by auth for access tokens). */
export async function signToken(secret: string, claims: Claims, expiresInSeconds: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + expiresInSeconds)
    .sign(secretKey(secret));
}

export async function resolveKeys(config: Config, local?: LocalSecrets): Promise<Keys> {
  const jwtSecret = config.JWT_SECRET ?? local?.jwt_secret;
  if (!jwtSecret) throw new Error('JWT_SECRET is not set and no local secret is available');
  const platformSecret = config.PLATFORM_JWT_SECRET ?? local?.platform_jwt_secret;
  if (!platformSecret) throw new Error('PLATFORM_JWT_SECRET is not set and no local secret is available');
  const aiMasterKey = config.AI_MASTER_KEY ?? local?.ai_master_key;
  if (!aiMasterKey) throw new Error('AI_MASTER_KEY is not set and no local secret is available');
  const keys = {
    jwtSecret,
    platformSecret,
    aiMasterKey,
    anonKey: config.ANON_KEY ?? (await signApiKey(jwtSecret, config.PROJECT_REF, 'anon')),
    serviceRoleKey: config.SERVICE_ROLE_KEY ?? (await signApiKey(jwtSecret, config.PROJECT_REF, 'service_role')),
    verify: (token: string) => verifyToken(jwtSecret, token),
    sign: (claims: Claims, expiresInSeconds: number) => signToken(jwtSecret, claims, expiresInSeconds),
    jwks: async () => ({ keys: [] }),
    reloadKeys: async () => undefined,
  };
  // Configured keys must be tokens this server accepts, with the right role.
  for (const [name, token, role] of [
    ['ANON_KEY', keys.anonKey, 'anon'],
    ['SERVICE_ROLE_KEY', keys.serviceRoleKey, 'service_role'],
  ] as const) {
    const verdict = await verifyToken(jwtSecret, token);
    if (!verdict.ok) throw new Error(`${name} is not valid for this JWT_SECRET: ${verdict.reason}`);
    if (verdict.claims.role !== role) throw new Error(`${name} must carry role "${role}", it carries ${JSON.stringify(verdict.claims.role)}`);
  }
  return keys;
}

export type Verdict = { ok: true; claims: Claims } | { ok: false; reason: 'expired' | 'invalid' | 'legacy_disabled' };

/** A legacy API key (signApiKey's): the legacy issuer, the anon or service_role role, no expiry; refused once they are turned off (sql/0113). */
export const isLegacyApiKey = (claims: Claims): boolean =>
  claims.iss === 'pgbase' && claims.exp === undefined && (claims.role === 'anon' || claims.role === 'service_role');

// Verified tokens, by their exact text: every request carries the same apikey
// and a bearer it sent before, and HMAC through WebCrypto costs more than the
// rest of a simple request. An entry holds only what verification proved; its
// expiry is checked again on every hit. Bounded; the oldest entries go first.
const VERIFIED_MAX = 10_000;
const verified = new Map<string, { secret: string; claims: Claims; until: number }>();

/** Verifies a project token: HS256 only (so alg "none" and algorithm swaps fail), signature, exp and nbf. */
export async function verifyToken(secret: string, token: string): Promise<Verdict> {
  const hit = verified.get(token);
  if (hit && hit.secret === secret) {
    if (Date.now() < hit.until) return { ok: true, claims: hit.claims };
    verified.delete(token);
  }
  try {
    const { payload } = await jwtVerify(token, secretKey(secret), { algorithms: [ALGORITHM] });
    const now = Date.now();
    // Never past exp; tokens without exp (API keys) are re-verified every five minutes.
    const until = Math.min(typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity, now + 300_000);
    if (payload.nbf === undefined || payload.nbf * 1000 <= now) {
      if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
      verified.set(token, { secret, claims: payload as Claims, until });
    }
    return { ok: true, claims: payload as Claims };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' };
    return { ok: false, reason: 'invalid' };
  }
}

/** The server's request-pool password, derived so that no second secret needs keeping. */
export function authenticatorPassword(jwtSecret: string): string {
  return createHmac('sha256', jwtSecret).update('pgbase:authenticator').digest('base64url');
}

// Platform tokens: for operators of the control plane. Signed with their own
// secret, so no project key (not even service_role) is one.
const PLATFORM_ISSUER = 'pgbase-platform';

export type PlatformClaims = { sub: string; email: string; refs: string[] };

export async function signPlatformToken(secret: string, email: string, refs: string[], expiresInSeconds: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email, refs })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setIssuer(PLATFORM_ISSUER)
    .setAudience(PLATFORM_ISSUER)
    .setSubject(email)
    .setIssuedAt(now)
    .setExpirationTime(now + expiresInSeconds)
    .sign(secretKey(secret));
}

export async function verifyPlatformToken(secret: string, token: string): Promise<PlatformClaims | null> {
  try {
    const { payload } = await jwtVerify(token, secretKey(secret), { algorithms: [ALGORITHM], issuer: PLATFORM_ISSUER, audience: PLATFORM_ISSUER });
    if (typeof payload.sub !== 'string' || !Array.isArray(payload.refs) || !payload.refs.every((r) => typeof r === 'string')) return null;
    return { sub: payload.sub, email: String(payload.email ?? payload.sub), refs: payload.refs as string[] };
  } catch {
    return null;
  }
}
